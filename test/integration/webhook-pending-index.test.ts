/**
 * The webhook's state on DynamoDB Local: each try is recorded once however many messages race for it,
 * the pending-webhooks index holds a task from submit until its webhook is settled, and the requeuer finds
 * through it (every shard) the final tasks whose webhook is overdue, claiming each once.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoDbPendingWebhooks, DynamoDbWebhookAttemptLog } from '../../functions/adapters/dynamodb/webhooks.js';
import type { PendingWebhookEntry, WebhookQueue } from '../../functions/core/ports/webhooks.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { requeueWebhooks } from '../../functions/core/use-cases/requeue-webhooks.js';
import type { WebhookMessage } from '../../functions/core/webhook.js';
import { pendingWebhookKeys } from '../../functions/core/webhook.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { taskRecordFor } from '../support/task-records.js';

const local = useDynamoDbLocal('webhooks');
const owner = { accountId: 'acct-webhooks', keyHash: 'hash' };
/** An ISO time `minutes` before now. */
const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

/** Stores a task that asked for a webhook, as submit writes it (with its pending-index keys). */
async function put(status: TaskRecord['status'], fields: Partial<TaskRecord> = {}): Promise<TaskRecord> {
  const taskId = randomUUID();
  const task = taskRecordFor(owner, {
    task_id: taskId,
    status,
    created_at: ago(30),
    updated_at: ago(20),
    ...pendingWebhookKeys(taskId, ago(30)),
    ...fields,
    generation: { webhookUrl: 'https://hooks.example.com/video' },
  });
  await local.db.send(new PutCommand({ TableName: local.names.tables.tasks, Item: task }));
  return task;
}

async function stored(taskId: string): Promise<TaskRecord> {
  const { Item } = await local.db.send(
    new GetCommand({ TableName: local.names.tables.tasks, Key: { task_id: taskId }, ConsistentRead: true }),
  );
  return Item as TaskRecord;
}

const attempt = (state: 'retrying' | 'delivered' | 'failed', nextTryAt?: string) => ({
  state,
  at: new Date().toISOString(),
  statusCode: state === 'delivered' ? 200 : 500,
  error: null,
  ...(nextTryAt && { nextTryAt }),
});

async function overdue(pending: DynamoDbPendingWebhooks, before: string): Promise<PendingWebhookEntry[]> {
  const found: PendingWebhookEntry[] = [];
  for await (const entry of pending.findOverdue(before)) found.push(entry);
  return found;
}

describe('the attempt log', () => {
  it('records each try once: of messages racing with the same count, one write wins', async () => {
    const log = new DynamoDbWebhookAttemptLog(local.db, local.names.tables.tasks);
    const task = await put('success');
    const nextTryAt = new Date(Date.now() + 5_000).toISOString();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => log.record(task.task_id, 0, attempt('retrying', nextTryAt))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    // Still owed, due at the next try.
    expect(await stored(task.task_id)).toMatchObject({
      webhook_state: 'retrying',
      webhook_attempts: 1,
      webhook_pending: task.webhook_pending,
      webhook_due_at: nextTryAt,
    });

    expect(await log.record(task.task_id, 0, attempt('delivered'))).toBe(false);
    expect(await log.record(task.task_id, 1, attempt('delivered'))).toBe(true);
    const delivered = await stored(task.task_id);
    expect(delivered).toMatchObject({ webhook_state: 'delivered', webhook_attempts: 2 });
    expect(delivered).not.toHaveProperty('webhook_pending');
    expect(delivered).not.toHaveProperty('webhook_due_at');
    // A straggler never turns a delivered event back.
    expect(await log.record(task.task_id, 2, attempt('failed'))).toBe(false);
    expect(await log.record(randomUUID(), 0, attempt('failed'))).toBe(false);
  });

  it('a failed event leaves the index too', async () => {
    const log = new DynamoDbWebhookAttemptLog(local.db, local.names.tables.tasks);
    const task = await put('failed', { webhook_attempts: 3, webhook_state: 'retrying' });
    expect(await log.record(task.task_id, 3, attempt('failed'))).toBe(true);
    expect(await stored(task.task_id)).not.toHaveProperty('webhook_pending');
  });
});

describe('the pending-webhooks index', () => {
  it('finds, across every shard, the final tasks whose webhook is overdue, refunded ones included', async () => {
    const pending = new DynamoDbPendingWebhooks(local.db, local.names.tables.tasks);
    const finals = await Promise.all(Array.from({ length: 40 }, () => put('success')));
    const failed = await put('failed');
    const refunded = await put('refunded');
    const notYet = [
      await put('running'),
      await put('success', { updated_at: ago(1) }),
      await put('success', { webhook_state: 'retrying', webhook_attempts: 2, webhook_due_at: ago(1) }),
      await put('success', { webhook_pending: undefined, webhook_due_at: undefined }),
    ];
    const found = await overdue(pending, ago(5));
    const ids = new Set(found.map((entry) => entry.task_id));
    for (const task of [...finals, failed, refunded]) expect(ids.has(task.task_id)).toBe(true);
    for (const task of notYet) expect(ids.has(task.task_id)).toBe(false);
    expect(new Set(finals.map((task) => task.webhook_pending)).size).toBeGreaterThan(8);
    // Only what the index projects in AWS (DynamoDB Local projects everything).
    expect(found.find((entry) => entry.task_id === failed.task_id)).toEqual({
      task_id: failed.task_id,
      status: 'failed',
      webhook_due_at: failed.webhook_due_at,
    });
  });

  it('a claim is won once; forgetting leaves the task, out of the index', async () => {
    const pending = new DynamoDbPendingWebhooks(local.db, local.names.tables.tasks);
    const task = await put('success');
    const now = new Date().toISOString();
    const claims = await Promise.all([
      pending.claim(task.task_id, task.webhook_due_at!, now),
      pending.claim(task.task_id, task.webhook_due_at!, now),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(claims.find(Boolean)).toMatchObject({ task_id: task.task_id, webhook_due_at: now, status: 'success' });

    await pending.forget(task.task_id);
    expect(await stored(task.task_id)).toMatchObject({ task_id: task.task_id, status: 'success' });
    expect(await stored(task.task_id)).not.toHaveProperty('webhook_pending');
    expect(await pending.claim(task.task_id, now, new Date().toISOString())).toBeUndefined();
    await pending.forget(randomUUID());
  });

  it('the requeuer sends one message per overdue webhook, with its try count, and none on the next run', async () => {
    const pending = new DynamoDbPendingWebhooks(local.db, local.names.tables.tasks);
    const sent: WebhookMessage[] = [];
    const queue: WebhookQueue = {
      send: async (message) => void sent.push(message),
      park: async () => undefined,
    };
    const lost = await put('success', { webhook_state: 'retrying', webhook_attempts: 2, webhook_due_at: ago(10) });
    const deps = { pending, queue, now: () => new Date() };
    await requeueWebhooks(deps, 5 * 60_000);
    expect(sent.filter((message) => message.task_id === lost.task_id)).toEqual([
      { task_id: lost.task_id, event: 'task.success', attempts: 2 },
    ]);
    sent.length = 0;
    await requeueWebhooks(deps, 5 * 60_000);
    expect(sent.filter((message) => message.task_id === lost.task_id)).toEqual([]);
  });
});
