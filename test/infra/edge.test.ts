/**
 * The stable addresses and the guarded edge (docs/security.md, "The edge"; docs/operations.md, "Addresses"), as the
 * committed default stage synthesizes them: custom domains on ACM certificates in the stateful stack, a web ACL
 * (managed rule groups, per-IP budgets) on every CloudFront distribution, an API reachable only through them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../functions/adapters/runtime/config.js';
import { MANAGED_RULE_GROUPS } from '../../lib/ship/cdk/edge-web-acl.js';
import type { CfnResource, SynthesizedService } from './synth.js';
import { cdkJson, resourcesOfType, synthesizeService } from './synth.js';

let service: SynthesizedService;
beforeAll(() => {
  service = synthesizeService();
}, 300_000);
afterAll(() => service?.cleanup());

const context = cdkJson().context as { stage: string; stages: Record<string, { domains: { apex: string } }> };
const apex = context.stages[context.stage]!.domains.apex;
type DistributionConfig = {
  Aliases?: string[];
  WebACLId?: unknown;
  ViewerCertificate?: Record<string, unknown>;
  Origins: { DomainName: unknown; CustomOriginConfig?: Record<string, unknown> }[];
};
const distributions = () =>
  [service.statefulJson, service.consoleJson].flatMap((template) =>
    resourcesOfType(template, 'AWS::CloudFront::Distribution').map(
      ([id, d]) => [id, d.Properties['DistributionConfig'] as DistributionConfig] as const,
    ),
  );

describe('web ACL (us-east-1)', () => {
  it("runs AWS's core, known-bad-inputs and IP reputation groups, then per-IP budgets apart for callers with credentials", () => {
    expect(service.stacks.edge?.region).toBe('us-east-1');
    const [[, acl]] = resourcesOfType(service.edgeJson, 'AWS::WAFv2::WebACL') as [[string, CfnResource]];
    expect(acl.Properties['Scope']).toBe('CLOUDFRONT');
    const rules = acl.Properties['Rules'] as { Name: string; Statement: Record<string, Record<string, unknown>> }[];
    const groups = rules.flatMap((rule) => {
      const group = rule.Statement['ManagedRuleGroupStatement'];
      return group ? [`${String(group['VendorName'])}/${String(group['Name'])}`] : [];
    });
    expect(groups).toEqual(MANAGED_RULE_GROUPS.map((name) => `AWS/${name}`));
    const rates = rules.flatMap((rule) => {
      const rate = rule.Statement['RateBasedStatement'];
      return rate
        ? [{ name: rule.Name, key: rate['AggregateKeyType'], scope: JSON.stringify(rate['ScopeDownStatement']) }]
        : [];
    });
    expect(rates.map(({ name, key }) => [name, key])).toEqual([
      ['RatePerIpUnauthenticated', 'IP'],
      ['RatePerIpAuthenticated', 'IP'],
    ]);
    expect(rates[0]?.scope).toContain('NotStatement');
    expect(rates[1]?.scope).toContain('"authorization"');
  });
});

describe('every public path', () => {
  it('is a CloudFront distribution under the web ACL, on a custom name, TLS 1.2 or later', () => {
    const all = distributions();
    expect(all.map(([, config]) => config.Aliases).sort()).toEqual(
      [[`api.${apex}`], [`console.${apex}`], [`videos.${apex}`]].sort(),
    );
    for (const [id, config] of all) {
      expect(JSON.stringify(config.WebACLId), id).toContain('"StackName":"vgs-edge"');
      expect(config.ViewerCertificate, id).toMatchObject({
        AcmCertificateArn: expect.stringMatching(/^arn:aws:acm:us-east-1:/),
        MinimumProtocolVersion: 'TLSv1.2_2021',
        SslSupportMethod: 'sni-only',
      });
    }
  });

  it('reaches the HTTP API only through its custom domain, with mutual TLS; the execute-api endpoint is off', () => {
    const [[, api]] = resourcesOfType(service.statelessJson, 'AWS::ApiGatewayV2::Api') as [[string, CfnResource]];
    expect(api.Properties['DisableExecuteApiEndpoint']).toBe(true);
    const [[domainId, domain]] = resourcesOfType(service.statefulJson, 'AWS::ApiGatewayV2::DomainName') as [
      [string, CfnResource],
    ];
    expect(domain.Properties['DomainName']).toBe(`api-origin.${apex}`);
    expect(domain.Properties['MutualTlsAuthentication']).toMatchObject({
      TruststoreUri: expect.stringMatching(/^s3:\/\//),
    });
    const [[, mapping]] = resourcesOfType(service.statelessJson, 'AWS::ApiGatewayV2::ApiMapping') as [
      [string, CfnResource],
    ];
    expect(JSON.stringify(mapping.Properties['DomainName'])).toContain(domainId.slice(0, 20));
    const apiOrigins = distributions().flatMap(([, config]) =>
      config.Origins.filter((origin) => origin.CustomOriginConfig !== undefined),
    );
    expect(apiOrigins.length).toBe(2); // the API's distribution, and the console's /api/*
    for (const origin of apiOrigins) {
      expect(origin.DomainName).toBe(`api-origin.${apex}`);
      expect(origin.CustomOriginConfig?.['OriginMtlsConfig']).toMatchObject({
        ClientCertificateArn: expect.stringMatching(/^arn:aws:acm:us-east-1:/),
      });
    }
    expect(JSON.stringify(service.consoleJson)).not.toContain('ApiEndpoint');
  });
});

describe('addresses', () => {
  it('live in the stateful stack (domain, API distribution, records), so a compute-only teardown keeps them', () => {
    expect(resourcesOfType(service.statelessJson, 'AWS::ApiGatewayV2::DomainName')).toEqual([]);
    expect(resourcesOfType(service.statelessJson, 'AWS::CloudFront::Distribution')).toEqual([]);
    const records = resourcesOfType(service.statefulJson, 'AWS::Route53::RecordSet').map(
      ([, record]) => record.Properties['Name'],
    );
    expect(records).toEqual(expect.arrayContaining([`api.${apex}.`, `videos.${apex}.`, `api-origin.${apex}.`]));
  });

  it('are what the upstream reports to and what video URLs are signed for', () => {
    const variables = resourcesOfType(service.statelessJson, 'AWS::Lambda::Function').map(
      ([, fn]) => (fn.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables,
    );
    const callbacks = variables.flatMap((v) => (v[ENV.callbackBaseUrl.name] ? [v[ENV.callbackBaseUrl.name]] : []));
    expect(callbacks.length).toBeGreaterThan(0);
    for (const url of callbacks) expect(url).toBe(`https://api.${apex}`);
    const cdn = variables.flatMap((v) => (v[ENV.cloudFrontDomain.name] ? [v[ENV.cloudFrontDomain.name]] : []));
    for (const domain of cdn) expect(domain).toBe(`videos.${apex}`);
  });
});
