/** Overdue webhooks of final tasks get a new message (functions/core/use-cases/requeue-webhooks.ts). */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PendingWebhookEntry, PendingWebhooks, WebhookQueue } from '../../../functions/core/ports/webhooks.js';
import type { TaskRecord } from '../../../functions/core/task.js';
import { requeueWebhooks } from '../../../functions/core/use-cases/requeue-webhooks.js';
import type { WebhookMessage } from '../../../functions/core/webhook.js';
import { pendingWebhookKeys } from '../../../functions/core/webhook.js';
import { webhookTask } from '../webhook-support.js';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const MIN_AGE_MS = 5 * 60_000;
/** An ISO time `minutes` before NOW. */
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();

/** The index and its claims as DynamoDbPendingWebhooks does them, over tasks in memory. */
class MemoryPendingWebhooks implements PendingWebhooks {
  readonly tasks = new Map<string, TaskRecord>();

  add(task: TaskRecord): TaskRecord {
    this.tasks.set(task.task_id, structuredClone(task));
    return task;
  }

  async *findOverdue(before: string): AsyncIterable<PendingWebhookEntry> {
    for (const task of this.tasks.values()) {
      const final = ['success', 'failed', 'refunded'].includes(task.status);
      if (task.webhook_pending && task.webhook_due_at! < before && final && task.updated_at < before) {
        yield { task_id: task.task_id, status: task.status, webhook_due_at: task.webhook_due_at! };
      }
    }
  }

  async claim(taskId: string, seenDueAt: string, nextDueAt: string): Promise<TaskRecord | undefined> {
    const task = this.tasks.get(taskId);
    if (!task?.webhook_pending || task.webhook_due_at !== seenDueAt) return undefined;
    task.webhook_due_at = nextDueAt;
    return structuredClone(task);
  }

  async forget(taskId: string): Promise<void> {
    const task = this.tasks.get(taskId);
    delete task?.webhook_pending;
    delete task?.webhook_due_at;
  }
}

class MemoryQueue implements WebhookQueue {
  readonly sent: { message: WebhookMessage; delaySeconds: number }[] = [];
  async send(message: WebhookMessage, delaySeconds: number): Promise<void> {
    this.sent.push({ message, delaySeconds });
  }
  async park(): Promise<void> {
    throw new Error('the requeuer parks nothing');
  }
}

/** A task submitted `minutes` ago with a webhook, in `status` since `finalMinutesAgo`. */
function owed(status: TaskRecord['status'], fields: Partial<TaskRecord> = {}, minutes = 30, finalMinutesAgo = 20) {
  const taskId = randomUUID();
  return webhookTask(status, {
    task_id: taskId,
    created_at: ago(minutes),
    updated_at: ago(finalMinutesAgo),
    ...pendingWebhookKeys(taskId, ago(minutes)),
    ...fields,
  });
}

function setup() {
  const pending = new MemoryPendingWebhooks();
  const queue = new MemoryQueue();
  const requeued: string[] = [];
  const deps = { pending, queue, now: () => NOW, onRequeue: (taskId: string) => requeued.push(taskId) };
  return { pending, queue, deps, requeued };
}

describe('requeueWebhooks', () => {
  it('sends a new message for a final task whose webhook nobody took (a crash before the queue step)', async () => {
    const { pending, queue, deps, requeued } = setup();
    const success = pending.add(owed('success'));
    const failed = pending.add(owed('failed'));

    expect(await requeueWebhooks(deps, MIN_AGE_MS)).toEqual({ checked: 2, requeued: 2, forgotten: 0 });
    expect(queue.sent).toEqual(
      expect.arrayContaining([
        { message: { task_id: success.task_id, event: 'task.success', attempts: 0 }, delaySeconds: 0 },
        { message: { task_id: failed.task_id, event: 'task.failed', attempts: 0 }, delaySeconds: 0 },
      ]),
    );
    expect(requeued.sort()).toEqual([success.task_id, failed.task_id].sort());
    // Claimed: due again only once overdue from now, so the next runs leave it to its message.
    expect(pending.tasks.get(success.task_id)?.webhook_due_at).toBe(NOW.toISOString());
    expect(await requeueWebhooks(deps, MIN_AGE_MS)).toMatchObject({ requeued: 0 });
  });

  it('carries the try count of a retrying webhook whose next try is overdue (its message lost)', async () => {
    const { pending, queue, deps } = setup();
    const task = pending.add(
      owed('success', { webhook_state: 'retrying', webhook_attempts: 3, webhook_due_at: ago(6) }),
    );
    await requeueWebhooks(deps, MIN_AGE_MS);
    expect(queue.sent).toEqual([
      { message: { task_id: task.task_id, event: 'task.success', attempts: 3 }, delaySeconds: 0 },
    ]);
  });

  it('leaves alone a try not overdue yet, a task just final, a task in flight', async () => {
    const { pending, queue, deps } = setup();
    pending.add(owed('success', { webhook_state: 'retrying', webhook_attempts: 3, webhook_due_at: ago(4) }));
    pending.add(owed('success', {}, 30, 1));
    pending.add(owed('running'));
    expect(await requeueWebhooks(deps, MIN_AGE_MS)).toEqual({ checked: 0, requeued: 0, forgotten: 0 });
    expect(queue.sent).toEqual([]);
  });

  it('the run at a local start takes at once what was owed before the start, nothing final since', async () => {
    const { pending, queue, deps } = setup();
    const startedAt = ago(1);
    // Final before the start: its message died with the old process's queue.
    const beforeStart = pending.add(owed('success', {}, 30, 2));
    // Ended after the start by its restarted execution, which queued its webhook: not overdue.
    pending.add(owed('success', {}, 30, 0.5));
    pending.add(owed('failed', { created_at: ago(0.5), ...pendingWebhookKeys(randomUUID(), ago(0.5)) }, 0.5, 0.2));
    expect(await requeueWebhooks(deps, 0, startedAt)).toEqual({ checked: 1, requeued: 1, forgotten: 0 });
    expect(queue.sent.map((sent) => sent.message.task_id)).toEqual([beforeStart.task_id]);
  });

  it('takes a refunded task (a cancel sends no webhook) out of the index, sending nothing', async () => {
    const { pending, queue, deps } = setup();
    const cancelled = pending.add(owed('refunded'));
    expect(await requeueWebhooks(deps, MIN_AGE_MS)).toEqual({ checked: 1, requeued: 0, forgotten: 1 });
    expect(queue.sent).toEqual([]);
    expect(pending.tasks.get(cancelled.task_id)).not.toHaveProperty('webhook_pending');
  });

  it('two requeuers at once send one message: the claim of the due time decides', async () => {
    const { pending, queue, deps } = setup();
    pending.add(owed('success'));
    const reports = await Promise.all([requeueWebhooks(deps, MIN_AGE_MS), requeueWebhooks(deps, MIN_AGE_MS)]);
    expect(reports.map((report) => report.requeued).sort()).toEqual([0, 1]);
    expect(queue.sent).toHaveLength(1);
  });

  it('works through many, a few at a time', async () => {
    const { pending, queue, deps } = setup();
    for (let i = 0; i < 25; i++) pending.add(owed('success'));
    expect(await requeueWebhooks(deps, MIN_AGE_MS)).toMatchObject({ checked: 25, requeued: 25 });
    expect(new Set(queue.sent.map((sent) => sent.message.task_id)).size).toBe(25);
  });
});
