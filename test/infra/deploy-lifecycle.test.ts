/**
 * What docs/operations.md, "Deploy to AWS", promises of the deploy lifecycle, as far as templates can show it: a first
 * deploy and a plain redeploy need nothing beyond cdk.json, a signing-key rotation never changes a CloudFront
 * public key in place, and a teardown leaves only what can be imported or deleted, under no reserved name.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MISSING_KEYS_PARAMETER, SIGNING_KEYS_CONTEXT } from '../../lib/ship/cdk/video-delivery.js';
import { configFromContext } from '../../lib/ship/cdk/stack-context.js';
import { StatefulStack } from '../../lib/ship/cdk/stateful-stack.js';
import type { CfnResource, SynthesizedService } from './synth.js';
import {
  cdkJson,
  crossStackResource,
  REPOSITORY_ROOT,
  resourcesOfType,
  resourceWith,
  synthesizeService,
  withApp,
} from './synth.js';

type TemplateJson = {
  Resources: Record<string, CfnResource>;
  Parameters?: Record<string, Record<string, unknown>>;
  Outputs?: Record<string, unknown>;
};

const publicPem = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
const K1 = publicPem();
const K2 = publicPem();
const keys = (publicKeys: Record<string, string>, active: string) => ({
  [SIGNING_KEYS_CONTEXT]: { vgs: { active, publicKeys } },
});

/** The stateful stack alone (cheap: no functions), as `cdk synth` would render it with this context. */
function statefulTemplate(context: Record<string, unknown>): TemplateJson {
  // Without the built-in validation, which test/infra/video-service-stack.test.ts runs once.
  return withApp({ context: { ...cdkJson().context, ...context }, builtinCloudFormationValidation: false }, (app) => {
    const stack = new StatefulStack(app, 'vgs-stateful', { serviceConfig: configFromContext(app) });
    return Template.fromStack(stack).toJSON() as TemplateJson;
  });
}

/** CloudFront public keys by logical id → their encoded key. */
function publicKeys(template: TemplateJson): Record<string, unknown> {
  return Object.fromEntries(
    resourcesOfType(template, 'AWS::CloudFront::PublicKey').map(([id, key]) => [
      id,
      (key.Properties['PublicKeyConfig'] as { EncodedKey: unknown }).EncodedKey,
    ]),
  );
}
const logicalIdOf = (template: TemplateJson, pem: string) =>
  Object.entries(publicKeys(template)).find(([, encoded]) => encoded === pem)?.[0];
function keyGroupItems(template: TemplateJson): unknown[] {
  const [[, group]] = resourcesOfType(template, 'AWS::CloudFront::KeyGroup') as [[string, CfnResource]];
  return (group.Properties['KeyGroupConfig'] as { Items: unknown[] }).Items;
}

let first: TemplateJson;
let added: TemplateJson;
let removed: TemplateJson;
let unconfigured: TemplateJson;
/** Rotation's middle step, both stacks: k1 and k2 trusted, k2 signing. */
let switched: SynthesizedService;
beforeAll(() => {
  first = statefulTemplate(keys({ k1: K1 }, 'k1'));
  added = statefulTemplate(keys({ k1: K1, k2: K2 }, 'k1'));
  removed = statefulTemplate(keys({ k2: K2 }, 'k2'));
  unconfigured = statefulTemplate({});
  switched = synthesizeService({ context: keys({ k1: K1, k2: K2 }, 'k2') });
}, 180_000);
afterAll(() => switched?.cleanup());

describe('first deploy', () => {
  it('needs no deploy-time parameter: the keys come from cdk.json', () => {
    expect(Object.keys(first.Parameters ?? {})).toEqual(['BootstrapVersion']);
  });

  it('without keys configured, is refused by CloudFormation before anything is created', () => {
    // A parameter no value satisfies: "must have values" without one, the constraint's message with one.
    expect(unconfigured.Parameters?.[MISSING_KEYS_PARAMETER]).toMatchObject({
      Type: 'String',
      MinLength: 1,
      AllowedPattern: '^$',
      ConstraintDescription: expect.stringContaining(`${SIGNING_KEYS_CONTEXT}.vgs`),
    });
    expect(unconfigured.Parameters?.[MISSING_KEYS_PARAMETER]).not.toHaveProperty('Default');
    expect(Object.values(publicKeys(unconfigured))).toEqual([{ Ref: MISSING_KEYS_PARAMETER }]);
  });

  it('outputs the secret ARNs step 4 of the first deploy (docs/operations.md) stores the Ark key and each signing key in', () => {
    expect(Object.keys(first.Outputs ?? {})).toEqual(
      expect.arrayContaining([
        'ArkApiKeySecretArn',
        'CloudFrontPrivateKeySecretArn',
        'SigningKeyk1PrivateKeySecretArn',
      ]),
    );
  });
});

