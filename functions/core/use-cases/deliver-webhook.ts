/**
 * One queue message of a completion webhook (docs/webhooks.md; docs/security.md, "URL policy"): a try, or a hop of a
 * message not due yet. The task holds the truth: its try count, written once per try (conditional), and
 * the claim a try takes before its POST, so a duplicate or stale message never sends or adds a try. Every POST
 * is a line of the delivery log (docs/webhooks.md, "Delivery log"), the last try's marked dead-lettered.
 */
import type { TaskRepository } from '../ports/task-repository.js';
import type { WebhookAttemptLog, WebhookDeliveryLog, WebhookSecretStore, WebhookSender } from '../ports/webhooks.js';
import type { VideoUrlSigner } from '../ports/video-storage.js';
import type { TaskRecord } from '../task.js';
import { deliveryRecord } from '../webhook-delivery.js';
import type { DeliveryOutcome } from '../webhook-delivery.js';
import type { WebhookAttemptRecord, WebhookMessage, WebhookSendResult } from '../webhook.js';
import {
  attemptError,
  buildWebhookPayload,
  judgeAttempt,
  MAX_MESSAGE_DELAY_SECONDS,
  parseRetryAfterSeconds,
  retryMessage,
  secondsUntilDue,
  webhookMaxAttempts,
  webhookMessageId,
  webhookRetryDelaySeconds,
} from '../webhook.js';

/** A video URL sent in a webhook stays valid at least this long; an older one is signed afresh. */
const MIN_URL_VALIDITY_MS = 60 * 60 * 1000;

export interface DeliverWebhookDeps {
  tasks: Pick<TaskRepository, 'get'>;
  secrets: WebhookSecretStore;
  sender: WebhookSender;
  attempts: WebhookAttemptLog;
  deliveries: WebhookDeliveryLog;
  /** Re-signs a video URL that would expire soon (a late retry). */
  signer: VideoUrlSigner;
  /** Seconds between tries (see webhookRetryDelaySeconds). */
  schedule: readonly number[];
  /**
   * How long a try's claim holds other messages of the event off: at least as long as a consumer run may
   * last, so a live try never loses it; a try that died with its run is taken over once it lapses.
   */
  claimSeconds: number;
  now: () => Date;
}

/** In every case the received message is done with (deleted); `wait`, `retry` and `dead-letter` send one on. */
export type DeliveryDecision =
  | { action: 'done'; outcome: 'delivered' | 'permanent-failure' | 'skipped'; detail: string }
  /** Not due yet: the same message again, after `delaySeconds`. No try was made. */
  | { action: 'wait'; message: WebhookMessage; delaySeconds: number; detail: string }
  /** The try failed: `message` makes the next one after `delaySeconds`. */
  | { action: 'retry'; message: WebhookMessage; delaySeconds: number; detail: string }
  /** The last try failed (recorded as failed on the task): park `message` in the dead-letter queue. */
  | { action: 'dead-letter'; message: WebhookMessage; detail: string };

