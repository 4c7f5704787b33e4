/**
 * The public API's operations (docs/api-contract.md): each route's summary, description, parameters, body, success
 * data and error codes, by the route's id in functions/catalog.ts. operation-objects.ts makes them OpenAPI's.
 */
import type { ErrorCode } from '../../core/api-error.js';
import { ListTransactionsQuerySchema } from '../../core/ledger.js';
import { TRANSFERRING_MESSAGE } from '../../core/task.js';
import { ListTasksQuerySchema } from '../../core/use-cases/list-tasks.js';
import { EXAMPLES } from './examples.js';
import { REQUEST_ID } from './headers.js';
import type { Json } from './json-schema.js';
import {
  DELIVERY_ID_PARAMETER,
  jsonRequestBody,
  queryParameters,
  TASK_ID_PARAMETER,
  TOPUP_ID_PARAMETER,
} from './request-parts.js';
import { ListDeliveriesQuerySchema } from '../../core/webhook-delivery.js';
import { ListTopupsQuerySchema } from '../../core/topup.js';

export interface OperationSpec {
  id: string;
  summary: string;
  description: string;
  tag: string;
  /** Needs `Authorization: Bearer bc_…`. */
  authenticated: boolean;
  parameters?: Json[];
  requestBody?: Json;
  /** The body is only a hint, read whatever its Content-Type (no 415); other bodies go through jsonBody. */
  anyContentType?: boolean;
  /** The success answer: the envelope's `data` schema (component name), or a whole response of its own. */
  data?: { component: string; example: unknown; message?: string };
  success?: Json;
  /** Takes an Idempotency-Key: its replays say so in `Idempotent-Replayed`. */
  idempotent?: boolean;
  /** Names a model: a deprecated one answers with `Deprecation` and `Sunset`. */
  namesModel?: boolean;
  errors: ErrorCode[];
}

const AUTHENTICATED_ERRORS: ErrorCode[] = [400, 401, 429, 500];

/** An operation on one of the caller's tasks by its id: another account's is a 403, an unknown one a 404. */
function onOwnTask(spec: Pick<OperationSpec, 'id' | 'summary' | 'description' | 'data'>): OperationSpec {
  return {
    ...spec,
    tag: 'Tasks',
    authenticated: true,
    parameters: [TASK_ID_PARAMETER],
    errors: [400, 401, 403, 404, 429, 500],
  };
}

