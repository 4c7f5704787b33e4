/**
 * The console's operations in the OpenAPI document (docs/console.md): the routes of CONSOLE_ROUTES, authorized by a
 * Cognito access token (API Gateway's JWT authorizer answers a bad one itself: 401 `{"message":"Unauthorized"}`).
 */
import type * as v from 'valibot';
import { CreateKeySchema, KeyViewSchema, NewKeyViewSchema, UpdateKeySchema } from '../../core/console-key.js';
import { ListTransactionsQuerySchema } from '../../core/ledger.js';
import { ConsoleAccountSchema } from '../../core/use-cases/console/get-account.js';
import { ConsoleListTasksQuerySchema } from '../../core/use-cases/console/list-account-tasks.js';
import { RedeemRequestSchema, RedeemResultSchema } from '../../core/use-cases/console/redeem-code.js';
import { TestWebhookRequestSchema, TestWebhookResultSchema } from '../../core/use-cases/console/send-test-webhook.js';
import { WebhookSecretViewSchema } from '../../core/use-cases/console/webhook-secret.js';
import { ListTopupsQuerySchema } from '../../core/topup.js';
import { ListDeliveriesQuerySchema } from '../../core/webhook-delivery.js';
import { EXAMPLES } from './examples.js';
import type { Json } from './json-schema.js';
import type { QuerySchema } from './request-parts.js';
import { KeyListSchema } from './response-schemas.js';

export interface ConsoleOperation {
  id: string;
  summary: string;
  description: string;
  query?: QuerySchema;
  pathId?: 'task' | 'key' | 'topup' | 'delivery';
  /** The request body's schema component and an example. */
  body?: { component: string; example: Json };
  /** The envelope's `data`: a schema component (defined here or by the public API) and an example. */
  data: { component: string; example: unknown };
  errors: (400 | 403 | 404 | 500)[];
}

/** Schemas the console adds to the document's components. */
export const CONSOLE_SCHEMAS: Record<string, v.GenericSchema> = {
  ConsoleAccount: ConsoleAccountSchema,
  Key: KeyViewSchema,
  NewKey: NewKeyViewSchema,
  KeyList: KeyListSchema,
  CreateKeyRequest: CreateKeySchema,
  UpdateKeyRequest: UpdateKeySchema,
  WebhookSecret: WebhookSecretViewSchema,
  TestWebhookRequest: TestWebhookRequestSchema,
  TestWebhookResult: TestWebhookResultSchema,
  RedeemRequest: RedeemRequestSchema,
  RedeemResult: RedeemResultSchema,
};

const KEY_EXAMPLE = {
  key_id: 'key_7d2f0c9a4b1e4c3d',
  key_hint: 'bc_3q9V…8N4c',
  name: 'production',
  status: 'active',
  quota: 500,
  spent: 12.5,
  rate_limit_per_second: 10,
  rate_is_default: true,
  created_at: '2026-11-20T08:00:00.000Z',
  last_used_at: '2026-11-26T07:12:03.000Z',
  deleted_at: null,
};

/** A console route that answers as a public one does, for the signed-in account instead of an API key's. */
function asPublicRoute(
  id: string,
  summary: string,
  publicRoute: string,
  answer: Omit<ConsoleOperation, 'id' | 'summary' | 'description'>,
): ConsoleOperation {
  return { id, summary, description: `As ${publicRoute}, for the signed-in account.`, ...answer };
}

