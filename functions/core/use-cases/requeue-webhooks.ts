/**
 * No webhook is owed forever: a final task whose webhook is neither delivered nor failed, untouched since
 * its try was due (a crash before the send, a lost local message), gets a new message carrying the task's
 * try count, so of two messages only the first to record the next try carries the event on.
 */
import type { PendingWebhooks, WebhookQueue } from '../ports/webhooks.js';
import { webhookEventOf } from '../webhook.js';

const CONCURRENCY = 10;

export interface RequeueWebhooksDeps {
  pending: PendingWebhooks;
  queue: WebhookQueue;
  now: () => Date;
  onRequeue?: (taskId: string, attempts: number) => void;
}

export interface RequeueReport {
  checked: number;
  requeued: number;
  /** Tasks that owe no webhook taken out of the index: refunded (a cancel sends none), or settled. */
  forgotten: number;
}

/**
 * Requeues webhooks due, and of tasks final, more than `minAgeMs` ago and, when given, before `finalBefore`:
 * a run at a local start passes the start, since only what was owed before it lost its queued message.
 */
export async function requeueWebhooks(
  deps: RequeueWebhooksDeps,
  minAgeMs: number,
  finalBefore?: string,
): Promise<RequeueReport> {
  const now = deps.now();
  const byAge = new Date(now.getTime() - minAgeMs).toISOString();
  const before = finalBefore !== undefined && finalBefore < byAge ? finalBefore : byAge;
  const report: RequeueReport = { checked: 0, requeued: 0, forgotten: 0 };
  // A few at a time: after an outage there may be many, and the scheduled run has a time limit.
  let batch: Promise<void>[] = [];
  for await (const entry of deps.pending.findOverdue(before)) {
    report.checked += 1;
    batch.push(
      (async () => {
        if (entry.status === 'refunded') {
          await deps.pending.forget(entry.task_id);
          report.forgotten += 1;
          return;
        }
        // Claimed first (the due time moves to now): two requeuers never both send, and a send that fails
        // is tried again by a later run.
        const task = await deps.pending.claim(entry.task_id, entry.webhook_due_at, now.toISOString());
        if (!task) return;
        const event = webhookEventOf(task.status);
        const settled = task.webhook_state === 'delivered' || task.webhook_state === 'failed';
        if (!event || settled || !task.generation.webhookUrl) {
          // Nothing owed (an index entry its last write should have removed): out of the index.
          await deps.pending.forget(task.task_id);
          report.forgotten += 1;
          return;
        }
        const attempts = task.webhook_attempts ?? 0;
        await deps.queue.send({ task_id: task.task_id, event, attempts }, 0);
        deps.onRequeue?.(task.task_id, attempts);
        report.requeued += 1;
      })(),
    );
    if (batch.length >= CONCURRENCY) {
      await Promise.all(batch);
      batch = [];
    }
  }
  await Promise.all(batch);
  return report;
}