export const PUBLIC_OPERATIONS: OperationSpec[] = [
  {
    id: 'SubmitTask',
    summary: 'Submit a generation task',
    description:
      "Charges the cost and answers the new task (status pending) with the cost and its parts (cost_breakdown: base, resolution, audio, surcharges). Options that cost extra: resolution above 720p, duration (per second), generate_audio (default true on models with sound), reference videos and audios; GET /api/v1/models lists each model's priced_options. Nothing is charged on any 4xx. With an Idempotency-Key, the same key and body within 24 h answer the first task again (no second charge).",
    tag: 'Tasks',
    authenticated: true,
    idempotent: true,
    namesModel: true,
    requestBody: jsonRequestBody('SubmitRequest', { examples: EXAMPLES.submitRequests }),
    data: { component: 'SubmitResult', example: EXAMPLES.submitResult },
    // 403: a file_url of another account's upload (docs/api-contract.md, "Uploads").
    errors: [400, 401, 402, 403, 429, 500],
  },
  {
    id: 'ListTasks',
    summary: "List the account's tasks",
    description:
      "Newest first, a page at a time: pass `next_cursor` as `cursor` until it is null. A task shows as GET /video/tasks/{id} shows it, without that query's live upstream check (and queue_position is null). A new task may take a moment to appear. With `status`, a page may hold fewer than `limit` tasks (even none) while `next_cursor` is set: each request reads at most 1,000 of the account's tasks.",
    tag: 'Tasks',
    authenticated: true,
    parameters: queryParameters(ListTasksQuerySchema),
    data: { component: 'TaskList', example: EXAMPLES.taskList },
    errors: AUTHENTICATED_ERRORS,
  },
  onOwnTask({
    id: 'GetTask',
    summary: 'Query a task',
    description: `A task in progress is checked with the upstream first. While it is transferring, \`message\` says "${TRANSFERRING_MESSAGE}".`,
    data: { component: 'Task', example: EXAMPLES.task },
  }),
  onOwnTask({
    id: 'CancelTask',
    summary: 'Cancel a task',
    description:
      'While no upstream job has started generating: the task becomes refunded and its cost is refunded in full. Cancelling a refunded task again answers it again. Once generation has started, or the task has ended otherwise: 400. While the task is being started upstream (seconds): 429 with `Retry-After`, nothing refunded; ask again then.',
    data: { component: 'Task', example: EXAMPLES.refundedTask },
  }),
  {
    id: 'GetBalance',
    summary: 'Read the balance',
    description: 'The available balance of the account that owns the API key.',
    tag: 'Account',
    authenticated: true,
    data: { component: 'Balance', example: { balance: 95.8, currency: 'CNY' } },
    errors: [400, 401, 404, 429, 500],
  },
  {
    id: 'ListTransactions',
    summary: "List the account's ledger",
    description:
      'Every balance movement (charge, refund, top-up, adjustment), newest first, a page at a time: pass `next_cursor` as `cursor` until it is null.',
    tag: 'Account',
    authenticated: true,
    parameters: queryParameters(ListTransactionsQuerySchema),
    data: { component: 'TransactionsPage', example: EXAMPLES.transactions },
    errors: AUTHENTICATED_ERRORS,
  },
  {
    id: 'ListWebhookDeliveries',
    summary: 'The webhook delivery log',
    description:
      "Every POST of a completion webhook, newest first, kept 30 days: its event, task, URL, time, HTTP status, latency, and the error or the first 1 KiB of the answer. `outcome` says what followed: `retrying`, `delivered`, `failed` (no more tries) or `dead_lettered` (the last try failed; parked for an operator). With `task_id`, one task's only.",
    tag: 'Webhooks',
    authenticated: true,
    parameters: queryParameters(ListDeliveriesQuerySchema),
    data: { component: 'WebhookDeliveriesPage', example: EXAMPLES.deliveries },
    errors: AUTHENTICATED_ERRORS,
  },
  {
    id: 'RedeliverWebhook',
    summary: 'Send a logged webhook again',
    description:
      "One fresh POST of the delivery's event to the task's webhook URL, now, signed with the same `webhook-id` (a receiver that has it drops the copy), at most 15 s. Logged as a redelivery and answered; the task's own webhook state and retries are left as they are.",
    tag: 'Webhooks',
    authenticated: true,
    parameters: [DELIVERY_ID_PARAMETER],
    data: { component: 'WebhookDelivery', example: EXAMPLES.redelivered },
    errors: [400, 401, 404, 429, 500],
  },
  {
    id: 'ListModels',
    summary: 'List the models',
    description: 'Every model with its pricing (yuan) and what it accepts.',
    tag: 'Models',
    authenticated: true,
    data: { component: 'ModelList', example: EXAMPLES.models },
    errors: AUTHENTICATED_ERRORS,
  },
  {
    id: 'CreateUpload',
    summary: 'Upload a reference file',
    description:
      'Answers a presigned URL: PUT the bytes there with exactly `upload_headers` within 15 minutes, then name `file_url` in image_urls / video_urls / audio_urls. The stored bytes are checked (real type and size) before use; H.265 video is transcoded to H.264. Uploads are deleted 48 h after creation.',
    tag: 'Uploads',
    authenticated: true,
    idempotent: true,
    requestBody: jsonRequestBody('UploadRequest', { example: { content_type: 'image/png', size: 482113 } }),
    data: { component: 'Upload', example: EXAMPLES.upload },
    errors: AUTHENTICATED_ERRORS,
  },
  {
    id: 'CreateTopup',
    summary: 'Start a top-up (Alipay)',
    description:
      "Makes an order for `amount` CNY (at most 2 decimals, 1 to 50,000 unless the operator set other bounds) and answers it pending, with the Alipay QR code to scan (`qr_code`) and when it expires (15 minutes unless configured). Alipay's verified notification credits the balance once, with a ledger entry `topup:<topup_id>`; an order nobody paid is closed when it expires. A bad amount is a 400 and nothing is sent to Alipay.",
    tag: 'Account',
    authenticated: true,
    requestBody: jsonRequestBody('TopupRequest', { example: { amount: 100 } }),
    data: { component: 'Topup', example: EXAMPLES.topup },
    errors: AUTHENTICATED_ERRORS,
  },
  {
    id: 'ListTopups',
    summary: "List the account's top-ups",
    description: 'Newest first, a page at a time: pass `next_cursor` as `cursor` until it is null.',
    tag: 'Account',
    authenticated: true,
    parameters: queryParameters(ListTopupsQuerySchema),
    data: { component: 'TopupList', example: { items: [EXAMPLES.paidTopup], next_cursor: null } },
    errors: AUTHENTICATED_ERRORS,
  },
  {
    id: 'GetTopup',
    summary: 'Query a top-up',
    description:
      "A pending order is asked of Alipay first: paid, it is credited (once) and answered paid, with `paid_at` and Alipay's `trade_no`; expired unpaid, it is closed. Another account's order is a 404.",
    tag: 'Account',
    authenticated: true,
    parameters: [TOPUP_ID_PARAMETER],
    data: { component: 'Topup', example: EXAMPLES.paidTopup },
    errors: [400, 401, 404, 429, 500],
  },
  {
    id: 'AlipayNotify',
    summary: "Alipay's payment notification (not for customers)",
    description:
      "Alipay's asynchronous notification, a form POST signed with RSA2. No API key: the signature, checked with Alipay's key, guards it; the app id, the order and the amount must match and the trade must be paid for a credit. Answers the plain text `success` once handled (Alipay stops resending), else `failure`.",
    tag: 'Internal',
    authenticated: false,
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } },
      },
    },
    anyContentType: true,
    success: {
      description: '`success` or `failure`, as Alipay reads it.',
      headers: REQUEST_ID,
      content: { 'text/plain': { schema: { type: 'string', enum: ['success', 'failure'] } } },
    },
    errors: [500],
  },
  {
    id: 'UpstreamCallback',
    summary: "The upstream's job report (not for customers)",
    description:
      "Called by the upstream generator when a job's status changes. No API key: the per-task secret in the path guards it, and the job is read again from the upstream before anything moves. An unknown task or secret: 404.",
    tag: 'Internal',
    authenticated: false,
    parameters: [TASK_ID_PARAMETER, { name: 'secret', in: 'path', required: true, schema: { type: 'string' } }],
    requestBody: {
      required: false,
      content: { 'application/json': { schema: { type: 'object', description: "The upstream's task object." } } },
    },
    anyContentType: true,
    data: { component: 'Null', example: null },
    errors: [404, 500],
  },
  {
    id: 'Health',
    summary: 'Health check',
    description:
      'No API key. 200 when API Gateway reaches a function that runs; reads no storage (for load balancers and uptime checks).',
    tag: 'Service',
    authenticated: false,
    data: { component: 'Health', example: { status: 'ok' } },
    errors: [500],
  },
  {
    id: 'GetOpenApi',
    summary: 'This document',
    description: 'No API key. The OpenAPI 3.1 description of the API (not in the envelope).',
    tag: 'Service',
    authenticated: false,
    success: {
      description: 'The OpenAPI document.',
      headers: REQUEST_ID,
      content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'info', 'paths'] } } },
    },
    errors: [500],
  },
  {
    id: 'GetDocs',
    summary: 'This document, rendered',
    description: 'No API key. An HTML page that renders this document (Swagger UI, served from our own origin).',
    tag: 'Service',
    authenticated: false,
    success: {
      description: 'The HTML page.',
      headers: REQUEST_ID,
      content: { 'text/html': { schema: { type: 'string' } } },
    },
    errors: [500],
  },
];
