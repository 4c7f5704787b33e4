/** Fixtures for the webhook unit tests: a task that asked for a webhook, and in-memory ports. */
import type { TaskRecord } from '../../functions/core/task.js';
import type { TaskStatus } from '../../functions/core/task-status.js';
import type { SignedUrl, VideoUrlSigner } from '../../functions/core/ports/video-storage.js';
import type {
  WebhookAttemptLog,
  WebhookDeliveryLog,
  WebhookRequest,
  WebhookSecretStore,
  WebhookSender,
} from '../../functions/core/ports/webhooks.js';
import type { WebhookAttemptRecord, WebhookSendResult } from '../../functions/core/webhook.js';
import type { WebhookDeliveryRecord } from '../../functions/core/webhook-delivery.js';
import { taskRecord } from '../support/task-records.js';
import type { TaskRecordFields } from '../support/task-records.js';

export const HOOK = 'https://hooks.example.com/video';

/** taskRecord() in `status`, asking for a webhook to `webhookUrl` (none when null). */
export function webhookTask(status: TaskStatus, fields: TaskRecordFields = {}, webhookUrl: string | null = HOOK) {
  return taskRecord({ status, ...fields, generation: { ...fields.generation, ...(webhookUrl ? { webhookUrl } : {}) } });
}

/** Tasks in memory; the attempt log writes into them as DynamoDbWebhookAttemptLog does (conditional on the count and claim). */
export class MemoryWebhookTasks implements WebhookAttemptLog {
  readonly tasks = new Map<string, TaskRecord>();
  readonly attempts: WebhookAttemptRecord[] = [];

  constructor(...tasks: TaskRecord[]) {
    for (const task of tasks) this.tasks.set(task.task_id, structuredClone(task));
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const task = this.tasks.get(taskId);
    return task && structuredClone(task);
  }

  async claim(taskId: string, previousAttempts: number, now: Date, until: Date): Promise<boolean> {
    const task = this.tasks.get(taskId);
    if (!task || task.webhook_state === 'delivered' || (task.webhook_attempts ?? 0) !== previousAttempts) return false;
    const held =
      task.webhook_claim_attempt === previousAttempts + 1 &&
      task.webhook_claimed_until !== undefined &&
      Date.parse(task.webhook_claimed_until) > now.getTime();
    if (held) return false;
    task.webhook_claim_attempt = previousAttempts + 1;
    task.webhook_claimed_until = until.toISOString();
    return true;
  }

  async record(taskId: string, previousAttempts: number, attempt: WebhookAttemptRecord): Promise<boolean> {
    this.attempts.push(attempt);
    const task = this.tasks.get(taskId);
    if (!task || task.webhook_state === 'delivered' || (task.webhook_attempts ?? 0) !== previousAttempts) return false;
    task.webhook_state = attempt.state;
    task.webhook_attempts = previousAttempts + 1;
    task.webhook_last_status_code = attempt.statusCode;
    task.webhook_last_error = attempt.error;
    task.webhook_last_attempt_at = attempt.at;
    if (attempt.state === 'delivered') task.webhook_delivered_at = attempt.at;
    delete task.webhook_claim_attempt;
    delete task.webhook_claimed_until;
    if (attempt.state === 'retrying') task.webhook_due_at = attempt.nextTryAt;
    else {
      delete task.webhook_pending;
      delete task.webhook_due_at;
    }
    return true;
  }
}

export class MemoryWebhookSecrets implements WebhookSecretStore {
  constructor(private readonly secrets: Record<string, string[]>) {}

  async signingSecrets(accountId: string): Promise<string[] | undefined> {
    return this.secrets[accountId];
  }
}

/** Answers each send with the next scripted result (the last one repeating), keeping every request. */
export class ScriptedSender implements WebhookSender {
  readonly requests: WebhookRequest[] = [];

  constructor(private readonly results: WebhookSendResult[]) {}

  async send(request: WebhookRequest): Promise<WebhookSendResult> {
    this.requests.push(request);
    return this.results[Math.min(this.requests.length, this.results.length) - 1] as WebhookSendResult;
  }
}

export class CountingSigner implements VideoUrlSigner {
  signed = 0;

  async sign(key: string, now: Date): Promise<SignedUrl> {
    this.signed += 1;
    return {
      url: `https://videos.example.com/${key}?fresh=${this.signed}`,
      expiresAt: new Date(now.getTime() + 24 * 3600_000).toISOString(),
    };
  }
}

/** The delivery log in memory: every record, in the order written. */
export class MemoryWebhookDeliveries implements WebhookDeliveryLog {
  readonly records: WebhookDeliveryRecord[] = [];

  record(delivery: WebhookDeliveryRecord): Promise<void> {
    this.records.push(delivery);
    return Promise.resolve();
  }

  list(accountId: string, query: { taskId?: string; limit: number; cursor?: string }) {
    const mine = this.records
      .filter((record) => record.account_id === accountId && (!query.taskId || record.task_id === query.taskId))
      .filter((record) => query.cursor === undefined || record.delivery_id < query.cursor)
      .sort((a, b) => b.delivery_id.localeCompare(a.delivery_id));
    const deliveries = mine.slice(0, query.limit);
    return Promise.resolve({
      deliveries,
      next: mine.length > query.limit ? (deliveries.at(-1)?.delivery_id ?? null) : null,
    });
  }

  get(accountId: string, deliveryId: string) {
    return Promise.resolve(
      this.records.find((record) => record.account_id === accountId && record.delivery_id === deliveryId),
    );
  }
}
