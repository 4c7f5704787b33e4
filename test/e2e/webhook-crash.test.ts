/**
 * Kill -9 the whole local stack (its SQS lives in memory) while webhooks are owed; start it again on the
 * same data: each is delivered once the stack is back, with its one webhook-id, and the task records
 * the tries exactly. Owed are: a try hanging at the kill, a final task whose webhook was never queued (a
 * crash between CompleteTask's move to success and its send) and a retry whose message was lost.
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
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { hashApiKey } from '../../functions/core/api-key.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { pendingWebhookKeys, webhookMessageId } from '../../functions/core/webhook.js';
import { freePort } from '../../lib/local/free-port.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/local-aws.js';
import { taskRecordFor } from '../support/task-records.js';
import { callApi, pollUntil } from '../support/test-stack.js';

const DEMO_KEY = `bc_${randomUUID().replaceAll('-', '')}`;
const dataDir = mkdtempSync(join(tmpdir(), 'vgs-webhook-crash-'));
let child: ChildProcess | undefined;
let receiver: Server | undefined;

interface WebhookView {
  state: string;
  attempts: number;
}

afterAll(async () => {
  await stopService(child);
  receiver?.closeAllConnections();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(null)));
  rmSync(dataDir, { recursive: true, force: true });
});

it('every webhook owed at a kill -9 is delivered after the restart, once per try, with its webhook-id', async () => {
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
  const submitted = await callApi<{ task_id: string }>(api, 'POST', '/api/v1/video/generate', {
    key: DEMO_KEY,
    body: {
      model: 'seedance-1.0-lite-i2v',
      prompt: 'hangs at the kill',
      duration: 5,
      webhook_url: hookUrl,
      image_urls: ['https://93.184.215.14/boat.png'],
    },
  });
  const live = submitted.body.data.task_id;

  // Two tasks as a crash would leave them, written straight to the table: final, webhook owed, no message.
  const runtime = JSON.parse(readFileSync(join(dataDir, 'local-stack.json'), 'utf8'));
  const client = new DynamoDBClient({
    endpoint: runtime.endpoints.dynamodb,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
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
  const db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  for (const task of [neverQueued, lostRetry]) {
    await db.send(new PutCommand({ TableName: runtime.names.tables.tasks, Item: task }));
  }
  client.destroy();

  // The kill lands while the live task's first try hangs: its message is in flight in the in-memory queue.
  await pollUntil(
    async () => received.filter((request) => request.taskId === live).length,
    (count) => count === 1,
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  killGroup(child, 'SIGKILL');
  await new Promise((resolve) => (child?.exitCode === null ? child.once('exit', resolve) : resolve(null)));

  const port2 = await freePort();
  const api2 = { baseUrl: `http://127.0.0.1:${port2}` };
  child = await startService({ port: port2, dataDir, demoKey: DEMO_KEY });
  const webhookOf = async (taskId: string) =>
    (await callApi<{ webhook: WebhookView }>(api2, 'GET', `/api/v1/video/tasks/${taskId}`, { key: DEMO_KEY })).body.data
      .webhook;
  const views = await Promise.all(
    [live, neverQueued.task_id, lostRetry.task_id].map((taskId) =>
      pollUntil(
        () => webhookOf(taskId),
        (view) => view.state === 'delivered',
        { timeoutMs: 60_000, intervalMs: 250 },
      ),
    ),
  );
  // The hung try was never recorded (the kill came first): one try for it, as for the never-queued one; the
  // lost retry carries on from its two.
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
}, 400_000);
