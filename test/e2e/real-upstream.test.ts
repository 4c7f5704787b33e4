/**
 * `npm start` against a real upstream (docs/providers/ark.md): with ARK_API_KEY it starts no simulator and sends jobs
 * to ARK_BASE_URL (here a second simulator playing the real Ark, with its own key); a provider without its key
 * (Model Studio here) gets its own simulator. Run as the bin/local.ts process: only there is the switch read from the environment, and the
 * shell's own ARK_* variables are removed first, so this never reaches a developer's real account.
 * Owns its stack: `npm start` with its own ARK_* variables is what it tests.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startUpstreamSimulator } from '../../lib/dev/simulators/ark/simulator.js';
import type { UpstreamSimulator } from '../../lib/dev/simulators/ark/simulator.js';
import { withoutUpstreamVariables } from '../../lib/dev/local/upstream-environment.js';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';
import { stopService } from '../support/service-process.js';
import { callApi, pollUntil } from '../support/test-stack.js';

const REAL_KEY = `real-ark-${randomUUID()}`;
const DEMO_KEY = `bc_${randomUUID().replaceAll('-', '')}`;
const dataDir = mkdtempSync(join(tmpdir(), 'vgs-real-upstream-'));
let realArk: UpstreamSimulator;
let child: ChildProcess | undefined;

beforeAll(async () => {
  realArk = await startUpstreamSimulator({ apiKey: REAL_KEY, queuedMs: 150, runningMs: 300 });
});
afterEach(async () => {
  await stopService(child);
  child = undefined;
});
afterAll(async () => {
  await realArk?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** `npm start -- --memory` with `upstream` as its only ARK_* variables; resolves once it is up. */
async function npmStart(upstream: Record<string, string>) {
  const started = spawn(
    join(REPOSITORY_ROOT, 'node_modules/.bin/tsx'),
    ['--disable-warning=ExperimentalWarning', 'bin/local.ts', '--memory'],
    {
      cwd: REPOSITORY_ROOT,
      env: {
        ...withoutUpstreamVariables(process.env),
        ...upstream,
        DATA_DIR: dataDir,
        PORT: '0',
        DEMO_API_KEY: DEMO_KEY,
        POWERTOOLS_LOG_LEVEL: 'ERROR',
      },
      detached: true, // its own process group, so stopService's Ctrl-C takes DynamoDB Local's JVM too
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child = started;
  let output = '';
  started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  started.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = await pollUntil(
    async () => (started.exitCode === null ? /Base URL\s+(\S+)/.exec(output)?.[1] : `exited: ${output}`),
    (found) => found !== undefined,
    { timeoutMs: 180_000, intervalMs: 200 },
  );
  if (!baseUrl?.startsWith('http')) throw new Error(`npm start did not come up:\n${output}`);
  return { baseUrl, output: () => output };
}

/** Submits a task as the demo account and waits for it to finish. */
async function runTask(baseUrl: string, model: string, prompt: string) {
  const api = { baseUrl };
  const submitted = await callApi<{ task_id: string }>(api, 'POST', '/api/v1/video/generate', {
    key: DEMO_KEY,
    body: { model, prompt, duration: 5 },
  });
  expect(submitted.status).toBe(200);
  const done = await pollUntil(
    () =>
      callApi<{ status: string }>(api, 'GET', `/api/v1/video/tasks/${submitted.body.data.task_id}`, { key: DEMO_KEY }),
    (response) => ['success', 'failed'].includes(response.body.data.status),
    { timeoutMs: 120_000, intervalMs: 250 },
  );
  return done.body.data;
}

it('a provider with its key goes to the real upstream, one without it to its simulator, each said', async () => {
  // Ark with a key (the second simulator plays the real one); Model Studio without, on its other platform.
  const { baseUrl, output } = await npmStart({
    ARK_API_KEY: REAL_KEY,
    ARK_BASE_URL: realArk.baseUrl,
    DASHSCOPE_BASE_URL: 'https://dashscope.invalid',
    DASHSCOPE_PLATFORM: 'beijing',
  });
  expect(output()).toContain(`upstream ark: real Ark (byteplus, ${realArk.baseUrl})`);
  expect(output()).not.toContain('upstream ark: simulator');
  expect(output()).toMatch(/upstream model-studio: simulator \(beijing\) at http:\/\/127\.0\.0\.1:\d+/);
  expect(output()).toContain('DASHSCOPE_BASE_URL is ignored without DASHSCOPE_API_KEY: model-studio is simulated');

  expect(await runTask(baseUrl, 'seedance-1.5-pro', 'a fox on the real upstream')).toMatchObject({ status: 'success' });
  expect(realArk.jobs().filter((job) => job.prompt === 'a fox on the real upstream')).toHaveLength(1);
  // Playing Beijing, the simulator knows only that platform's keys and models: the handlers were told it too.
  expect(await runTask(baseUrl, 'wan2.7-t2v', 'a fox on the simulator')).toMatchObject({ status: 'success' });
  expect(realArk.jobs().filter((job) => job.prompt === 'a fox on the simulator')).toEqual([]);
  expect(output()).not.toContain(REAL_KEY);
}, 300_000);

it('refuses an ARK_PLATFORM it does not know, naming the variable, before starting anything', async () => {
  const run = spawn(
    join(REPOSITORY_ROOT, 'node_modules/.bin/tsx'),
    ['--disable-warning=ExperimentalWarning', 'bin/local.ts', '--memory'],
    {
      cwd: REPOSITORY_ROOT,
      env: { ...withoutUpstreamVariables(process.env), ARK_PLATFORM: 'nope', ARK_API_KEY: REAL_KEY, DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  run.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise((resolve) => run.once('exit', resolve));
  expect(code).toBe(2);
  expect(stderr).toContain('environment variable ARK_PLATFORM: must be one of byteplus, volcengine (got "nope")');
  expect(stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  expect(stderr).not.toContain(REAL_KEY);
}, 60_000);
