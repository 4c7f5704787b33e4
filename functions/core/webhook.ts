/**
 * Completion webhooks (docs/webhooks.md): the queue message, the payload, the retry schedule and
 * how a receiver's answer is judged. Pure. One event per task, when it becomes `success` or `failed`; its
 * `webhook-id` comes from the task and the event, so every retry and duplicate carries the same id.
 */
import * as v from 'valibot';
import { unitsToYuan } from './money.js';
import type { TaskRecord, WebhookState } from './task.js';
import type { TaskStatus } from './task-status.js';
import { namedError } from './named-error.js';
import { parseJsonOr } from './parse-json.js';

export const WEBHOOK_EVENTS = ['task.success', 'task.failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The final statuses that send a webhook (a cancellation, `refunded`, sends none). */
export type WebhookStatus = 'success' | 'failed';

/**
 * A queue message: what the state machine sends (statemachine/task-lifecycle.asl.json: task and event
 * only), and what the consumer and the requeuer send for a later try.
 */
export interface WebhookMessage {
  task_id: string;
  event: WebhookEvent;
  /**
   * The tries recorded on the task when this message was sent. A task that has recorded another number
   * since has moved on without this message (a duplicate made the try): it is dropped. Absent from the
   * state machine's message, which takes whatever the task has.
   */
  attempts?: number;
  /** When the next try is due (ISO), for a wait longer than one message timer; absent: now. */
  due_at?: string;
}

const WebhookMessageSchema = v.object({
  task_id: v.pipe(v.string(), v.uuid()),
  event: v.picklist(WEBHOOK_EVENTS),
  attempts: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  due_at: v.optional(v.pipe(v.string(), v.isoTimestamp())),
});

export class InvalidWebhookMessageError extends namedError('InvalidWebhookMessageError') {}

export function parseWebhookMessage(body: string): WebhookMessage {
  const json = parseJsonOr(body, () => new InvalidWebhookMessageError('webhook message is not JSON'));
  const parsed = v.safeParse(WebhookMessageSchema, json);
  if (!parsed.success) throw new InvalidWebhookMessageError(`webhook message: ${v.summarize(parsed.issues)}`);
  return parsed.output;
}

/** Stable across retries and duplicates of one event: `msg_<task id without dashes>_<status>`. */
export function webhookMessageId(taskId: string, event: WebhookEvent): string {
  return `msg_${taskId.replaceAll('-', '')}_${event.slice('task.'.length)}`;
}

/**
 * Whether the state machine should queue the webhook for a task it just saw in `status`: the task asked
 * for one and is in that final state. Also true when the step that made the move is retried or a twin
 * execution sees it: the message is idempotent (same id) and the consumer skips a delivered event.
 */
export function shouldNotify(task: TaskRecord | undefined, status: WebhookStatus): boolean {
  return task !== undefined && task.status === status && Boolean(task.generation.webhookUrl);
}

/** The event a task in a final status sends, or undefined when it sends none (`refunded`). */
export function webhookEventOf(status: TaskStatus): WebhookEvent | undefined {
  return status === 'success' ? 'task.success' : status === 'failed' ? 'task.failed' : undefined;
}

/** The event type in a webhook body: `task.succeeded` or `task.failed` (docs/webhooks.md, "Payload"). */
export const WEBHOOK_TYPES = ['task.succeeded', 'task.failed'] as const;

/** Form A fields plus Form B's `result_url`, the event's type and the model (docs/webhooks.md). */
export const WebhookPayloadSchema = v.strictObject({
  type: v.pipe(v.picklist(WEBHOOK_TYPES), v.description('What happened: the task succeeded or failed.')),
  task_id: v.pipe(v.string(), v.description('The task.')),
  status: v.pipe(
    v.picklist(['success', 'failed']),
    v.description('The final status, as GET /video/tasks/{id} shows it.'),
  ),
  model: v.pipe(v.string(), v.description('The model that generated it (its name).')),
  video_url: v.pipe(v.optional(v.string()), v.description('On success: the signed video URL (24 h).')),
  result_url: v.pipe(v.optional(v.string()), v.description('Form B name of video_url (the same value).')),
  error_message: v.pipe(v.optional(v.string()), v.description('On failure: why (the cost is refunded).')),
  metadata: v.pipe(
    v.optional(v.record(v.string(), v.string())),
    v.description('Your own pairs from the submit (`metadata`), when it had any.'),
  ),
  cost: v.pipe(v.number(), v.description('CNY charged (refunded in full on failure).')),
  finished_at: v.pipe(v.string(), v.description('When the task ended (ISO 8601).')),
  test: v.pipe(
    v.optional(v.literal(true)),
    v.description("Set on the console's test event only: the same shape, for a task that does not exist."),
  ),
});
export type WebhookPayload = v.InferOutput<typeof WebhookPayloadSchema>;

/** The payload of a final task, or undefined when the task is in no state that sends one. */
export function buildWebhookPayload(task: TaskRecord): WebhookPayload | undefined {
  if (task.status !== 'success' && task.status !== 'failed') return undefined;
  const payload: WebhookPayload = {
    type: task.status === 'success' ? 'task.succeeded' : 'task.failed',
    task_id: task.task_id,
    status: task.status,
    model: task.generation.modelName,
    ...(task.generation.metadata && Object.keys(task.generation.metadata).length > 0
      ? { metadata: task.generation.metadata }
      : {}),
    cost: unitsToYuan(task.cost_units),
    finished_at: task.finished_at ?? task.updated_at,
  };
  if (task.status === 'success') {
    if (!task.video_url) return undefined;
    payload.video_url = task.video_url;
    payload.result_url = task.video_url;
  } else {
    payload.error_message = task.error_message ?? 'generation failed';
  }
  return payload;
}

// ---------------------------------------------------------------------------------------------
// Retry schedule

/** The longest single wait between attempts (12 h), whatever the schedule or a Retry-After ask. */
export const MAX_RETRY_DELAY_SECONDS = 43_200;

/**
 * SQS's longest message timer (DelaySeconds, 15 min: "Amazon SQS message timers" in the SQS developer
 * guide). A retry is a new message sent with the wait as its timer, so no message waits in flight; a
 * longer wait is sent with this timer and its due time, and is sent on again until due.
 */
export const MAX_MESSAGE_DELAY_SECONDS = 900;

/**
 * Seconds to wait after each failed attempt. The usual list ends at 12 h and sums to 22.7 h;
 * a second 12 h makes the whole run last 34.7 h, past a full day (docs/webhooks.md, "Retries"). 11 attempts in all.
 */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS: readonly number[] = [
  5, 30, 120, 600, 1_800, 3_600, 10_800, 21_600, 43_200, 43_200,
];

export class InvalidRetryScheduleError extends namedError('InvalidRetryScheduleError') {}

/** `"5,30,120"` → [5, 30, 120]: whole seconds, 0 to 43200 each, at least one. */
export function parseWebhookRetrySchedule(text: string): number[] {
  const parts = text.split(',').map((part) => part.trim());
  const delays = parts.map(Number);
  if (parts.some((part) => !/^\d{1,5}$/.test(part)) || delays.some((delay) => delay > MAX_RETRY_DELAY_SECONDS)) {
    throw new InvalidRetryScheduleError(
      `a webhook retry schedule is comma-separated whole seconds, each 0 to ${MAX_RETRY_DELAY_SECONDS} (got "${text}")`,
    );
  }
  return delays;
}

/** Attempts in all: the first one plus one per delay. */
export function webhookMaxAttempts(schedule: readonly number[]): number {
  return schedule.length + 1;
}

/**
 * Seconds before the next try after attempt number `attempt` (1-based) failed, or undefined when that
 * was the last. A receiver's Retry-After may make the wait longer, never shorter; it is capped at
 * MAX_RETRY_DELAY_SECONDS.
 */
export function webhookRetryDelaySeconds(
  attempt: number,
  schedule: readonly number[],
  retryAfterSeconds?: number,
): number | undefined {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be 1 or more (got ${attempt})`);
  const scheduled = schedule[attempt - 1];
  if (scheduled === undefined) return undefined;
  return Math.min(Math.max(scheduled, retryAfterSeconds ?? 0), MAX_RETRY_DELAY_SECONDS);
}

/** The message for the try after attempt number `attempts`, `delaySeconds` from `now`, and its timer. */
export function retryMessage(
  message: WebhookMessage,
  attempts: number,
  delaySeconds: number,
  now: Date,
): { message: WebhookMessage; delaySeconds: number } {
  const next: WebhookMessage = { task_id: message.task_id, event: message.event, attempts };
  if (delaySeconds <= MAX_MESSAGE_DELAY_SECONDS) return { message: next, delaySeconds };
  const dueAt = new Date(now.getTime() + delaySeconds * 1000).toISOString();
  return { message: { ...next, due_at: dueAt }, delaySeconds: MAX_MESSAGE_DELAY_SECONDS };
}

/**
 * Whole seconds before `message` is due, 0 when it is. Less than a second early counts as due: the
 * timer's whole seconds and the clocks of two hosts make that much noise.
 */
export function secondsUntilDue(message: WebhookMessage, now: Date): number {
  if (!message.due_at) return 0;
  const early = Date.parse(message.due_at) - now.getTime();
  return early >= 1000 ? Math.min(Math.ceil(early / 1000), MAX_MESSAGE_DELAY_SECONDS) : 0;
}

/** RFC 9110 Retry-After: delay-seconds or an HTTP-date. Undefined when absent or unreadable. */
export function parseRetryAfterSeconds(header: string | undefined, now: Date): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

// ---------------------------------------------------------------------------------------------
// Attempts

/** What one try came to, as the sender reports it. */
export type WebhookSendResult =
  /** `bodyExcerpt`: the first 1 KiB of the answer's body, as far as it came soon after the headers. */
  | { kind: 'response'; statusCode: number; retryAfter?: string; bodyExcerpt?: string }
  /** The target is not a public address (SSRF guard): never retried. */
  | { kind: 'refused'; message: string }
  /** No answer: DNS, connection, TLS, or the 15 s limit. */
  | { kind: 'error'; message: string };

export type WebhookAttemptVerdict = 'delivered' | 'permanent' | 'retry';

/** Any 2xx is a delivery; 410 Gone and a refused address end the event; everything else, 3xx included, is retried. */
export function judgeAttempt(result: WebhookSendResult): WebhookAttemptVerdict {
  if (result.kind === 'refused') return 'permanent';
  if (result.kind === 'error') return 'retry';
  if (result.statusCode >= 200 && result.statusCode < 300) return 'delivered';
  if (result.statusCode === 410) return 'permanent';
  return 'retry';
}

/** What a failed try records as its error: the reason when there was no answer, a hint when the answer needs one. */
export function attemptError(result: WebhookSendResult): string | null {
  if (result.kind !== 'response') return result.message;
  if (result.statusCode >= 300 && result.statusCode < 400) return 'redirects are not followed: answer 2xx';
  if (result.statusCode === 410) return 'the receiver answered 410 Gone: no more retries for this event';
  return null;
}

/** One attempt, as recorded on the task. */
export interface WebhookAttemptRecord {
  state: Exclude<WebhookState, 'pending'>;
  at: string;
  statusCode: number | null;
  error: string | null;
  /** When the next try is due (`retrying` only): the requeuer leaves the task alone until then. */
  nextTryAt?: string;
}

// ---------------------------------------------------------------------------------------------
// The pending-webhooks index (TASKS_WEBHOOK_PENDING_INDEX in functions/adapters/runtime/resources.ts)

/**
 * A task that asks for a webhook carries `webhook_pending` (the index's partition key) and
 * `webhook_due_at` (its sort key) from its creation until its webhook is delivered or failed: the
 * requeuer finds through them a final task whose webhook nobody is taking care of. The partition is the
 * task id's first hex digit: 16 keys, so the index's writes never pile onto one partition.
 */
export const WEBHOOK_PENDING_SHARDS: readonly string[] = [...'0123456789abcdef'];

export function pendingWebhookKeys(taskId: string, dueAt: string): { webhook_pending: string; webhook_due_at: string } {
  return { webhook_pending: taskId.charAt(0).toLowerCase(), webhook_due_at: dueAt };
}