export async function deliverWebhook(message: WebhookMessage, deps: DeliverWebhookDeps): Promise<DeliveryDecision> {
  const waitSeconds = secondsUntilDue(message, deps.now());
  if (waitSeconds > 0) {
    return { action: 'wait', message, delaySeconds: waitSeconds, detail: `due at ${message.due_at}` };
  }
  const task = await deps.tasks.get(message.task_id);
  if (!task) return skipped('the task does not exist');
  const url = task.generation.webhookUrl;
  if (!url) return skipped('the task has no webhook_url');
  if (task.webhook_state === 'delivered') return skipped('this event was already delivered');
  const previous = task.webhook_attempts ?? 0;
  if (message.attempts !== undefined && message.attempts !== previous) {
    return skipped(
      `a stale duplicate: the task has ${previous} tries recorded, this message was sent after ${message.attempts}`,
    );
  }
  // A failed event takes one more try only from its own message (attempts given and current): the one
  // parked in the dead-letter queue, redriven by an operator.
  if (task.webhook_state === 'failed' && message.attempts === undefined) return skipped('this event has failed');
  const payload = buildWebhookPayload(await withUsableVideoUrl(task, deps));
  if (!payload) return skipped(`the task is ${task.status}: no webhook`);

  const now = deps.now();
  const attempt = previous + 1;
  /** Records this try; false when another message of the event recorded it first (it carries the event on). */
  const log = (tried: WebhookAttemptRecord) => deps.attempts.record(task.task_id, previous, tried);
  const secrets = await deps.secrets.signingSecrets(task.account_id, now);
  if (!secrets) {
    const noAccount = { kind: 'refused', message: 'the account no longer exists' } as const;
    if (!(await log({ state: 'failed', ...attemptFields(now, noAccount) }))) return lost();
    return { action: 'done', outcome: 'permanent-failure', detail: 'the account no longer exists' };
  }
  // Two messages of one try (SQS delivers at least once; a requeued copy) must not both POST: the claim
  // decides which sends; the other comes back once the claim lapses and finds the try made, or dead.
  const claimUntil = new Date(now.getTime() + deps.claimSeconds * 1000);
  if (!(await deps.attempts.claim(task.task_id, previous, now, claimUntil))) {
    return heldOff(message, previous, await deps.tasks.get(task.task_id), now);
  }
  const webhookId = webhookMessageId(task.task_id, message.event);
  const result = await deps.sender.send({ url, id: webhookId, timestamp: now, body: JSON.stringify(payload), secrets });
  const latencyMs = deps.now().getTime() - now.getTime();
  const logged = (outcome: DeliveryOutcome) =>
    deps.deliveries.record(
      deliveryRecord({
        accountId: task.account_id,
        webhookId,
        event: message.event,
        taskId: task.task_id,
        url,
        at: now,
        latencyMs,
        result,
        error: attemptError(result),
        outcome,
      }),
    );
  const outcome = describe(result);
  switch (judgeAttempt(result)) {
    case 'delivered':
      await logged('delivered');
      if (!(await log({ state: 'delivered', ...attemptFields(now, result) }))) return lost();
      return { action: 'done', outcome: 'delivered', detail: outcome };
    case 'permanent':
      await logged('failed');
      if (!(await log({ state: 'failed', ...attemptFields(now, result) }))) return lost();
      return { action: 'done', outcome: 'permanent-failure', detail: outcome };
    case 'retry': {
      const retryAfter = result.kind === 'response' ? parseRetryAfterSeconds(result.retryAfter, now) : undefined;
      const delay = webhookRetryDelaySeconds(attempt, deps.schedule, retryAfter);
      await logged(delay === undefined ? 'dead_lettered' : 'retrying');
      if (delay === undefined) {
        if (!(await log({ state: 'failed', ...attemptFields(now, result) }))) return lost();
        const maxAttempts = webhookMaxAttempts(deps.schedule);
        return {
          action: 'dead-letter',
          message: { task_id: message.task_id, event: message.event, attempts: attempt },
          detail: `${outcome}; that was try ${attempt} of ${maxAttempts}`,
        };
      }
      const nextTryAt = new Date(now.getTime() + delay * 1000).toISOString();
      const tried = { state: 'retrying', ...attemptFields(now, result), nextTryAt } as const;
      if (!(await log(tried))) return lost();
      return { action: 'retry', ...retryMessage(message, attempt, delay, now), detail: outcome };
    }
  }
}

function skipped(detail: string): DeliveryDecision {
  return { action: 'done', outcome: 'skipped', detail };
}

/**
 * Another message holds the try's claim, or moved on: while the claim lasts, this message (pinned to the try
 * count it saw, so it goes stale once the try is recorded) waits for it to lapse; otherwise it is done.
 */
function heldOff(message: WebhookMessage, previous: number, task: TaskRecord | undefined, now: Date): DeliveryDecision {
  const claimedUntil = task?.webhook_claimed_until ? Date.parse(task.webhook_claimed_until) : 0;
  const held =
    task !== undefined &&
    task.webhook_state !== 'delivered' &&
    (task.webhook_attempts ?? 0) === previous &&
    task.webhook_claim_attempt === previous + 1 &&
    claimedUntil > now.getTime();
  if (!held) return skipped('another message of this event made this try');
  return {
    action: 'wait',
    message: { task_id: message.task_id, event: message.event, attempts: previous },
    // Whole seconds, rounded up, and one more: back after the claim has lapsed, never just before.
    delaySeconds: Math.min(Math.ceil((claimedUntil - now.getTime()) / 1000) + 1, MAX_MESSAGE_DELAY_SECONDS),
    detail: `another message of this event is making try ${previous + 1} (claimed until ${task.webhook_claimed_until})`,
  };
}

function lost(): DeliveryDecision {
  return skipped('another message of this event recorded the same try first');
}

export async function withUsableVideoUrl(
  task: TaskRecord,
  deps: Pick<DeliverWebhookDeps, 'signer' | 'now'>,
): Promise<TaskRecord> {
  if (task.status !== 'success' || !task.video_key) return task;
  const now = deps.now();
  const expiresAt = task.video_url_expires_at ? Date.parse(task.video_url_expires_at) : 0;
  if (task.video_url && expiresAt - now.getTime() >= MIN_URL_VALIDITY_MS) return task;
  const signed = await deps.signer.sign(task.video_key, now);
  return { ...task, video_url: signed.url, video_url_expires_at: signed.expiresAt };
}

function attemptFields(at: Date, result: WebhookSendResult) {
  return {
    at: at.toISOString(),
    statusCode: result.kind === 'response' ? result.statusCode : null,
    error: attemptError(result),
  };
}

function describe(result: WebhookSendResult): string {
  return result.kind === 'response' ? `HTTP ${result.statusCode}` : `${result.kind}: ${result.message}`;
}
