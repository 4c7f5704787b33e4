/**
 * Kill -9 the whole local stack while tasks are pending, running and transferring and webhooks are owed; start it
 * again on the same data: every task reaches a final state with exactly one upstream job, the balance is exact, no
 * upstream slot stays taken, a video URL given before serves the video, and each webhook owed (a try hanging at the
 * kill, a final task whose webhook was never queued, a retry whose message was lost) is delivered once per try with
 * its one webhook-id. The upstream (simulated) outlives the crash, as a real one would.
 * Owns its stack: it kills the whole stack and starts it again.
 */
import { killGroup, startService, stopService } from '../support/service-process.js';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { hashApiKey } from '../../functions/core/api-key.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { pendingWebhookKeys, webhookMessageId } from '../../functions/core/webhook.js';
import { AdminStore } from '../../lib/admin/admin-store.js';
import { freePort } from '../../lib/local/free-port.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/local-aws.js';
import { createUnstartedTask, taskRecordFor } from '../support/task-records.js';
import { askedAgainWhileBusy, callApi, pollUntil } from '../support/test-stack.js';
import { mediaUrl } from '../support/media-server.js';

/** A real image the simulator downloads (it fetches every reference, as the upstream does). */
const REFERENCE_IMAGE = await mediaUrl('png');

const FIXTURE = readFileSync(new URL('../../lib/local/fixtures/sample.mp4', import.meta.url));
const DEMO_KEY = `bc_${randomUUID().replaceAll('-', '')}`;
const HELD = `held-${randomUUID().slice(0, 8)}`;
const dataDir = mkdtempSync(join(tmpdir(), 'vgs-crash-'));
let child: ChildProcess | undefined;
let receiver: Server | undefined;

afterAll(async () => {
  await stopService(child);
  receiver?.closeAllConnections();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(null)));
  rmSync(dataDir, { recursive: true, force: true });
});