describe('plain redeploy (`npx cdk deploy --all`, no -c)', () => {
  it('renders the same stateful template from the same cdk.json, whatever the PEM file whitespace', () => {
    const again = statefulTemplate(keys({ k1: `\n${K1.replace(/\n/g, '\r\n')}\n` }, 'k1'));
    expect(again).toEqual(first);
  });
});

describe('signing-key rotation', () => {
  it('adding a key leaves every existing key as it is and trusts both', () => {
    expect(logicalIdOf(added, K1)).toBe(logicalIdOf(first, K1));
    expect(Object.keys(publicKeys(added))).toHaveLength(2);
    expect(keyGroupItems(added)).toHaveLength(2);
  });

  it('never changes a public key in place (CloudFront refuses a changed EncodedKey) at any step', () => {
    const steps = [first, added, switched.statefulJson as TemplateJson, removed];
    for (const [before, after] of steps.slice(1).map((step, i) => [steps[i] as TemplateJson, step] as const)) {
      const previous = publicKeys(before);
      for (const [logicalId, encoded] of Object.entries(publicKeys(after))) {
        if (logicalId in previous) expect(encoded, logicalId).toEqual(previous[logicalId]);
      }
    }
  });

  it('switching gives the signing functions the new key pair id and private key, both keys still trusted', () => {
    const k2 = logicalIdOf(switched.statefulJson as TemplateJson, K2);
    expect(keyGroupItems(switched.statefulJson as TemplateJson)).toHaveLength(2);
    for (const name of ['GetTask', 'CompleteTask', 'DeliverWebhook']) {
      const [, fn] = resourceWith(switched.statelessJson, 'AWS::Lambda::Function', 'FunctionName', `vgs-${name}`);
      const env = (fn.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
      expect(crossStackResource(switched, env['CLOUDFRONT_KEY_PAIR_ID'])[0], name).toBe(k2);
      expect(crossStackResource(switched, env['CLOUDFRONT_PRIVATE_KEY_SECRET_ARN'])[0], name).toMatch(
        /SigningKeyk2PrivateKey/,
      );
    }
  });

  it('removing the old key deletes its public key and its secret, and leaves the new one as it was', () => {
    expect(Object.keys(publicKeys(removed))).toEqual([logicalIdOf(added, K2)]);
    const secrets = (template: TemplateJson) => resourcesOfType(template, 'AWS::SecretsManager::Secret');
    const k1Secret = secrets(added).find(([id]) => id.includes('SigningKeyk1PrivateKey'));
    expect(k1Secret?.[1]).toMatchObject({ DeletionPolicy: 'Delete' });
    expect(secrets(removed).map(([id]) => id)).not.toContain(k1Secret?.[0]);
  });
});

describe('teardown and redeploy with the same prefix', () => {
  it('no secret has a fixed name (a deleted one keeps its name 7 to 30 days, a retained one for good)', () => {
    const secrets = resourcesOfType(first, 'AWS::SecretsManager::Secret');
    expect(secrets.length).toBeGreaterThan(1);
    for (const [id, secret] of secrets) expect(secret.Properties, id).not.toHaveProperty('Name');
  });

  it('the stateless and console stacks keep nothing: destroying and redeploying them is always clean', () => {
    for (const [id, resource] of Object.entries({
      ...switched.statelessJson.Resources,
      ...switched.rolloutsJson.Resources,
      ...switched.consoleJson.Resources,
    })) {
      expect(resource['DeletionPolicy'] ?? 'Delete', id).toBe('Delete');
    }
  });

  it("what the stateful stack keeps is what the docs' import mapping covers (CloudFormation identifier = physical id)", () => {
    const kept = Object.values(first.Resources).filter((resource) => resource['DeletionPolicy'] === 'Retain');
    const types = [...new Set(kept.map((resource) => resource.Type))].sort();
    expect(types).toEqual([
      'AWS::Cognito::UserPool',
      'AWS::DynamoDB::Table',
      'AWS::KMS::Key',
      'AWS::S3::Bucket',
      'AWS::SQS::Queue',
      'AWS::SecretsManager::Secret',
    ]);
    const operations = readFileSync(join(REPOSITORY_ROOT, 'docs', 'operations.md'), 'utf8');
    const section = operations.slice(operations.indexOf('## Deploy to AWS'), operations.indexOf('## Admin CLI'));
    for (const mapping of [
      '"AWS::Cognito::UserPool":"UserPoolId"',
      '"AWS::DynamoDB::Table":"TableName"',
      '"AWS::S3::Bucket":"BucketName"',
      '"AWS::SQS::Queue":"QueueUrl"',
      '"AWS::SecretsManager::Secret":"Id"',
      '"AWS::KMS::Key":"KeyId"',
    ]) {
      expect(section).toContain(mapping);
    }
  });
});
