/**
 * The console site construct on its own (a tiny stack, cheap to synthesize): the app is built at synthesis
 * through the build module, as `cdk synth` / `cdk deploy` do, and the viewer-request function maps the paths.
 * The whole app's console stack is test/infra/console-stack.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { UserPool, UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  builtConsole,
  buildConsoleSync,
  CONSOLE_VIEWER_REQUEST_CODE,
  ConsoleSite,
} from '../../lib/ship/cdk/console-site.js';
import { FAKE_APP_JS, FAKE_INDEX_HTML } from './fixtures/console-build.js';
import type { CfnResource } from './synth.js';
import { cdkJson, REPOSITORY_ROOT, resourcesOfType } from './synth.js';

const FAKE_BUILD = join(REPOSITORY_ROOT, 'test', 'infra', 'fixtures', 'console-build.ts');

let outdir: string;
let template: { Resources: Record<string, CfnResource> };
beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'vgs-console-site-'));
  // Bundling on (the default): what `cdk deploy` of the console stack does.
  const app = new App({ outdir, context: cdkJson().context, builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'ConsoleSiteTest');
  new ConsoleSite(stack, 'Site', {
    prefix: 'test',
    site: builtConsole(FAKE_BUILD),
    httpApi: HttpApi.fromHttpApiAttributes(stack, 'Api', {
      httpApiId: 'abc123',
      apiEndpoint: 'https://abc123.execute-api.us-east-1.amazonaws.com',
    }),
    userPool: UserPool.fromUserPoolId(stack, 'Pool', 'us-east-1_abc'),
    client: UserPoolClient.fromUserPoolClientId(stack, 'Client', 'client123'),
    logBucket: Bucket.fromBucketName(stack, 'Logs', 'logs-bucket'),
  });
  template = app.synth().getStackByName(stack.stackName).template;
}, 120_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the built app', () => {
  it('is what buildConsole() returned, deployed as the first source', () => {
    const [[, deployment]] = resourcesOfType(template, 'Custom::CDKBucketDeployment') as [[string, CfnResource]];
    const [siteKey] = deployment.Properties['SourceObjectKeys'] as string[];
    const staged = join(outdir, `asset.${(siteKey as string).replace(/\.zip$/, '')}`);
    expect(readdirSync(staged).sort()).toEqual(['assets', 'index.html']);
    expect(readFileSync(join(staged, 'index.html'), 'utf8')).toBe(FAKE_INDEX_HTML);
    expect(readFileSync(join(staged, 'assets', 'app.js'), 'utf8')).toBe(FAKE_APP_JS);
  });

  it('cannot be built without the build module: synthesis stops, naming it', () => {
    expect(() => buildConsoleSync(join(REPOSITORY_ROOT, 'test', 'infra', 'fixtures', 'missing.ts'))).toThrow(
      /missing\.ts is missing/,
    );
  });
});

describe('viewer-request function', () => {
  type Request = { uri: string; querystring?: Record<string, unknown> };
  const handler = new Function(`${CONSOLE_VIEWER_REQUEST_CODE}\nreturn handler;`)() as (event: {
    request: Request;
  }) => Request | { statusCode: number; headers: { location: { value: string } } };
  const run = (uri: string) => handler({ request: { uri, querystring: {} } });

  it('redirects / and /console to /console/, so relative URLs resolve under it', () => {
    for (const uri of ['/', '/console']) {
      expect(run(uri)).toMatchObject({ statusCode: 302, headers: { location: { value: '/console/' } } });
    }
  });

  it('serves /console/ from its index.html and leaves every other path as it is', () => {
    expect(run('/console/')).toMatchObject({ uri: '/console/index.html' });
    for (const uri of ['/console/index.html', '/console/config.json', '/console/assets/app-1a2b.js', '/other']) {
      expect(run(uri)).toMatchObject({ uri });
    }
  });
});
