/**
 * One delivery attempt of a completion webhook (spec §6, DESIGN §3 rows 19–20), for one queue message.
 * The queue holds the event until this says it is done; every try is recorded on the task, and the
 * decision says what the queue should do with the message next.
 */
import type { TaskRepository } from '../ports/task-repository.js';
import type { WebhookAttemptLog, WebhookSecretStore, WebhookSender } from '../ports/webhooks.js';
import type { VideoUrlSigner } from '../ports/video-storage.js';
import type { TaskRecord } from '../task.js';
import type { WebhookAttemptRecord, WebhookMessage, WebhookSendResult } from '../webhook.js';
import {
  attemptError,
  buildWebhookPayload,
  judgeAttempt,
  parseRetryAfterSeconds,
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
  /** Re-signs a video URL that would expire soon (a late retry). */
  signer: VideoUrlSigner;
  /** Seconds between tries (see webhookRetryDelaySeconds). */
  schedule: readonly number[];
  now: () => Date;
}

export type DeliveryDecision =
  /** Nothing more to do for this message: delete it. */
  | { action: 'done'; outcome: 'delivered' | 'permanent-failure' | 'skipped'; detail: string }
  /** Keep the message, invisible for this long, then try again. */
  | { action: 'retry'; delaySeconds: number; detail: string }
  /** Tries are used up: make the message visible so the queue's redrive moves it to the dead-letter queue. */
  | { action: 'dead-letter'; detail: string };

/**
 * `receiveCount` is the message's ApproximateReceiveCount: the number of this try, counting tries a
 * crashed consumer never finished.
 */
export async function deliverWebhook(
  message: WebhookMessage,
  receiveCount: number,
  deps: DeliverWebhookDeps,
): Promise<DeliveryDecision> {
  const maxAttempts = webhookMaxAttempts(deps.schedule);
  const task = await deps.tasks.get(message.task_id);
  if (!task) return { action: 'done', outcome: 'skipped', detail: 'the task does not exist' };
  const url = task.generation.webhookUrl;
  if (!url) return { action: 'done', outcome: 'skipped', detail: 'the task has no webhook_url' };
  if (task.webhook_state === 'delivered') {
    return { action: 'done', outcome: 'skipped', detail: 'this event was already delivered' };
  }
  if (receiveCount > maxAttempts) {
    return { action: 'dead-letter', detail: `received ${receiveCount} times, more than the ${maxAttempts} tries` };
  }
  const payload = buildWebhookPayload(await withUsableVideoUrl(task, deps));
  if (!payload) return { action: 'done', outcome: 'skipped', detail: `the task is ${task.status}: no webhook` };

  const now = deps.now();
  const secrets = await deps.secrets.signingSecrets(task.account_id, now);
  if (!secrets) {
    await record(deps, task, 'failed', now, { kind: 'refused', message: 'the account no longer exists' });
    return { action: 'done', outcome: 'permanent-failure', detail: 'the account no longer exists' };
  }
  const result = await deps.sender.send({
    url,
    id: webhookMessageId(task.task_id, message.event),
    timestamp: now,
    body: JSON.stringify(payload),
    secrets,
  });
  const outcome = describe(result);
  switch (judgeAttempt(result)) {
    case 'delivered':
      await record(deps, task, 'delivered', now, result);
      return { action: 'done', outcome: 'delivered', detail: outcome };
    case 'permanent':
      await record(deps, task, 'failed', now, result);
      return { action: 'done', outcome: 'permanent-failure', detail: outcome };
    case 'retry': {
      const retryAfter = result.kind === 'response' ? parseRetryAfterSeconds(result.retryAfter, deps.now()) : undefined;
      const delay = webhookRetryDelaySeconds(receiveCount, deps.schedule, retryAfter);
      if (delay === undefined) {
        await record(deps, task, 'failed', now, result);
        return { action: 'dead-letter', detail: `${outcome}; that was the last of ${maxAttempts} tries` };
      }
      await record(deps, task, 'retrying', now, result);
      return { action: 'retry', delaySeconds: delay, detail: outcome };
    }
  }
}

async function withUsableVideoUrl(task: TaskRecord, deps: DeliverWebhookDeps): Promise<TaskRecord> {
  if (task.status !== 'success' || !task.video_key) return task;
  const now = deps.now();
  const expiresAt = task.video_url_expires_at ? Date.parse(task.video_url_expires_at) : 0;
  if (task.video_url && expiresAt - now.getTime() >= MIN_URL_VALIDITY_MS) return task;
  const signed = await deps.signer.sign(task.video_key, now);
  return { ...task, video_url: signed.url, video_url_expires_at: signed.expiresAt };
}

function record(
  deps: DeliverWebhookDeps,
  task: TaskRecord,
  state: WebhookAttemptRecord['state'],
  at: Date,
  result: WebhookSendResult,
): Promise<void> {
  return deps.attempts.record(task.task_id, {
    state,
    at: at.toISOString(),
    statusCode: result.kind === 'response' ? result.statusCode : null,
    error: attemptError(result),
  });
}

function describe(result: WebhookSendResult): string {
  return result.kind === 'response' ? `HTTP ${result.statusCode}` : `${result.kind}: ${result.message}`;
}
