/**
 * `sam local start-api` against the local emulators, checked without Docker against the SAM CLI rules it
 * relies on: only template-declared variables reach a function, env.json (keyed by logical id) overrides
 * them, unresolvable references become "" (samcli/local/lambdafn/env_vars.py; aws-sam-cli #1553, #6145), and
 * a route's function is found through its integration. Each API handler must load with what SAM gives it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { physicalNames } from '../../functions/adapters/runtime/resources.js';
import { SAM_LOCAL_CONTEXT } from '../../lib/ship/cdk/sam-local.js';
import { LAMBDA_RESERVED_VARIABLES, samLocalVariables } from '../../lib/ship/sam-local/sam-variables.js';
import type { LocalStackRuntime } from '../../lib/dev/local/sam-env.js';
import {
  functionsMissingSamVariables,
  functionVariables,
  realUpstreams,
  samEnvVars,
} from '../../lib/dev/local/sam-env.js';
import { simulatorApiKey } from '../../lib/dev/local/upstreams.js';
import { lambdaBundles } from '../../lib/ship/build/lambda-bundles.js';
import { ALL_FUNCTIONS } from '../../lib/ship/routes.js';
import { importEachInNode22 } from '../support/bundle-imports.js';
import type { SynthesizedService } from './synth.js';
import { REPOSITORY_ROOT, resourcesOfType, synthesizeService } from './synth.js';

const RUNTIME: LocalStackRuntime = {
  endpoints: {
    dynamodb: 'http://127.0.0.1:41001',
    s3: 'http://127.0.0.1:41002',
    sqs: 'http://127.0.0.1:41002',
    sfn: 'http://127.0.0.1:41003',
    upstreams: {
      ark: { platform: 'byteplus', baseUrl: 'http://127.0.0.1:41004', simulated: true },
      'model-studio': { platform: 'singapore', baseUrl: 'http://127.0.0.1:41005', simulated: true },
    },
  },
  names: physicalNames('vgs-local'),
};

let service: SynthesizedService;
let declared: Record<string, Record<string, unknown>>;
let env: Record<string, Record<string, string>>;
beforeAll(() => {
  // As `npx cdk synth -c samLocal=true` gives it: a string.
  service = synthesizeService({ context: { [SAM_LOCAL_CONTEXT]: 'true' } });
  declared = functionVariables(service.statelessJson);
  env = samEnvVars(service.statelessJson, RUNTIME, 'host.docker.internal');
}, 300_000);
afterAll(() => service?.cleanup());

/** samcli EnvironmentVariables.resolve(): its AWS_* first, then each declared variable, env.json over the template. */
function samEnvironment(logicalId: string, overrides: Record<string, string> = {}): Record<string, string> {
  const result: Record<string, string> = {
    AWS_SAM_LOCAL: 'true',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'defaultkey',
    AWS_SECRET_ACCESS_KEY: 'defaultsecret',
    AWS_LAMBDA_FUNCTION_NAME: logicalId,
  };
  for (const [name, value] of Object.entries(declared[logicalId] ?? {})) {
    const chosen = name in overrides ? overrides[name] : value;
    result[name] = typeof chosen === 'string' ? chosen : '';
  }
  return result;
}

/** The function each HTTP API route invokes, as SAM finds it: Route.Target → Integration.IntegrationUri. */
function routeFunctions(): Record<string, string> {
  const resources = service.statelessJson.Resources;
  return Object.fromEntries(
    resourcesOfType(service.statelessJson, 'AWS::ApiGatewayV2::Route').map(([, route]) => {
      const target = JSON.stringify(route.Properties['Target']);
      const integrationId = /"integrations\/",\{"Ref":"([^"]+)"\}/.exec(target)?.[1] as string;
      const uri = resources[integrationId]?.Properties['IntegrationUri'] as { 'Fn::GetAtt': [string, string] };
      return [route.Properties['RouteKey'] as string, uri['Fn::GetAtt'][0]];
    }),
  );
}

it('declares, on every function, every variable env.json may set (SAM applies only declared ones)', () => {
  expect(samLocalVariables()).toEqual(
    expect.arrayContaining(['AWS_ENDPOINT_URL_DYNAMODB', 'AWS_ENDPOINT_URL_S3', 'S3_FORCE_PATH_STYLE', 'ARK_API_KEY']),
  );
  expect(functionsMissingSamVariables(service.statelessJson)).toEqual([]);
});

it('declares no variable Lambda reserves (SAM passes the caller credentials and region in those)', () => {
  for (const [logicalId, variables] of Object.entries(declared)) {
    expect(
      Object.keys(variables).filter((name) => LAMBDA_RESERVED_VARIABLES.includes(name)),
      logicalId,
    ).toEqual([]);
  }
});

