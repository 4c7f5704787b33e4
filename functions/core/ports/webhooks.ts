import type { TaskRecord } from '../task.js';
import type { TaskStatus } from '../task-status.js';
import type { WebhookDeliveryRecord } from '../webhook-delivery.js';
import type { WebhookAttemptRecord, WebhookMessage, WebhookSendResult } from '../webhook.js';

export interface WebhookRequest {
  url: string;
  /** `webhook-id`: the same for every try of one event. */
  id: string;
  /** `webhook-timestamp`: the time of this try. */
  timestamp: Date;
  /** The exact JSON text that is signed and sent. */
  body: string;
  /** `whsec_…` secrets to sign with: the current one first, then one still in its rotation overlap. */
  secrets: readonly string[];
}

export interface WebhookSender {
  /** One POST, no redirects, bounded in time. Never throws for what the receiver or the network does. */
  send(request: WebhookRequest): Promise<WebhookSendResult>;
}

export interface WebhookSecretStore {
  /** The account's signing secrets, current first (created on first use); undefined when there is no such account. */
  signingSecrets(accountId: string, now: Date): Promise<string[] | undefined>;
}

export interface WebhookAttemptLog {
  /**
   * Claims try number `previousAttempts + 1` until `until`, before its POST: only if the task still counts
   * `previousAttempts` tries, is not delivered, and no other message holds that try's claim at `now` (a
   * conditional write). False when another message is making (or has made) the try: this one must not send.
   */
  claim(taskId: string, previousAttempts: number, now: Date, until: Date): Promise<boolean>;
  /**
   * Records try number `previousAttempts + 1` on the task, only if the task still counts `previousAttempts`
   * tries and is not delivered (a conditional write): false when another message of the event recorded
   * first, so each try is recorded once. Delivered or failed takes the task out of the pending index.
   */
  record(taskId: string, previousAttempts: number, attempt: WebhookAttemptRecord): Promise<boolean>;
}

/** The delivery log (docs/webhooks.md, "Delivery log"): every POST, kept 30 days. */
export interface WebhookDeliveryLog {
  /** Stores one attempt; never throws (a log that cannot be written must not cost the receiver its webhook). */
  record(delivery: WebhookDeliveryRecord): Promise<void>;
  /** The account's deliveries (or one task's), newest first, after `cursor` (a delivery id). */
  list(
    accountId: string,
    query: { taskId?: string; limit: number; cursor?: string },
  ): Promise<{ deliveries: WebhookDeliveryRecord[]; next: string | null }>;
  get(accountId: string, deliveryId: string): Promise<WebhookDeliveryRecord | undefined>;
}

/** The webhook queue, for messages sent by the consumer and the requeuer. */
export interface WebhookQueue {
  /** Sends `message`, visible after `delaySeconds` (at most MAX_MESSAGE_DELAY_SECONDS). */
  send(message: WebhookMessage, delaySeconds: number): Promise<void>;
  /** Parks a message body in the dead-letter queue, for an operator, with the reason why. */
  park(body: string, reason: string): Promise<void>;
}

/** A task in the pending-webhooks index, as the index shows it. */
export interface PendingWebhookEntry {
  task_id: string;
  status: TaskStatus;
  webhook_due_at: string;
}

/** The pending-webhooks index of the tasks table (TASKS_WEBHOOK_PENDING_INDEX). */
export interface PendingWebhooks {
  /** Final tasks (refunded included) whose webhook was due and whose status last changed before `before`. */
  findOverdue(before: string): AsyncIterable<PendingWebhookEntry>;
  /**
   * Moves the task's due time from `seenDueAt` to `nextDueAt` if nobody moved it meanwhile and the webhook
   * is still owed: the task as written when this caller won, undefined otherwise.
   */
  claim(taskId: string, seenDueAt: string, nextDueAt: string): Promise<TaskRecord | undefined>;
  /** Takes a task that owes no webhook (refunded, or its webhook settled) out of the index. */
  forget(taskId: string): Promise<void>;
}
