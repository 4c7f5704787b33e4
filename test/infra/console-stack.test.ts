/**
 * The customer console in AWS (docs/console.md), over the whole app synthesized once: the user pool and its client
 * (stateful), the JWT authorizer on exactly the console routes (stateless), and the console stack's bucket,
 * distribution and deployment with its config.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CachePolicy, OriginRequestPolicy, ResponseHeadersPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_PASSWORD_POLICY } from '../../lib/ship/cdk/console-users.js';
import { CONSOLE_ROUTE_SCOPES } from '../../lib/ship/routes.js';
import { CONSOLE_VIEWER_REQUEST_CODE } from '../../lib/ship/cdk/console-site.js';
import { API_ROUTES } from '../../lib/ship/routes.js';
import type { CfnResource, SynthesizedService } from './synth.js';
import { crossStackResource, crossStackTarget, resourcesOfType, resourceWith, synthesizeService } from './synth.js';

let service: SynthesizedService;
beforeAll(() => {
  service = synthesizeService();
}, 120_000);
afterAll(() => service?.cleanup());

const only = (template: { Resources: Record<string, CfnResource> }, type: string): [string, CfnResource] => {
  const found = resourcesOfType(template, type);
  expect(found, type).toHaveLength(1);
  return found[0] as [string, CfnResource];
};

describe('stacks', () => {
  it('adds <prefix>-console after the stateful and stateless stacks; it keeps nothing', () => {
    const { stateful, stateless, console: site } = service.stacks;
    expect(site.stackName).toBe('vgs-console');
    expect(site.dependencies).toEqual(expect.arrayContaining([stateful, stateless]));
    expect(site.terminationProtection).toBe(false);
    for (const [id, resource] of Object.entries(service.consoleJson.Resources)) {
      expect(resource['DeletionPolicy'] ?? 'Delete', id).toBe('Delete');
    }
  });

  it('output the console URL, and the pool id, client id and region (admin CLI, config.json)', () => {
    const [distributionId] = only(service.consoleJson, 'AWS::CloudFront::Distribution');
    // `console.<apex>` with domains (the committed default stage), else the distribution's own name.
    const domains = service.stacks.edge?.domains;
    expect(service.consoleJson.Outputs?.['ConsoleUrl']?.Value).toEqual(
      domains
        ? `https://${domains.console}/console/`
        : { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/console/']] },
    );
    const [poolId] = only(service.statefulJson, 'AWS::Cognito::UserPool');
    const [clientId] = only(service.statefulJson, 'AWS::Cognito::UserPoolClient');
    expect(service.statefulJson.Outputs).toMatchObject({
      ConsoleUserPoolId: { Value: { Ref: poolId } },
      ConsoleUserPoolClientId: { Value: { Ref: clientId } },
      // The stage's Region (stages.ts), or the stack's own when it is bound to none.
      ConsoleRegion: { Value: service.stacks.stateful.resolve(service.stacks.stateful.region) },
    });
  });
});

describe('user pool (stateful)', () => {
  it('lets customers sign themselves up with their email, verified by a code; retained and protected', () => {
    const [, pool] = only(service.statefulJson, 'AWS::Cognito::UserPool');
    expect(pool).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(pool.Properties).toMatchObject({
      UserPoolName: 'vgs-console-users',
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
      UsernameAttributes: ['email'],
      UsernameConfiguration: { CaseSensitive: false },
      AutoVerifiedAttributes: ['email'],
      VerificationMessageTemplate: { DefaultEmailOption: 'CONFIRM_WITH_CODE' },
      AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
      DeletionProtection: 'ACTIVE',
      MfaConfiguration: 'OFF',
      UserPoolTier: 'ESSENTIALS',
    });
  });

  it('asks for passwords of 12+ characters with lower and upper case, digits and symbols', () => {
    const [, pool] = only(service.statefulJson, 'AWS::Cognito::UserPool');
    expect(CONSOLE_PASSWORD_POLICY.minLength).toBe(12);
    expect((pool.Properties['Policies'] as { PasswordPolicy: unknown }).PasswordPolicy).toMatchObject({
      MinimumLength: 12,
      RequireLowercase: true,
      RequireUppercase: true,
      RequireNumbers: true,
      RequireSymbols: true,
    });
  });

  it('has one client for the SPA: no secret, USER_PASSWORD_AUTH and refresh only, no OAuth', () => {
    const [poolId] = only(service.statefulJson, 'AWS::Cognito::UserPool');
    const [, client] = only(service.statefulJson, 'AWS::Cognito::UserPoolClient');
    expect(client.Properties).toMatchObject({
      UserPoolId: { Ref: poolId },
      ClientName: 'vgs-console',
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: false,
      PreventUserExistenceErrors: 'ENABLED',
      EnableTokenRevocation: true,
      SupportedIdentityProviders: ['COGNITO'],
    });
    expect((client.Properties['ExplicitAuthFlows'] as string[]).sort()).toEqual([
      'ALLOW_REFRESH_TOKEN_AUTH',
      'ALLOW_USER_PASSWORD_AUTH',
    ]);
    for (const oauth of ['AllowedOAuthFlows', 'AllowedOAuthScopes', 'CallbackURLs', 'LogoutURLs']) {
      expect(client.Properties).not.toHaveProperty(oauth);
    }
  });
});

describe('JWT authorizer (stateless)', () => {
  const routeKey = (route: (typeof API_ROUTES)[number]) => `${route.method} ${route.path}`;
  const jwtRoutes = API_ROUTES.filter((route) => route.auth === 'jwt');
  const otherRoutes = API_ROUTES.filter((route) => route.auth !== 'jwt');

  it('accepts tokens of the console client issued by the pool', () => {
    const [, authorizer] = only(service.statelessJson, 'AWS::ApiGatewayV2::Authorizer');
    expect(authorizer.Properties).toMatchObject({
      AuthorizerType: 'JWT',
      Name: 'vgs-console-jwt',
      IdentitySource: ['$request.header.Authorization'],
    });
    const { Issuer, Audience } = authorizer.Properties['JwtConfiguration'] as { Issuer: unknown; Audience: unknown[] };
    const parts = (Issuer as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    const poolRef = parts.at(-1);
    // The stage's Region as text (stages.ts), or the stack's own (a pseudo parameter) when it is bound to none.
    const region: unknown = service.stacks.stateful.resolve(service.stacks.stateful.region);
    const text = parts
      .slice(0, -1)
      .map((part) => (typeof part === 'string' ? part : JSON.stringify(part) === JSON.stringify(region) ? '<r>' : '?'))
      .join('');
    expect(text).toBe(`https://cognito-idp.${typeof region === 'string' ? region : '<r>'}.amazonaws.com/`);
    expect(crossStackResource(service, poolRef)[1].Type).toBe('AWS::Cognito::UserPool');
    expect(Audience).toHaveLength(1);
    expect(crossStackResource(service, Audience[0])[1].Type).toBe('AWS::Cognito::UserPoolClient');
  });

  it('guards exactly the routes flagged auth: jwt (PATCH among them), asking for the access-token scope', () => {
    expect(jwtRoutes.length).toBeGreaterThan(0);
    expect(jwtRoutes.some((route) => route.method === 'PATCH')).toBe(true);
    const [authorizerId] = only(service.statelessJson, 'AWS::ApiGatewayV2::Authorizer');
    for (const route of jwtRoutes) {
      const [, resource] = resourceWith(service.statelessJson, 'AWS::ApiGatewayV2::Route', 'RouteKey', routeKey(route));
      expect(resource.Properties, route.id).toMatchObject({
        AuthorizationType: 'JWT',
        AuthorizerId: { Ref: authorizerId },
        AuthorizationScopes: [...CONSOLE_ROUTE_SCOPES],
      });
    }
  });

  it('leaves every other route (API-key and public ones, $default) to its handler', () => {
    expect(otherRoutes.map((route) => route.id)).toEqual(expect.arrayContaining(['SubmitTask', 'Health']));
    for (const route of otherRoutes) {
      const [, resource] = resourceWith(service.statelessJson, 'AWS::ApiGatewayV2::Route', 'RouteKey', routeKey(route));
      expect(resource.Properties['AuthorizationType'] ?? 'NONE', route.id).toBe('NONE');
      expect(resource.Properties, route.id).not.toHaveProperty('AuthorizerId');
    }
    const [, fallback] = resourceWith(service.statelessJson, 'AWS::ApiGatewayV2::Route', 'RouteKey', '$default');
    expect(fallback.Properties['AuthorizationType'] ?? 'NONE').toBe('NONE');
  });
});

describe('console site', () => {
  const distribution = () =>
    only(service.consoleJson, 'AWS::CloudFront::Distribution')[1].Properties['DistributionConfig'] as {
      DefaultCacheBehavior: Record<string, unknown>;
      CacheBehaviors: Record<string, unknown>[];
      Origins: { Id: string; DomainName: unknown; [key: string]: unknown }[];
      [key: string]: unknown;
    };

  it('keeps the app in its own private bucket: no public access, TLS only, S3-managed encryption', () => {
    const [bucketId, bucket] = only(service.consoleJson, 'AWS::S3::Bucket');
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    expect(bucket.Properties).not.toHaveProperty('WebsiteConfiguration');
    const [, policy] = only(service.consoleJson, 'AWS::S3::BucketPolicy');
    expect(policy.Properties['Bucket']).toEqual({ Ref: bucketId });
    const statements = (policy.Properties['PolicyDocument'] as { Statement: Record<string, unknown>[] }).Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    // The only Allow: CloudFront reading objects for this distribution (Origin Access Control).
    const [distributionId] = only(service.consoleJson, 'AWS::CloudFront::Distribution');
    const allows = statements.filter((statement) => statement['Effect'] === 'Allow');
    expect(allows).toHaveLength(1);
    expect(allows[0]).toMatchObject({ Action: 's3:GetObject', Principal: { Service: 'cloudfront.amazonaws.com' } });
    expect(JSON.stringify(allows[0]?.['Condition'])).toContain(`"Ref":"${distributionId}"`);
    // Not the video bucket: the console's is separate and in its own stack.
    expect(JSON.stringify(service.consoleJson)).not.toContain('videos');
  });

  it('serves the bucket by default through OAC, with the /console rewrite function and security headers', () => {
    const config = distribution();
    const behavior = config.DefaultCacheBehavior;
    const origin = config.Origins.find((o) => o.Id === behavior['TargetOriginId']);
    const [oacId] = only(service.consoleJson, 'AWS::CloudFront::OriginAccessControl');
    const [bucketId] = only(service.consoleJson, 'AWS::S3::Bucket');
    expect(origin).toMatchObject({
      DomainName: { 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] },
      OriginAccessControlId: { 'Fn::GetAtt': [oacId, 'Id'] },
    });
    const [functionId, fn] = only(service.consoleJson, 'AWS::CloudFront::Function');
    expect(fn.Properties).toMatchObject({
      FunctionCode: CONSOLE_VIEWER_REQUEST_CODE,
      FunctionConfig: { Runtime: 'cloudfront-js-2.0' },
    });
    expect(behavior).toMatchObject({
      ViewerProtocolPolicy: 'redirect-to-https',
      AllowedMethods: ['GET', 'HEAD'],
      CachePolicyId: CachePolicy.CACHING_OPTIMIZED.cachePolicyId,
      ResponseHeadersPolicyId: ResponseHeadersPolicy.SECURITY_HEADERS.responseHeadersPolicyId,
      FunctionAssociations: [
        { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } },
      ],
    });
    // Error pages would apply to /api/* too and hide the API's own 403/404 answers.
    expect(config).not.toHaveProperty('CustomErrorResponses');
    expect(config['Logging']).toMatchObject({ Prefix: 'cloudfront/console/' });
  });

  it('sends /docs to the HTTP API too, read-only: the page and its renderer (under /console/docs/) share an origin', () => {
    const config = distribution();
    const docs = config.CacheBehaviors[1] as Record<string, unknown>;
    const api = config.CacheBehaviors[0] as Record<string, unknown>;
    expect(docs).toMatchObject({
      PathPattern: '/docs',
      TargetOriginId: api['TargetOriginId'],
      ViewerProtocolPolicy: 'redirect-to-https',
      CachePolicyId: CachePolicy.CACHING_DISABLED.cachePolicyId,
    });
    expect((docs['AllowedMethods'] as string[]).sort()).toEqual(['GET', 'HEAD']);
  });

  it('sends /api/* to the HTTP API: every method, nothing cached, the viewer headers but Host', () => {
    const config = distribution();
    expect(config.CacheBehaviors.map((behavior) => behavior['PathPattern'])).toEqual(['/api/*', '/docs']);
    const api = config.CacheBehaviors[0] as Record<string, unknown>;
    expect(api).toMatchObject({
      PathPattern: '/api/*',
      ViewerProtocolPolicy: 'https-only',
      CachePolicyId: CachePolicy.CACHING_DISABLED.cachePolicyId,
      OriginRequestPolicyId: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
    });
    expect((api['AllowedMethods'] as string[]).sort()).toEqual(
      ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'].sort(),
    );
    expect(api).not.toHaveProperty('FunctionAssociations');
    const origin = config.Origins.find((o) => o.Id === api['TargetOriginId']);
    expect(origin).toMatchObject({ CustomOriginConfig: { OriginProtocolPolicy: 'https-only' } });
    // With domains (the committed default stage), the API's custom domain, with mutual TLS (test/infra/edge.test.ts);
    // else the host of the stateless stack's API endpoint (`https://<id>.execute-api...`).
    const domains = service.stacks.edge?.domains;
    if (domains) {
      expect(origin?.DomainName).toBe(domains.apiOrigin);
      return;
    }
    const [index, split] = (origin?.DomainName as { 'Fn::Select': [number, { 'Fn::Split': [string, unknown] }] })[
      'Fn::Select'
    ];
    expect([index, split['Fn::Split'][0]]).toEqual([2, '/']);
    const [apiId] = only(service.statelessJson, 'AWS::ApiGatewayV2::Api');
    expect(crossStackTarget(service, split['Fn::Split'][1], 'stateless')).toEqual({
      'Fn::GetAtt': [apiId, 'ApiEndpoint'],
    });
  });

  it('deploys the built app and config.json under console/ (pruned, removed with the stack, revalidated)', () => {
    const [, deployment] = only(service.consoleJson, 'Custom::CDKBucketDeployment');
    const [bucketId] = only(service.consoleJson, 'AWS::S3::Bucket');
    expect(deployment.Properties).toMatchObject({
      DestinationBucketName: { Ref: bucketId },
      DestinationBucketKeyPrefix: 'console/',
      Prune: true,
      RetainOnDelete: false,
      SystemMetadata: { 'cache-control': 'no-cache' },
    });
    const keys = deployment.Properties['SourceObjectKeys'] as string[];
    const markers = deployment.Properties['SourceMarkers'] as Record<string, unknown>[];
    expect(keys).toHaveLength(2);
    // The second source: config.json, its deploy-time values as markers the handler replaces.
    const text = readFileSync(
      join(service.outdir, `asset.${(keys[1] as string).replace(/\.zip$/, '')}`, 'config.json'),
      'utf8',
    );
    const values = markers[1] as Record<string, unknown>;
    const config = JSON.parse(text) as { cognito: Record<string, string>; apiBase: string };
    const valueOf = (marked: string | undefined) => values[marked as string];
    expect(Object.keys(config.cognito).sort()).toEqual(['clientId', 'endpoint', 'region', 'userPoolId']);
    expect(config.apiBase).toBe('');
    expect(valueOf(config.cognito['region'])).toEqual({ Ref: 'AWS::Region' });
    const endpoint = /^https:\/\/cognito-idp\.(.+)\.amazonaws\.com\/$/.exec(config.cognito['endpoint'] ?? '');
    expect(valueOf(endpoint?.[1])).toEqual({ Ref: 'AWS::Region' });
    expect(crossStackResource(service, valueOf(config.cognito['userPoolId']))[1].Type).toBe('AWS::Cognito::UserPool');
    expect(crossStackResource(service, valueOf(config.cognito['clientId']))[1].Type).toBe(
      'AWS::Cognito::UserPoolClient',
    );
  });
});