it('writes env.json keyed by every function logical id, setting only variables the function declares', () => {
  expect(Object.keys(env).sort()).toEqual(Object.keys(declared).sort());
  expect(Object.keys(declared)).toHaveLength(ALL_FUNCTIONS.length);
  for (const [logicalId, values] of Object.entries(env)) {
    expect(
      Object.keys(values).filter((name) => !(name in (declared[logicalId] ?? {}))),
      logicalId,
    ).toEqual([]);
    expect(Object.keys(values), logicalId).toEqual(expect.arrayContaining(samLocalVariables()));
  }
});

it('points every function at the local stack only: endpoints through the host, no reference left to AWS', () => {
  for (const [logicalId, variables] of Object.entries(declared)) {
    const values = env[logicalId] ?? {};
    for (const [name, value] of Object.entries(variables)) {
      if (typeof value !== 'string') expect(values, `${logicalId} ${name}`).toHaveProperty(name);
    }
    expect(JSON.stringify(values), logicalId).not.toMatch(/127\.0\.0\.1|localhost|amazonaws\.com/);
  }
  const [getTask] = Object.entries(declared).find(([, variables]) => 'CLOUDFRONT_DOMAIN' in variables) ?? [];
  expect(env[getTask as string]).toMatchObject({
    CLOUDFRONT_DOMAIN: '',
    AWS_ENDPOINT_URL_S3: 'http://host.docker.internal:41002',
    VIDEO_BUCKET: RUNTIME.names.videoBucket,
  });
});

it("gives each provider's handlers its upstream: the simulator through the host with its key, or the real one", () => {
  const [logicalId, variables] = Object.entries(declared).find(([, names]) => 'ARK_BASE_URL' in names) ?? [];
  expect(Object.keys(variables ?? {})).toEqual(expect.arrayContaining(['ARK_PLATFORM', 'ARK_API_KEY']));
  expect(env[logicalId as string]).toMatchObject({
    ARK_PLATFORM: 'byteplus',
    ARK_BASE_URL: 'http://host.docker.internal:41004',
    ARK_API_KEY: simulatorApiKey('ark'),
  });

  // A stack on the real upstream records no key: env.json needs it from the caller, and names it when missing.
  const real: LocalStackRuntime = {
    ...RUNTIME,
    endpoints: {
      ...RUNTIME.endpoints,
      upstreams: {
        ...RUNTIME.endpoints.upstreams,
        ark: { platform: 'volcengine', baseUrl: 'https://ark.cn-beijing.volces.com', simulated: false },
      },
    },
  };
  expect(realUpstreams(real)).toEqual(['ark']);
  expect(realUpstreams(RUNTIME)).toEqual([]);
  expect(() => samEnvVars(service.statelessJson, real, 'host.docker.internal')).toThrow(/ARK_API_KEY is needed/);
  const withKey = samEnvVars(service.statelessJson, real, 'host.docker.internal', { ark: 'the-real-key' });
  expect(withKey[logicalId as string]).toMatchObject({
    ARK_PLATFORM: 'volcengine',
    ARK_BASE_URL: 'https://ark.cn-beijing.volces.com',
    ARK_API_KEY: 'the-real-key',
  });
});

it('routes every HTTP API route to a function env.json configures', () => {
  const routes = routeFunctions();
  expect(Object.keys(routes)).toContain('$default');
  for (const [routeKey, logicalId] of Object.entries(routes)) expect(env, routeKey).toHaveProperty(logicalId);
});

it('each API route handler loads with what SAM gives it, and without env.json fails at load (a 502)', async () => {
  // What SAM runs is the asset CDK built: the bundle (the local stack's build is the same, byte for byte:
  // test/infra/lambda-bundles.test.ts), under Node 22 as Lambda's runtime.
  const { files } = await lambdaBundles();
  const entries = Object.fromEntries(ALL_FUNCTIONS.map(({ id, entry }) => [`vgs-${id}`, entry]));
  const load = (logicalId: string, environment: Record<string, string>) => {
    const resource = service.statelessJson.Resources[logicalId];
    const entry = entries[resource?.Properties['FunctionName'] as string] as string;
    return { name: logicalId, file: files[entry]!, environment, cwd: REPOSITORY_ROOT };
  };
  const routes = [...new Set(Object.values(routeFunctions()))];
  expect(await importEachInNode22(routes.map((id) => load(id, samEnvironment(id, env[id]))))).toEqual({});

  const listModels = routes.find((id) => id.startsWith('ListModels')) as string;
  const withoutEnvJson = await importEachInNode22([load(listModels, samEnvironment(listModels))]);
  expect(withoutEnvJson[listModels]).toMatch(/environment variable \w+_TABLE is required/);
}, 300_000);
