/**
 * Kill -9 the whole local stack while tasks are pending, running and transferring; start it again on
 * the same data: every task reaches a final state, each has exactly one upstream job, and the balance
 * is exact, no upstream slot stays taken, and a video URL given before serves the video. The upstream
 * (simulated) outlives the crash, as a real one would. Owns its stack: it kills the whole stack and starts it again.
 */
import { killGroup, startService, stopService } from '../support/service-process.js';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { hashApiKey } from '../../functions/core/api-key.js';
import { AdminStore } from '../../lib/admin/admin-store.js';
import { freePort } from '../../lib/local/free-port.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/local-aws.js';
import { createUnstartedTask, taskRecordFor } from '../support/task-records.js';
import { askedAgainWhileBusy, callApi, pollUntil } from '../support/test-stack.js';

const FIXTURE = readFileSync(new URL('../../lib/local/fixtures/sample.mp4', import.meta.url));
const DEMO_KEY = `bc_${randomUUID().replaceAll('-', '')}`;
const dataDir = mkdtempSync(join(tmpdir(), 'vgs-crash-'));
let child: ChildProcess | undefined;

afterAll(async () => {
  await stopService(child);
  rmSync(dataDir, { recursive: true, force: true });
});

it('every task in flight at a kill -9 finishes after a restart, once, with the balance exact', async () => {
  const port = await freePort();
  const api = { baseUrl: `http://127.0.0.1:${port}` };
  child = await startService({ port, dataDir, demoKey: DEMO_KEY });
  const submit = (prompt: string) =>
    askedAgainWhileBusy(() =>
      callApi<{ task_id: string }>(api, 'POST', '/api/v1/video/generate', {
        key: DEMO_KEY,
        body: { model: 'seedance-1.0-lite-i2v', prompt, duration: 5, image_urls: ['https://93.184.215.14/boat.png'] },
      }),
    );

  // Wave A reaches the upstream's end (succeeding, some about to transfer); wave B is mid-generation.
  const waveA = await Promise.all(
    Array.from({ length: 8 }, (_, i) => submit(`a${i}${i % 4 === 0 ? ' [simulate:fail]' : ''}`)),
  );
  const get = (baseUrl: string, id: string) =>
    callApi<{ status: string; video_url: string | null }>({ baseUrl }, 'GET', `/api/v1/video/tasks/${id}`, {
      key: DEMO_KEY,
    });
  await Promise.all(
    waveA.map((response) =>
      pollUntil(
        () => get(api.baseUrl, response.body.data.task_id),
        (answer) => !['pending', 'running'].includes(answer.body.data.status),
        { timeoutMs: 120_000, intervalMs: 100 },
      ),
    ),
  );
  const waveB = await Promise.all(Array.from({ length: 8 }, (_, i) => submit(`b${i}`)));
  // A task charged but whose execution never started (the crash came between the two).
  const runtime = JSON.parse(readFileSync(join(dataDir, 'local-stack.json'), 'utf8'));
  const client = new DynamoDBClient({
    endpoint: runtime.endpoints.dynamodb,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const orphan = taskRecordFor({ accountId: 'demo', keyHash: hashApiKey(DEMO_KEY) });
  orphan.generation.prompt = 'orphan';
  await createUnstartedTask(DynamoDBDocumentClient.from(client), runtime.names.tables, orphan);
  client.destroy();

  const ids = [...waveA, ...waveB].map((response) => response.body.data.task_id).concat(orphan.task_id);
  // The kill lands after wave B's upstream jobs are recorded (its tasks running).
  await Promise.all(
    waveB.map((response) =>
      pollUntil(
        () =>
          callApi<{ status: string }>(api, 'GET', `/api/v1/video/tasks/${response.body.data.task_id}`, {
            key: DEMO_KEY,
          }),
        (answer) => answer.body.data.status !== 'pending',
        { timeoutMs: 120_000, intervalMs: 100 },
      ),
    ),
  );
  const before = await Promise.all(
    ids.map((id) => callApi<{ status: string }>(api, 'GET', `/api/v1/video/tasks/${id}`, { key: DEMO_KEY })),
  );
  const statusesAtKill = before.map((response) => response.body.data.status);
  expect(statusesAtKill.filter((status) => !['success', 'failed'].includes(status)).length).toBeGreaterThan(0);
  // A video URL given out before the kill (it names the local S3's port, which the data directory keeps).
  const finishedBefore = await pollUntil(
    () => get(api.baseUrl, waveA[1]!.body.data.task_id),
    (answer) => answer.body.data.status === 'success',
    { timeoutMs: 120_000 },
  );
  const videoUrl = finishedBefore.body.data.video_url!;

  killGroup(child, 'SIGKILL');
  await new Promise((resolve) => (child?.exitCode === null ? child.once('exit', resolve) : resolve(null)));
  await pollUntil(async () => existsSync(join(dataDir, 'dynamodb')), Boolean);

  const port2 = await freePort();
  const api2 = { baseUrl: `http://127.0.0.1:${port2}` };
  child = await startService({ port: port2, dataDir, demoKey: DEMO_KEY });
  const finals = await Promise.all(
    ids.map((id) =>
      pollUntil(
        () => callApi<{ status: string }>(api2, 'GET', `/api/v1/video/tasks/${id}`, { key: DEMO_KEY }),
        (response) => ['success', 'failed', 'refunded'].includes(response.body.data.status),
        { timeoutMs: 180_000, intervalMs: 250 },
      ),
    ),
  );
  const statuses = finals.map((response) => response.body.data.status);
  // The URL given before the kill serves the same video after the restart.
  expect((await get(api2.baseUrl, waveA[1]!.body.data.task_id)).body.data.video_url).toBe(videoUrl);
  const video = await fetch(videoUrl);
  expect(video.status).toBe(200);
  expect(Buffer.from(await video.arrayBuffer()).equals(FIXTURE)).toBe(true);
  expect(statuses.filter((status) => status === 'failed')).toHaveLength(2); // a0 and a4
  const succeeded = statuses.filter((status) => status === 'success').length;
  expect(succeeded).toBe(ids.length - 2);

  const jobs = JSON.parse(readFileSync(join(dataDir, 'upstream-jobs.json'), 'utf8')) as { prompt: string }[];
  const perPrompt = new Map<string, number>();
  for (const job of jobs) perPrompt.set(job.prompt, (perPrompt.get(job.prompt) ?? 0) + 1);
  expect([...perPrompt.values()].every((count) => count === 1)).toBe(true);
  expect(perPrompt.size).toBe(ids.length);

  const balance = await callApi<{ balance: number }>(api2, 'GET', '/api/v1/account/balance', { key: DEMO_KEY });
  expect(balance.body.data.balance).toBe(100 - 3 * succeeded);

  // No upstream slot outlives the crash: every job is final, so every slot was given back (or repaired).
  const restarted = JSON.parse(readFileSync(join(dataDir, 'local-stack.json'), 'utf8'));
  const db = new DynamoDBClient({
    endpoint: restarted.endpoints.dynamodb,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const admin = new AdminStore(DynamoDBDocumentClient.from(db), restarted.names.tables);
  const slots = await pollUntil(
    async () => (await admin.upstreamAccounts()).accounts.map((account) => account.in_use),
    (inUse) => inUse.every((count) => count === 0),
    { timeoutMs: 60_000 },
  );
  db.destroy();
  expect(slots).toEqual([0]);
}, 300_000);
