/**
 * Two queue messages for one webhook (SQS delivers at least once; a requeued copy beside the execution's own)
 * on DynamoDB Local, the real adapters and a receiver on 127.0.0.1: one POST. The try's claim on the task
 * holds the second message off while the first one's POST is in hand; it then finds the event delivered.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { DynamoDbTaskRepository } from '../../functions/adapters/dynamodb/task-repository.js';
import { DynamoDbWebhookAttemptLog, DynamoDbWebhookSecrets } from '../../functions/adapters/dynamodb/webhooks.js';
import { HttpWebhookSender } from '../../functions/adapters/outbound/webhook-sender.js';
import { deliverWebhook } from '../../functions/core/use-cases/deliver-webhook.js';
import type { DeliveryDecision } from '../../functions/core/use-cases/deliver-webhook.js';
import { pendingWebhookKeys } from '../../functions/core/webhook.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { taskRecordFor } from '../support/task-records.js';
import { pollUntil } from '../support/test-stack.js';
import { CountingSigner, MemoryWebhookDeliveries } from '../unit/webhook-support.js';

const local = useDynamoDbLocal('webhook-claim');
const owner = { accountId: 'acct-claim', keyHash: 'hash' };

/** Every request it gets: the first answered when the test says so, any other at once with 200. */
const received: { taskId: string; respond: (status: number) => void }[] = [];
const receiver = createServer((req, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { task_id: string };
    received.push({ taskId: body.task_id, respond: (status) => res.writeHead(status).end() });
    if (received.length > 1) res.writeHead(200).end();
  });
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

it('two messages for one try of a webhook make one POST; the second finds the event delivered', async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const { tables } = local.names;
  await local.db.send(
    new PutCommand({ TableName: tables.accounts, Item: { account_id: owner.accountId, balance_units: 0 } }),
  );
  const task = taskRecordFor(owner, {
    status: 'success',
    video_url: 'https://videos.example.com/v.mp4',
    video_url_expires_at: new Date(Date.now() + 24 * 3600_000).toISOString(),
    finished_at: new Date().toISOString(),
  });
  task.generation.webhookUrl = hookUrl;
  Object.assign(task, pendingWebhookKeys(task.task_id, task.created_at));
  await local.db.send(new PutCommand({ TableName: tables.tasks, Item: task }));

  const deps = {
    tasks: new DynamoDbTaskRepository(local.db, tables),
    secrets: new DynamoDbWebhookSecrets(local.db, tables.accounts),
    sender: new HttpWebhookSender({ policy: { allowLoopback: true } }),
    attempts: new DynamoDbWebhookAttemptLog(local.db, tables.tasks),
    deliveries: new MemoryWebhookDeliveries(),
    signer: new CountingSigner(),
    schedule: [5, 30],
    claimSeconds: 30,
    now: () => new Date(),
  };
  // What the execution queues (no try count) and what the requeuer queues (the task's count).
  const fromExecution = deliverWebhook({ task_id: task.task_id, event: 'task.success' }, deps);
  const first = await pollUntil(
    async () => received[0],
    (request) => request !== undefined,
    { timeoutMs: 120_000, intervalMs: 10 },
  );
  // The first POST is in hand (unanswered) while the second message is handled from start to end.
  const second = await deliverWebhook({ task_id: task.task_id, event: 'task.success', attempts: 0 }, deps);
  first!.respond(200);
  expect(second.action).toBe('wait');
  expect(await fromExecution).toMatchObject({ action: 'done', outcome: 'delivered' });

  // The second message back after its wait: nothing more to do.
  const later = await deliverWebhook((second as Extract<DeliveryDecision, { action: 'wait' }>).message, deps);
  expect(later).toMatchObject({ action: 'done', outcome: 'skipped' });
  expect(received.map((request) => request.taskId)).toEqual([task.task_id]);
  expect(await deps.tasks.get(task.task_id)).toMatchObject({ webhook_state: 'delivered', webhook_attempts: 1 });
});
