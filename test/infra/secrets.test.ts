/**
 * Secrets only where needed (docs/security.md, "Secrets"): every secret is encrypted with the service's
 * customer-managed key, and its resource policy denies reads to every principal but the roles of the functions
 * whose environment names it (derived from the catalog, never listed by hand).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CfnResource, SynthesizedService } from './synth.js';
import { resourcesOfType, synthesizeService } from './synth.js';

let service: SynthesizedService;
beforeAll(() => {
  service = synthesizeService();
}, 300_000);
afterAll(() => service?.cleanup());

type Statement = { Effect: string; Action: unknown; Condition?: Record<string, Record<string, unknown>> };

describe('secrets', () => {
  it('are encrypted with one customer-managed key, rotated and retained', () => {
    const keys = resourcesOfType(service.statefulJson, 'AWS::KMS::Key');
    expect(keys).toHaveLength(1);
    const [[keyId, key]] = keys as [[string, CfnResource]];
    expect(key.Properties['EnableKeyRotation']).toBe(true);
    expect(key.DeletionPolicy).toBe('Retain');
    const secrets = resourcesOfType(service.statefulJson, 'AWS::SecretsManager::Secret');
    expect(secrets.length).toBeGreaterThan(0);
    for (const [id, secret] of secrets) {
      expect(secret.Properties['KmsKeyId'], id).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    }
  });

  it('may be read only by the roles of the functions that name them', () => {
    const policies = resourcesOfType(service.statefulJson, 'AWS::SecretsManager::ResourcePolicy');
    const secrets = resourcesOfType(service.statefulJson, 'AWS::SecretsManager::Secret');
    expect(policies).toHaveLength(secrets.length);
    // Which functions name each secret (its ARN in their environment), by role name.
    const functions = resourcesOfType(service.statelessJson, 'AWS::Lambda::Function');
    const roleName = (fn: CfnResource) => {
      const roleId = (fn.Properties['Role'] as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
      return service.statelessJson.Resources[roleId]?.Properties['RoleName'] as string;
    };
    for (const [, policy] of policies) {
      const secretId = (policy.Properties['SecretId'] as { Ref: string }).Ref;
      const readers = functions
        .filter(([, fn]) => JSON.stringify(fn.Properties['Environment']).includes(`Ref${secretId}`))
        .map(([, fn]) => roleName(fn))
        .sort();
      const [deny] = (policy.Properties['ResourcePolicy'] as { Statement: Statement[] }).Statement;
      expect(deny).toMatchObject({ Effect: 'Deny', Action: 'secretsmanager:GetSecretValue', Principal: { AWS: '*' } });
      const allowed = ([] as unknown[])
        .concat(deny?.Condition?.['StringNotEquals']?.['aws:PrincipalArn'] ?? [])
        .map((arn) => String(arn).split('/').at(-1))
        .sort();
      expect(allowed, secretId).toEqual(readers);
    }
  });
});