export const CONSOLE_OPERATIONS: ConsoleOperation[] = [
  {
    id: 'ConsoleGetAccount',
    summary: 'The signed-in account',
    description:
      "Balance and this month's spend (from the ledger: charges less refunds since the 1st, UTC). A user's first request opens their account with a balance of 0.",
    data: {
      component: 'ConsoleAccount',
      example: {
        account_id: 'acct_5e0b4c2a9d7f4e1b8c3a',
        balance: 87.5,
        currency: 'CNY',
        spent_this_month: 12.5,
        month_start: '2026-11-01T00:00:00.000Z',
        tasks_this_month: 3,
      },
    },
    errors: [404, 500],
  },
  asPublicRoute('ConsoleListTransactions', 'The ledger', 'GET /api/v1/account/transactions', {
    query: ListTransactionsQuerySchema,
    data: { component: 'TransactionsPage', example: EXAMPLES.transactions },
    errors: [400, 500],
  }),
  asPublicRoute('ConsoleListTasks', 'The tasks', 'GET /api/v1/video/tasks (and `key_id`: one key’s tasks)', {
    query: ConsoleListTasksQuerySchema,
    data: { component: 'TaskList', example: EXAMPLES.taskList },
    errors: [400, 500],
  }),
  asPublicRoute('ConsoleGetTask', 'One task', 'GET /api/v1/video/tasks/{id}', {
    pathId: 'task',
    data: { component: 'Task', example: EXAMPLES.task },
    errors: [400, 403, 404, 500],
  }),
  {
    id: 'ConsoleListKeys',
    summary: 'The API keys',
    description: 'Oldest first, with spend against quota and the last time each paid for a task.',
    data: { component: 'KeyList', example: { items: [KEY_EXAMPLE] } },
    errors: [500],
  },
  {
    id: 'ConsoleCreateKey',
    summary: 'Create an API key',
    description:
      'The key itself (`key`, bc_…) is in this answer only: it is stored as a hash. At most 50 keys per account; a rate at most the service default.',
    body: { component: 'CreateKeyRequest', example: { name: 'production', quota: 500 } },
    data: { component: 'NewKey', example: { ...KEY_EXAMPLE, key: 'bc_3q9VxY2mTt7Kp0aLw5RzJc8N' } },
    errors: [400, 403, 500],
  },
  {
    id: 'ConsoleUpdateKey',
    summary: 'Rename, disable, enable or change the quota of a key',
    description:
      'A disabled key gets 401 from its next request. `quota: null` removes the cap; a quota below what the key has spent stops it until raised. A deleted key cannot be changed (400).',
    pathId: 'key',
    body: { component: 'UpdateKeyRequest', example: { status: 'disabled' } },
    data: { component: 'Key', example: { ...KEY_EXAMPLE, status: 'disabled' } },
    errors: [400, 403, 404, 500],
  },
  {
    id: 'ConsoleDeleteKey',
    summary: 'Delete an API key',
    description:
      'Revoked for good: its next request is a 401 and no change brings it back. It stays in the key list as `deleted`, with its spend; its tasks and ledger entries are kept. Deleting it again answers the same.',
    pathId: 'key',
    data: { component: 'Key', example: { ...KEY_EXAMPLE, status: 'deleted', deleted_at: '2026-11-27T09:30:00.000Z' } },
    errors: [404, 500],
  },
  {
    id: 'ConsoleGetWebhookSecret',
    summary: 'The webhook signing secret',
    description: 'Created on first use. Verify the webhook-signature header with it (Standard Webhooks).',
    data: {
      component: 'WebhookSecret',
      example: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', previous_valid_until: null },
    },
    errors: [404, 500],
  },
  {
    id: 'ConsoleRotateWebhookSecret',
    summary: 'Rotate the webhook signing secret',
    description: 'For 24 h, webhooks carry signatures by both the new and the previous secret.',
    data: {
      component: 'WebhookSecret',
      example: {
        secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
        previous_valid_until: '2026-11-27T08:00:00.000Z',
      },
    },
    errors: [400, 404, 500],
  },
  {
    id: 'ConsoleSendTestWebhook',
    summary: 'Send a signed test event',
    description:
      'One POST of `{"type":"test",…}`, signed and sent exactly as a task webhook (public addresses only, 15 s). Not retried.',
    body: { component: 'TestWebhookRequest', example: { url: 'https://example.com/hooks/video' } },
    data: {
      component: 'TestWebhookResult',
      example: { delivered: true, status_code: 204, error: null, webhook_id: 'msg_test_1f0a4a4b2f6e' },
    },
    errors: [400, 404, 500],
  },
  {
    id: 'ConsoleRedeemCode',
    summary: 'Redeem a top-up code',
    description:
      'Adds the code’s amount to the balance, once, with a ledger entry `redeem:<code id>` (type topup). Case, spaces and dashes do not matter. The same account redeeming it again gets the same answer with already_redeemed_at set: nothing is added.',
    body: { component: 'RedeemRequest', example: { code: 'VGS-7K2M-Q9XD-4TRB-H8NC' } },
    data: { component: 'RedeemResult', example: { amount: 100, balance: 187.5, already_redeemed_at: null } },
    errors: [400, 500],
  },
  asPublicRoute('ConsoleCreateTopup', 'Start a top-up', 'POST /api/v1/account/topups', {
    body: { component: 'TopupRequest', example: { amount: 100 } },
    data: { component: 'Topup', example: EXAMPLES.topup },
    errors: [400, 500],
  }),
  asPublicRoute('ConsoleListTopups', 'The top-up orders', 'GET /api/v1/account/topups', {
    query: ListTopupsQuerySchema,
    data: { component: 'TopupList', example: { items: [EXAMPLES.paidTopup], next_cursor: null } },
    errors: [400, 500],
  }),
  asPublicRoute('ConsoleGetTopup', 'One top-up order', 'GET /api/v1/account/topups/{topup_id}', {
    pathId: 'topup',
    data: { component: 'Topup', example: EXAMPLES.paidTopup },
    errors: [404, 500],
  }),
  asPublicRoute('ConsoleListWebhookDeliveries', 'The webhook delivery log', 'GET /api/v1/webhook-deliveries', {
    query: ListDeliveriesQuerySchema,
    data: { component: 'WebhookDeliveriesPage', example: EXAMPLES.deliveries },
    errors: [400, 500],
  }),
  asPublicRoute(
    'ConsoleRedeliverWebhook',
    'Send a logged webhook again',
    'POST /api/v1/webhook-deliveries/{id}/redeliver',
    {
      pathId: 'delivery',
      data: { component: 'WebhookDelivery', example: EXAMPLES.redelivered },
      errors: [400, 404, 500],
    },
  ),
  {
    id: 'ConsoleListModels',
    summary: 'The models and their prices',
    description: 'As GET /api/v1/models.',
    data: { component: 'ModelList', example: EXAMPLES.models },
    errors: [500],
  },
];
