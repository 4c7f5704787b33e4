/**
 * The local stack's child processes (lib/local/api-process.ts, workflow-process.ts): a child that dies while
 * the stack runs is reported (LocalStack.broken), never left as a stack that silently stops answering; and
 * `npm start` refuses a PORT that is not a port number before starting anything.
 * Owns its stack: it kills the stack's children.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../lib/repository-root.js';
import { callApi, startTestStack } from '../support/test-stack.js';
import type { LocalStack } from '../support/test-stack.js';

let stack: LocalStack | undefined;

beforeAll(async () => {
  stack = await startTestStack();
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

it('reports the API process dying, and stops cleanly after', async () => {
  const live = stack!;
  expect((await callApi(live, 'GET', '/api/v1/models', { key: live.demo.apiKey })).status).toBe(200);
  let reported: string | undefined;
  void live.broken.then((reason) => (reported = reason));

  process.kill(live.api.pid, 'SIGKILL');

  const reason = await Promise.race([
    live.broken,
    new Promise<string>((_, reject) => setTimeout(() => reject(new Error('not reported within 10 s')), 10_000)),
  ]);
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
    { cwd: REPOSITORY_ROOT, env: { ...process.env, PORT: 'abc' }, timeout: 30_000 },
  );
  await expect(run).rejects.toMatchObject({
    code: 2,
    stderr: expect.stringContaining('PORT must be a port number (0 to 65535; 0 picks a free one), not "abc"'),
  });
}, 180_000);
