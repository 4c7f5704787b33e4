/**
 * The local access log (`npm start`) prints each request's path, but never an upstream callback's secret: in AWS
 * the access log holds the route key (lib/ship/cdk/api.ts), so locally the `{secret}` segment is redacted.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loggedPath, REDACTED } from '../../lib/dev/local/access-log-path.js';
import { startApiGatewayServer } from '../../lib/dev/local/api-gateway-server.js';
import type { HttpHandler } from '../../lib/dev/local/api-gateway-server.js';
import { lambdaContext } from '../../lib/dev/local/lambda-context.js';
import { API_ROUTES } from '../../lib/ship/routes.js';

const TASK = '7a0c1a8e-1f0b-4a51-9d86-6b8f5f0c2d11';
const SECRET = 'cb_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const CALLBACK = `/api/v1/upstream-callbacks/${TASK}/${SECRET}`;

const lines: string[] = [];
let gateway: { url: string; close(): Promise<void> };

const handler: HttpHandler = async () => ({ statusCode: 204 });

beforeAll(async () => {
  gateway = await startApiGatewayServer({
    routes: [
      { id: 'UpstreamCallback', method: 'POST', path: '/api/v1/upstream-callbacks/{id}/{secret}', handler },
      { id: 'GetTask', method: 'GET', path: '/api/v1/video/tasks/{id}', handler },
    ],
    defaultRoute: { id: 'NotFound', handler },
    contextFor: (id) => lambdaContext(id),
    port: 0,
    accessLog: (line) => lines.push(line),
  });
});

afterAll(() => gateway.close());

it('the catalog has a callback route with a {secret} segment, the one redacted', () => {
  expect(API_ROUTES.some((route) => route.path.endsWith('/{secret}'))).toBe(true);
  expect(loggedPath(CALLBACK, API_ROUTES)).toBe(`/api/v1/upstream-callbacks/${TASK}/${REDACTED}`);
});

it('leaves every other path as sent, a secret-looking one that matches no such route included', () => {
  expect(loggedPath(`/api/v1/video/tasks/${TASK}`, API_ROUTES)).toBe(`/api/v1/video/tasks/${TASK}`);
  expect(loggedPath(`/api/v1/upstream-callbacks/${TASK}`, API_ROUTES)).toBe(`/api/v1/upstream-callbacks/${TASK}`);
  expect(loggedPath('/nowhere', API_ROUTES)).toBe('/nowhere');
});

it('prints the callback path without its secret, whatever the method, and other paths in full', async () => {
  lines.length = 0;
  await fetch(`${gateway.url}${CALLBACK}?x=1`, { method: 'POST', body: '{}' });
  await fetch(`${gateway.url}${CALLBACK}`); // no GET route: the default route, still redacted
  await fetch(`${gateway.url}/api/v1/video/tasks/${TASK}`);
  expect(lines).toHaveLength(3);
  expect(lines.join('\n')).not.toContain(SECRET);
  expect(lines[0]).toContain(`POST /api/v1/upstream-callbacks/${TASK}/[redacted] → 204`);
  expect(lines[1]).toContain(`GET /api/v1/upstream-callbacks/${TASK}/[redacted]`);
  expect(lines[2]).toContain(`GET /api/v1/video/tasks/${TASK} → 204`);
});