it('every task and webhook in flight at a kill -9 finishes after a restart, once, with the balance exact', async () => {
  // Answers 200, except that the first request it gets hangs (the try in hand at the kill).
  const received: { headers: IncomingHttpHeaders; taskId: string }[] = [];
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { task_id: string };
      received.push({ headers: req.headers, taskId: body.task_id });
      if (received.length > 1) res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  const port = await freePort();
  const api = { baseUrl: `http://127.0.0.1:${port}` };
  child = await startService({ port, dataDir, demoKey: DEMO_KEY });
  const submit = (prompt: string, webhookUrl?: string) =>
    askedAgainWhileBusy(() =>
      callApi<{ task_id: string }>(api, 'POST', '/api/v1/video/generate', {
        key: DEMO_KEY,
        body: {
          model: 'seedance-1.0-lite-i2v',
          prompt,
          duration: 5,
          image_urls: [REFERENCE_IMAGE],
          ...(webhookUrl && { webhook_url: webhookUrl }),
        },
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
  // Held upstream until the test releases them after the restart: still generating at the kill, however slow
  // the machine.
  const waveB = await Promise.all(Array.from({ length: 8 }, (_, i) => submit(`b${i} ${HELD} [simulate:held]`)));
  // A task charged but whose execution never started (the crash came between the two).
  const runtime = JSON.parse(readFileSync(join(dataDir, 'local-stack.json'), 'utf8'));
  const client = new DynamoDBClient({
    endpoint: runtime.endpoints.dynamodb,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const orphan = taskRecordFor({ accountId: 'demo', keyHash: hashApiKey(DEMO_KEY) });
  orphan.generation.prompt = 'orphan';
  orphan.generation.imageUrls = [REFERENCE_IMAGE];
  const db0 = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  await createUnstartedTask(db0, runtime.names.tables, orphan);
  // Two tasks as a crash would leave them, written straight to the table: final, webhook owed, no message.
  const owed = (fields: Partial<TaskRecord>) => {
    const task = taskRecordFor({ accountId: 'demo', keyHash: hashApiKey(DEMO_KEY) }, fields);
    task.generation.webhookUrl = hookUrl;
    Object.assign(task, pendingWebhookKeys(task.task_id, task.created_at));
    return task;
  };
  const neverQueued = owed({
    status: 'failed',
    error_message: 'generation failed: upstream said no',
    finished_at: new Date().toISOString(),
  });
  const lostRetry = owed({
    status: 'success',
    video_url: 'https://videos.example.com/lost.mp4',
    video_url_expires_at: new Date(Date.now() + 24 * 3600_000).toISOString(),
    finished_at: new Date().toISOString(),
    webhook_state: 'retrying',
    webhook_attempts: 2,
  });
  lostRetry.webhook_due_at = new Date(Date.now() - 60_000).toISOString();
  for (const task of [neverQueued, lostRetry]) {
    await db0.send(new PutCommand({ TableName: runtime.names.tables.tasks, Item: task }));
  }
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
  // Last, so the kill lands while its webhook's first try hangs (its message in flight in the in-memory queue).
  const live = (await submit('hangs at the kill', hookUrl)).body.data.task_id;
  ids.push(live);
  await pollUntil(
    async () => received.filter((request) => request.taskId === live).length,
    (count) => count === 1,
    { timeoutMs: 120_000, intervalMs: 100 },
  );

  killGroup(child, 'SIGKILL');
  await new Promise((resolve) => (child?.exitCode === null ? child.once('exit', resolve) : resolve(null)));
  await pollUntil(async () => existsSync(join(dataDir, 'dynamodb')), Boolean);

  const port2 = await freePort();
  const api2 = { baseUrl: `http://127.0.0.1:${port2}` };
  child = await startService({ port: port2, dataDir, demoKey: DEMO_KEY });
  const restarted = JSON.parse(readFileSync(join(dataDir, 'local-stack.json'), 'utf8'));
  const release = await fetch(
    `${restarted.endpoints.upstreams.ark.baseUrl}/simulator/release?prompt=${encodeURIComponent(HELD)}`,
    { method: 'POST' },
  );
  expect(await release.json()).toEqual({ released: waveB.length });
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
  // One upstream account per provider, each with nothing held.
  expect(slots.length).toBeGreaterThan(0);
  expect(slots).toEqual(slots.map(() => 0));

  // Every webhook owed at the kill is delivered. The hung try was never recorded (the kill came first): one try
  // for it, as for the never-queued one; the lost retry carries on from its two.
  const webhookOf = async (taskId: string) =>
    (
      await callApi<{ webhook: { state: string; attempts: number } }>(api2, 'GET', `/api/v1/video/tasks/${taskId}`, {
        key: DEMO_KEY,
      })
    ).body.data.webhook;
  const views = await Promise.all(
    [live, neverQueued.task_id, lostRetry.task_id].map((taskId) =>
      pollUntil(
        () => webhookOf(taskId),
        (view) => view.state === 'delivered',
        { timeoutMs: 120_000, intervalMs: 250 },
      ),
    ),
  );
  expect(views.map((view) => view.attempts)).toEqual([1, 1, 3]);
  const requestsOf = (taskId: string) => received.filter((request) => request.taskId === taskId);
  expect(requestsOf(live)).toHaveLength(2);
  expect(new Set(requestsOf(live).map((request) => request.headers['webhook-id']))).toEqual(
    new Set([webhookMessageId(live, 'task.success')]),
  );
  expect(requestsOf(neverQueued.task_id).map((request) => request.headers['webhook-id'])).toEqual([
    webhookMessageId(neverQueued.task_id, 'task.failed'),
  ]);
  expect(requestsOf(lostRetry.task_id).map((request) => request.headers['webhook-id'])).toEqual([
    webhookMessageId(lostRetry.task_id, 'task.success'),
  ]);
}, 600_000);
