/**
 * The local gateway's JWT authorizer, as API Gateway's for an HTTP API: a route flagged `auth: 'jwt'` runs its
 * handler only with a token of the issuer, signed by a key of its JWKS, unexpired, for the audience (`aud`, or
 * `client_id` when there is none); anything else is API Gateway's own `401 {"message":"Unauthorized"}`. The
 * handler then finds the claims, all strings, in `requestContext.authorizer.jwt`. Tokens here are signed with
 * a key of the test's own, whose JWKS a small HTTP server publishes (the local Cognito's is HTTP too).
 * Also: PATCH routes, and the console's files under /console.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startApiGatewayServer } from '../../lib/dev/local/api-gateway-server.js';
import { apiGatewayClaims } from '../../lib/dev/local/jwt-authorizer.js';
import type { HttpHandler } from '../../lib/dev/local/api-gateway-server.js';
import { lambdaContext } from '../../lib/dev/local/lambda-context.js';

const CLIENT_ID = 'console-client';
const KID = 'test-key';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const otherKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });

function base64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

function jwt(payload: Record<string, unknown>, options: { key?: KeyObject; kid?: string; alg?: string } = {}) {
  const header = { alg: options.alg ?? 'RS256', typ: 'JWT', kid: options.kid ?? KID };
  const input = `${base64url(header)}.${base64url(payload)}`;
  return `${input}.${sign('RSA-SHA256', Buffer.from(input), options.key ?? keys.privateKey).toString('base64url')}`;
}

let jwks: Server;
let issuer: string;
let gateway: { url: string; close(): Promise<void> };
let consoleDir: string;
const seen: APIGatewayProxyEventV2[] = [];

const handler: HttpHandler = async (event) => {
  seen.push(event);
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
};

function accessToken(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    sub: '5f0c1a2b-aaaa-bbbb-cccc-0123456789ab',
    iss: issuer,
    client_id: CLIENT_ID,
    origin_jti: 'o-1',
    event_id: 'e-1',
    token_use: 'access',
    scope: 'aws.cognito.signin.user.admin',
    auth_time: now,
    exp: now + 3600,
    iat: now,
    jti: 'j-1',
    username: '5f0c1a2b-aaaa-bbbb-cccc-0123456789ab',
    ...overrides,
  };
}

beforeAll(async () => {
  const publicJwk = { ...keys.publicKey.export({ format: 'jwk' }), kid: KID, alg: 'RS256', use: 'sig' };
  jwks = createServer((req, res) => {
    if (req.url === '/pool_1/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [publicJwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/pool_1`;

  consoleDir = mkdtempSync(join(tmpdir(), 'console-dist-'));
  mkdirSync(join(consoleDir, 'assets'));
  writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(consoleDir, 'assets', 'index-Ab12Cd34.js'), 'console.log(1)');
  writeFileSync(join(consoleDir, 'assets', 'index-Ef56Gh78.css'), 'body{}');
  writeFileSync(join(consoleDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(tmpdir(), 'outside-console.txt'), 'secret');

  gateway = await startApiGatewayServer({
    routes: [
      { id: 'Account', method: 'GET', path: '/api/v1/console/account', auth: 'jwt', handler },
      { id: 'UpdateKey', method: 'PATCH', path: '/api/v1/console/keys/{id}', auth: 'jwt', handler },
      { id: 'Models', method: 'GET', path: '/api/v1/models', handler },
    ],
    defaultRoute: {
      id: 'Default',
      handler: async () => ({ statusCode: 404, body: '{"code":404,"message":"no such endpoint","data":null}' }),
    },
    contextFor: (id) => lambdaContext(id),
    port: 0,
    jwtAuthorizer: { issuer, audience: [CLIENT_ID] },
    console: {
      config: {
        cognito: { endpoint: 'http://127.0.0.1:9/', region: 'us-east-1', userPoolId: 'pool_1', clientId: CLIENT_ID },
        apiBase: '',
      },
      directory: async () => consoleDir,
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await new Promise((resolve) => jwks?.close(resolve));
  rmSync(consoleDir, { recursive: true, force: true });
  rmSync(join(tmpdir(), 'outside-console.txt'), { force: true });
});

beforeEach(() => {
  seen.length = 0;
});

async function get(path: string, authorization?: string) {
  const response = await fetch(`${gateway.url}${path}`, {
    headers: authorization === undefined ? {} : { authorization },
    redirect: 'manual',
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('the JWT authorizer of a route flagged auth: jwt', () => {
  const refused: [string, () => string | undefined][] = [
    ['no Authorization header', () => undefined],
    ['an empty Bearer', () => 'Bearer '],
    ['not a JWT', () => 'Bearer not-a-jwt'],
    ['a bc_ API key', () => 'Bearer bc_abcdefghijklmnopqrstuvwxyz012345'],
    ['another client (client_id)', () => `Bearer ${jwt(accessToken({ client_id: 'other-client' }))}`],
    ['another audience (aud)', () => `Bearer ${jwt(accessToken({ aud: 'other-client', client_id: undefined }))}`],
    ['an aud of another client, even with our client_id', () => `Bearer ${jwt(accessToken({ aud: 'other' }))}`],
    ['another issuer', () => `Bearer ${jwt(accessToken({ iss: 'http://127.0.0.1:1/pool_2' }))}`],
    ['expired', () => `Bearer ${jwt(accessToken({ exp: Math.floor(Date.now() / 1000) - 5 }))}`],
    ['not yet valid (nbf)', () => `Bearer ${jwt(accessToken({ nbf: Math.floor(Date.now() / 1000) + 600 }))}`],
    ['signed by another key', () => `Bearer ${jwt(accessToken(), { key: otherKeys.privateKey })}`],
    ['a kid the JWKS lacks', () => `Bearer ${jwt(accessToken(), { kid: 'unknown' })}`],
    [
      'a tampered payload',
      () => {
        const [header, , signature] = jwt(accessToken()).split('.');
        return `Bearer ${header}.${base64url(accessToken({ sub: 'someone-else' }))}.${signature}`;
      },
    ],
    ['alg none', () => `Bearer ${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(accessToken())}.`],
    [
      'HS256 signed with the public key as secret',
      () => {
        const input = `${base64url({ alg: 'HS256', typ: 'JWT', kid: KID })}.${base64url(accessToken())}`;
        const secret = keys.publicKey.export({ format: 'pem', type: 'spki' });
        const mac = createHmac('sha256', secret).update(input).digest('base64url');
        return `Bearer ${input}.${mac}`;
      },
    ],
  ];

  it.each(refused)('%s: API Gateway’s 401 {"message":"Unauthorized"}, and no handler runs', async (_, header) => {
    const response = await get('/api/v1/console/account', header());
    expect(response.status).toBe(401);
    expect(response.text).toBe('{"message":"Unauthorized"}');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen).toHaveLength(0);
  });

  it('a valid access token: the handler gets the claims, all strings, and scopes null (payload 2.0)', async () => {
    const token = accessToken({ 'cognito:groups': ['admins', 'ops'] });
    const response = await get('/api/v1/console/account', `Bearer ${jwt(token)}`);
    expect(response.status).toBe(200);
    expect(seen).toHaveLength(1);
    const authorizer = (seen[0]!.requestContext as { authorizer?: unknown }).authorizer;
    expect(authorizer).toEqual({
      jwt: {
        claims: {
          sub: token['sub'],
          iss: issuer,
          client_id: CLIENT_ID,
          origin_jti: 'o-1',
          event_id: 'e-1',
          token_use: 'access',
          scope: 'aws.cognito.signin.user.admin',
          auth_time: String(token['auth_time']),
          exp: String(token['exp']),
          iat: String(token['iat']),
          jti: 'j-1',
          username: token['username'],
          'cognito:groups': '[admins ops]',
        },
        scopes: null,
      },
    });
  });

  it('the token without "Bearer " is taken too (API Gateway’s identity source is the whole header)', async () => {
    expect((await get('/api/v1/console/account', jwt(accessToken()))).status).toBe(200);
  });

  it('an ID token, whose aud is the client, passes as it does in API Gateway', async () => {
    const idToken = accessToken({ token_use: 'id', aud: CLIENT_ID, client_id: undefined });
    expect((await get('/api/v1/console/account', `Bearer ${jwt(idToken)}`)).status).toBe(200);
  });

  it('a PATCH route with a body reaches its handler with the path parameter', async () => {
    const response = await fetch(`${gateway.url}/api/v1/console/keys/key_123`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${jwt(accessToken())}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'disabled' }),
    });
    expect(response.status).toBe(200);
    expect(seen[0]).toMatchObject({
      routeKey: 'PATCH /api/v1/console/keys/{id}',
      pathParameters: { id: 'key_123' },
      body: '{"status":"disabled"}',
      requestContext: { http: { method: 'PATCH' } },
    });
  });

  it('a route without the flag is not authorized here (its handler checks its bc_ key itself)', async () => {
    const response = await get('/api/v1/models', 'Bearer bc_whatever');
    expect(response.status).toBe(200);
    expect((seen[0]!.requestContext as { authorizer?: unknown }).authorizer).toBeUndefined();
  });
});

describe('required scopes (the console routes require the access tokens’ scope)', () => {
  it('a verified token without one of them: 403 Forbidden and no function runs; with one: its scopes in the event', async () => {
    const scoped = await startApiGatewayServer({
      routes: [{ id: 'Account', method: 'GET', path: '/api/v1/console/account', auth: 'jwt', handler }],
      defaultRoute: { id: 'Default', handler: async () => ({ statusCode: 404, body: '{}' }) },
      contextFor: (id) => lambdaContext(id),
      port: 0,
      jwtAuthorizer: { issuer, audience: [CLIENT_ID], scopes: ['aws.cognito.signin.user.admin'] },
    });
    try {
      const call = async (token: Record<string, unknown>) => {
        const response = await fetch(`${scoped.url}/api/v1/console/account`, {
          headers: { authorization: `Bearer ${jwt(token)}` },
        });
        return { status: response.status, body: await response.text() };
      };
      const idToken = accessToken({ token_use: 'id', aud: CLIENT_ID, client_id: undefined, scope: undefined });
      expect(await call(idToken)).toEqual({ status: 403, body: '{"message":"Forbidden"}' });
      expect(await call(accessToken({ scope: 'openid email' }))).toMatchObject({ status: 403 });
      expect(seen).toHaveLength(0);
      expect((await call(accessToken({ scope: 'openid aws.cognito.signin.user.admin' }))).status).toBe(200);
      const authorizer = (seen[0]!.requestContext as { authorizer?: { jwt: { scopes: unknown } } }).authorizer;
      expect(authorizer?.jwt.scopes).toEqual(['openid', 'aws.cognito.signin.user.admin']);
    } finally {
      await scoped.close();
    }
  });
});

describe('apiGatewayClaims', () => {
  it('turns every claim into a string as API Gateway does', () => {
    expect(
      apiGatewayClaims({
        sub: 'abc',
        exp: 1700000000,
        email_verified: true,
        'cognito:groups': ['a', 'b'],
        address: { country: 'CN' },
        empty: null,
      } as never),
    ).toEqual({
      sub: 'abc',
      exp: '1700000000',
      email_verified: 'true',
      'cognito:groups': '[a b]',
      address: '{"country":"CN"}',
    });
  });
});

describe('the console under /console', () => {
  it('/console redirects to /console/', async () => {
    const response = await get('/console?x=1');
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('/console/?x=1');
  });

  it('/console/ is index.html, revalidated each time', async () => {
    const response = await get('/console/');
    expect(response.status).toBe(200);
    expect(response.text).toBe('<!doctype html><title>console</title>');
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
  });

  it('config.json names the local Cognito, and the API on the same origin', async () => {
    const response = await get('/console/config.json');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(JSON.parse(response.text)).toEqual({
      cognito: { endpoint: 'http://127.0.0.1:9/', region: 'us-east-1', userPoolId: 'pool_1', clientId: CLIENT_ID },
      apiBase: '',
    });
  });

  it('hashed assets are immutable, with their content types; other files are revalidated', async () => {
    const script = await get('/console/assets/index-Ab12Cd34.js');
    expect(script.text).toBe('console.log(1)');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const style = await get('/console/assets/index-Ef56Gh78.css');
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const icon = await get('/console/favicon.svg');
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('cache-control')).toBe('no-cache');
  });

  it('a missing file is 404, and nothing outside the directory is served', async () => {
    expect((await get('/console/assets/missing-123.js')).status).toBe(404);
    expect((await get('/console/..%2Foutside-console.txt')).status).toBe(404);
    expect((await get('/console/%2e%2e/outside-console.txt')).status).toBe(404);
  });
});
