/**
 * The webhook delivery log (docs/webhooks.md, "Delivery log"): one record per POST, kept 30 days, listed newest
 * first per account or per task. Ids sort by time, so the table's own order is the listing's. The query and
 * view schemas here are also the OpenAPI document's.
 */
import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { InvalidRequestError } from './api-error.js';
import type { WebhookEvent, WebhookSendResult } from './webhook.js';

export const DELIVERY_RETENTION_DAYS = 30;
/** What a record keeps of the receiver's answer. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export const DELIVERY_OUTCOMES = ['delivered', 'retrying', 'failed', 'dead_lettered'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

export interface WebhookDeliveryRecord {
  account_id: string;
  /** `wd_` + the time in ms (base 36, fixed width) + random: sorts by time, unique. */
  delivery_id: string;
  webhook_id: string;
  event: WebhookEvent;
  task_id: string;
  url: string;
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
  outcome: DeliveryOutcome;
  /** Sent by a customer's redeliver, not by the retries. */
  redelivery: boolean;
  /** Epoch seconds: DynamoDB's TTL removes the record after DELIVERY_RETENTION_DAYS. */
  expires_at: number;
}

export function deliveryId(at: Date): string {
  return `wd_${at.getTime().toString(36).padStart(9, '0')}${randomBytes(6).toString('hex')}`;
}

export function deliveryRecord(fields: {
  accountId: string;
  webhookId: string;
  event: WebhookEvent;
  taskId: string;
  url: string;
  at: Date;
  latencyMs: number;
  result: WebhookSendResult;
  error: string | null;
  outcome: DeliveryOutcome;
  redelivery?: boolean;
}): WebhookDeliveryRecord {
  const { result } = fields;
  const statusCode = result.kind === 'response' ? result.statusCode : null;
  return {
    account_id: fields.accountId,
    delivery_id: deliveryId(fields.at),
    webhook_id: fields.webhookId,
    event: fields.event,
    task_id: fields.taskId,
    url: fields.url,
    attempted_at: fields.at.toISOString(),
    status_code: statusCode,
    latency_ms: Math.max(0, Math.round(fields.latencyMs)),
    // A failed answer without a reason of ours is named by its status.
    error:
      fields.error ?? (statusCode !== null && (statusCode < 200 || statusCode >= 300) ? `HTTP ${statusCode}` : null),
    response_excerpt: result.kind === 'response' ? (result.bodyExcerpt ?? null) : null,
    outcome: fields.outcome,
    redelivery: fields.redelivery ?? false,
    expires_at: Math.floor(fields.at.getTime() / 1000) + DELIVERY_RETENTION_DAYS * 86_400,
  };
}

// ------------------------------------------------------------------ GET /api/v1/webhook-deliveries

export const DELIVERIES_DEFAULT_LIMIT = 20;
export const DELIVERIES_MAX_LIMIT = 100;
const LIMIT_MESSAGE = `limit must be a whole number from 1 to ${DELIVERIES_MAX_LIMIT}`;

export const ListDeliveriesQuerySchema = v.strictObject({
  task_id: v.optional(
    v.pipe(v.string(), v.uuid('task_id must be a task id (a UUID)'), v.description("Only this task's deliveries.")),
  ),
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, LIMIT_MESSAGE),
      v.transform(Number),
      v.minValue(1, LIMIT_MESSAGE),
      v.maxValue(DELIVERIES_MAX_LIMIT, LIMIT_MESSAGE),
      v.description(`At most this many (default ${DELIVERIES_DEFAULT_LIMIT}).`),
    ),
  ),
  cursor: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^wd_[0-9a-z]{9}[0-9a-f]{12}$/, 'cursor must be next_cursor from the previous page, as it is'),
      v.description('The previous page’s next_cursor.'),
    ),
  ),
});

export interface DeliveriesQuery {
  taskId?: string;
  limit: number;
  cursor?: string;
}

export function parseDeliveriesQuery(query: Record<string, string | undefined> | undefined): DeliveriesQuery {
  const parsed = v.safeParse(ListDeliveriesQuerySchema, query ?? {});
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const field = issue.path?.[0]?.key;
    throw new InvalidRequestError(
      issue.type === 'strict_object'
        ? `unknown query parameter "${String(field)}": use task_id, limit or cursor`
        : issue.message,
    );
  }
  const { task_id, limit, cursor } = parsed.output;
  return {
    limit: limit ?? DELIVERIES_DEFAULT_LIMIT,
    ...(task_id !== undefined && { taskId: task_id }),
    ...(cursor !== undefined && { cursor }),
  };
}

export const DeliveryViewSchema = v.object({
  id: v.pipe(v.string(), v.description('wd_…: the id to redeliver')),
  webhook_id: v.pipe(v.string(), v.description('The webhook-id header: the same on every try of one event')),
  event: v.picklist(['task.success', 'task.failed']),
  task_id: v.string(),
  url: v.string(),
  attempted_at: v.string(),
  status_code: v.pipe(v.nullable(v.number()), v.description('null: no answer (the error says why)')),
  latency_ms: v.number(),
  error: v.pipe(v.nullable(v.string()), v.description('Why it failed; null when delivered')),
  response_excerpt: v.pipe(v.nullable(v.string()), v.description('The first 1 KiB of the answer’s body')),
  outcome: v.pipe(
    v.picklist(DELIVERY_OUTCOMES),
    v.description('retrying: another try follows; dead_lettered: the last try failed, parked for an operator'),
  ),
  redelivery: v.pipe(v.boolean(), v.description('Sent by a redeliver request')),
});
export type DeliveryView = v.InferOutput<typeof DeliveryViewSchema>;

export const DeliveriesPageSchema = v.object({
  items: v.array(DeliveryViewSchema),
  next_cursor: v.pipe(v.nullable(v.string()), v.description('null on the last page')),
});
export type DeliveriesPage = v.InferOutput<typeof DeliveriesPageSchema>;

export function toDeliveryView(record: WebhookDeliveryRecord): DeliveryView {
  return {
    id: record.delivery_id,
    webhook_id: record.webhook_id,
    event: record.event,
    task_id: record.task_id,
    url: record.url,
    attempted_at: record.attempted_at,
    status_code: record.status_code,
    latency_ms: record.latency_ms,
    error: record.error,
    response_excerpt: record.response_excerpt,
    outcome: record.outcome,
    redelivery: record.redelivery,
  };
}
