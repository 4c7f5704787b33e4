/**
 * The local stack's processes (lib/dev/local/api-process.ts, workflow-process.ts): every server they hold listens
 * on loopback only; a child that dies while the stack runs is reported (LocalStack.broken), never left as a
 * stack that silently stops answering; `npm start` refuses a PORT that is not a port number.
 * Owns its stack: it reads the sockets of the processes it started, then kills one of them.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';
import { isLoopback, listenersOf, processTree } from '../support/process-sockets.js';
import { callApi, startTestStack } from '../support/test-stack.js';
import type { LocalStack } from '../support/test-stack.js';

let stack: LocalStack | undefined;

beforeAll(async () => {
  stack = await startTestStack();
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

it('binds every server of the local stack to loopback, and nothing else', () => {
  const live = stack!;
  const listeners = listenersOf(processTree(process.pid));
  const expectedPorts = [
    live.baseUrl,
    live.endpoints.dynamodb,
    live.endpoints.s3,
    live.endpoints.sfn,
    live.console.cognito.endpoint,
    ...Object.values(live.endpoints.upstreams).map((upstream) => upstream.baseUrl),
  ].map((url) => Number(new URL(url).port));
  const heldPorts = new Set(listeners.map((listener) => listener.port));
  // The check below means something only if it sees the stack's servers.
  expect(expectedPorts.filter((port) => !heldPorts.has(port))).toEqual([]);
  expect(listeners.filter((listener) => !isLoopback(listener.address))).toEqual([]);
});

it('reports the API process dying, and stops cleanly after', async () => {
  const live = stack!;
  expect((await callApi(live, 'GET', '/api/v1/models', { key: live.demo.apiKey })).status).toBe(200);
  let reported: string | undefined;
  void live.broken.then((reason) => (reported = reason));

  process.kill(live.api.pid, 'SIGKILL');

  // However long the report takes on a busy machine, the test's own deadline is the only limit.
  const reason = await live.broken;
  expect(reason).toBe('the API process exited unexpectedly (SIGKILL)');
  expect(reported).toBe(reason);
  await expect(fetch(`${live.baseUrl}/api/v1/models`)).rejects.toThrow();
  await live.stop();
  stack = undefined;
}, 180_000);

it('refuses a PORT that is not a port number, with the usage, before starting anything', async () => {
  const run = promisify(execFile)(
    `${REPOSITORY_ROOT}/node_modules/.bin/tsx`,
    ['--disable-warning=ExperimentalWarning', 'bin/local.ts', '--memory'],
    { cwd: REPOSITORY_ROOT, env: { ...process.env, PORT: 'abc' }, timeout: 170_000 },
  );
  await expect(run).rejects.toMatchObject({
    code: 2,
    stderr: expect.stringContaining('PORT must be a port number (0 to 65535; 0 picks a free one), not "abc"'),
  });
}, 180_000);
