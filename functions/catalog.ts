/**
 * Every function of the service, declared once: its trigger, handler entry, timeout and memory where not the
 * default, and what it uses (named groups of access: the tables, queues, secrets and settings its handler reads
 * at cold start, functions/adapters/*-dependencies.ts). Plain data: lib/ship/cdk derives functions, grants and
 * environment from it, lib/dev/local each handler's own environment and timeout, lib/ship/routes.ts the routes.
 */
import { ENV, providerEnv } from './adapters/runtime/config.js';
import {
  API_KEYS_BY_ACCOUNT_INDEX,
  LEDGER_BY_TIME_INDEX,
  STATE_MACHINE,
  TABLES,
  TASK_STARTS,
  UPLOAD_TRANSCODER,
  TASKS_BY_ACCOUNT_INDEX,
  TASKS_BY_KEY_INDEX,
  TASKS_IN_FLIGHT_INDEX,
  TASKS_SLOT_HOLDERS_INDEX,
  TASKS_WEBHOOK_PENDING_INDEX,
  TOPUPS_BY_ACCOUNT_INDEX,
  TOPUPS_PENDING_INDEX,
  VIDEO_BUCKET,
  WEBHOOK_DELIVERIES_BY_TASK_INDEX,
  WEBHOOK_QUEUE,
} from './adapters/runtime/resources.js';
import type { TableId } from './adapters/runtime/resources.js';
import { METRIC } from './core/metric-names.js';
import { PROVIDER_NAMES } from './providers/registry.js';
import type { ProviderName } from './providers/registry.js';

export type DynamoDbAction =
  'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem' | 'Query' | 'Scan';
export type ExecutionAction = 'StopExecution' | 'DescribeExecution';

/** One thing a function uses: the variable that names it, and (in AWS) the least IAM to use it. */
export type Access =
  /** A table's name; item actions on the table itself (none: the name only). */
  | { kind: 'table'; table: TableId; actions: DynamoDbAction[] }
  | { kind: 'index'; table: TableId; index: string }
  /** The video bucket, written under `keys` (the task's video); `delete`: objects there deleted instead. */
  | { kind: 'videos'; keys: string; delete?: true }
  /** Customer uploads in the video bucket (UPLOADS.prefix). */
  | { kind: 'uploads'; actions: ('GetObject' | 'PutObject')[] }
  /** Untrusted media's transcoder (docs/security.md, "Untrusted media"): reads uploads, writes their H.264 copies. */
  | { kind: 'transcodeUploads' }
  /** Invokes the upload transcoder (UPLOAD_TRANSCODER): its name, and lambda:InvokeFunction on it alone. */
  | { kind: 'invokeTranscoder' }
  | { kind: 'executions'; start: boolean; actions: ExecutionAction[] }
  | { kind: 'webhookQueue' }
  /** Answers the lifecycle's task tokens (SendTaskSuccess/SendTaskFailure); no variable. */
  | { kind: 'taskTokens' }
  /** Settings: the deployment's value (lib/ship/cdk), else the variable's default. */
  | { kind: 'config'; variables: string[] }
  /** A secret's ARN; `plain` carries the value itself where no secret store is (the local stack). */
  | {
      kind: 'secret';
      variable: string;
      secret: 'cloudFrontPrivateKey' | 'alipayAppPrivateKey' | ProviderName;
      plain?: string;
    }
  /** Variables only the local stack gives, with why (a stand-in for an AWS service that has no emulator). */
  | { kind: 'local'; variables: string[]; why: string };

const table = (id: TableId, ...actions: DynamoDbAction[]): Access => ({ kind: 'table', table: id, actions });
const index = (id: TableId, name: string): Access => ({ kind: 'index', table: id, index: name });
const config = (...variables: string[]): Access => ({ kind: 'config', variables });

/** taskRepository(): the five tables' names, each with the actions given (none: its name only). */
function taskRepository(
  tasks: DynamoDbAction[],
  accounts: DynamoDbAction[] = [],
  apiKeys: DynamoDbAction[] = [],
  ledger: DynamoDbAction[] = [],
  idempotency: DynamoDbAction[] = [],
): Access[] {
  return [
    table('tasks', ...tasks),
    table('accounts', ...accounts),
    table('apiKeys', ...apiKeys),
    table('ledger', ...ledger),
    table('idempotency', ...idempotency),
  ];
}
/** The uploads table: uploadRepository() finds it, and its Idempotency-Key records, by these names. */
const uploads = (...actions: DynamoDbAction[]): Access[] => [table('uploads', ...actions), table('idempotency')];
/** consoleKeys(): the account's keys by its index; a write checks the account in the same transaction. */
const consoleKeys = (...apiKeys: DynamoDbAction[]): Access[] => [
  index('apiKeys', API_KEYS_BY_ACCOUNT_INDEX.name),
  table('apiKeys', ...apiKeys),
  table('accounts', 'ConditionCheckItem'),
];

/** authenticationDependencies(): key lookup and the per-key limiter. */
const authentication: Access[] = [
  table('apiKeys', 'GetItem'),
  table('rateLimits', 'UpdateItem'),
  config(ENV.defaultRateLimitPerSecond.name),
];
/** repository.refund(): one transaction over the task, a balance shard, a key spend shard and the ledger entry. */
const refunds = taskRepository(['GetItem', 'UpdateItem'], ['GetItem', 'UpdateItem'], ['UpdateItem'], ['PutItem']);
/**
 * videoUrlSigner(): CloudFront-signed URLs (the private key read from Secrets Manager once per cold start); no
 * bucket access in AWS. The local stack has no CDN: its URLs are S3-presigned, which needs the bucket's name.
 */
const videoUrlSigner: Access[] = [
  // A video the bucket's lifecycle rule removed gets no URL, but when it went (functions/core/video-retention.ts).
  config(ENV.cloudFrontDomain.name, ENV.cloudFrontKeyPairId.name, ENV.videoRetentionDays.name),
  { kind: 'secret', variable: ENV.cloudFrontPrivateKeySecretArn.name, secret: 'cloudFrontPrivateKey' },
  { kind: 'local', variables: [VIDEO_BUCKET.envVar], why: 'no CloudFront locally: S3-presigned video URLs' },
];
/**
 * waitingRoomDependencies(): upstream accounts and the waiting room (slots are taken and given back in
 * transactions with the task), and the task tokens it answers.
 */
const capacity: Access[] = [
  ...taskRepository(['GetItem', 'UpdateItem']),
  table('upstreamAccounts', 'Scan', 'UpdateItem'),
  table('upstreamQueue', 'PutItem', 'DeleteItem', 'Query'),
  { kind: 'taskTokens' },
];
/** videoProviders(): each provider's platform and endpoint, its key only as a secret ARN, read by the function. */
const upstream: Access[] = PROVIDER_NAMES.flatMap((provider): Access[] => {
  const env = providerEnv(provider);
  return [
    config(env.platform.name, env.baseUrl.name),
    { kind: 'secret', variable: env.apiKeySecretArn.name, secret: provider, plain: env.apiKey.name },
  ];
});
/**
 * Every console route's caller (functions/http/console/console-route.ts, consoleUsers()): the JWT's `sub`
 * looked up; a new user gets its link and a new account in one transaction. No API key.
 */
const consoleCaller: Access[] = [table('consoleUsers', 'GetItem', 'PutItem'), table('accounts', 'PutItem')];
/**
 * topupDependencies(): the orders, a credit's one transaction (the order, the account, the ledger entry), and
 * Alipay: its endpoint, our app, its key and ours (a secret in AWS), the bounds, and our notify route's base.
 */
const topups: Access[] = [
  table('topups', 'GetItem', 'UpdateItem'),
  // The balance's shards read, and checked in the credit's transaction (balance-credit.ts).
  table('accounts', 'GetItem', 'UpdateItem', 'ConditionCheckItem'),
  table('ledger', 'PutItem'),
  config(
    ENV.alipayGatewayUrl.name,
    ENV.alipayAppId.name,
    ENV.alipayPublicKey.name,
    ENV.topupMinCny.name,
    ENV.topupMaxCny.name,
    ENV.topupExpiryMinutes.name,
    ENV.callbackBaseUrl.name,
  ),
  {
    kind: 'secret',
    variable: ENV.alipayAppPrivateKeySecretArn.name,
    secret: 'alipayAppPrivateKey',
    plain: ENV.alipayAppPrivateKey.name,
  },
];
/** topupStore(): the tables it is made with, names only (a list reads the account's index). */
const topupNames: Access[] = [table('topups'), table('accounts'), table('ledger')];
/**
 * The functions that call Alipay carry its official SDK (required: docs/money-and-ledger.md, "Top-ups"), about
 * 1.1 MiB minified with its HTTP client (undici): their bundles' budget.
 */
const ALIPAY_SDK_BUNDLE_KIB = 1700;
/** The webhook queue's URL, and sends to it and its dead-letter queue (retries, hops, parked messages). */
const webhookQueue: Access = { kind: 'webhookQueue' };

/** The named groups a function may use (functions/adapters/*-dependencies.ts build from them). */
export const GROUPS = {
  authentication,
  refunds,
  videoUrlSigner,
  capacity,
  upstream,
  consoleCaller,
  topups,
  /** A job settled (a failed one refunded) and its slot given back: what ends a task. */
  settle: [...refunds, ...capacity, ...upstream],
  /** taskQueryDependencies(): a task's query asks the upstream, may settle it, signs its video URL. */
  taskQuery: [...refunds, ...capacity, ...upstream, ...videoUrlSigner],
} satisfies Record<string, Access[]>;
export type GroupName = keyof typeof GROUPS;

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type Trigger =
  /** `auth: 'jwt'`: a console route (docs/console.md), behind API Gateway's JWT authorizer. */
  | { http: { method: HttpMethod; path: string; auth?: 'jwt' } }
  /** API Gateway's `$default` route: everything unmatched. */
  | { http: 'default' }
  /** A Task state of the lifecycle's ASL: the `${Token}` that receives the function's ARN. */
  | { state: string }
  | { everyMinutes: number }
  | { queue: typeof WEBHOOK_QUEUE.name }
  | { stream: 'tasks' }
  /** Called by another function through Lambda's Invoke API (no event source). */
  | { invokedBy: string };

export interface FunctionDeclaration {
  id: string;
  trigger: Trigger;
  /** Handler module, relative to the repository root; it exports `handler`. */
  entry: string;
  /** @default 10 */
  timeoutSeconds?: number;
  /** @default 512 */
  memoryMb?: number;
  /** ffmpeg: x86_64 with the ffmpeg layer (lib/ship/build/ffmpeg-binary.ts). */
  ffmpeg?: true;
  uses: (GroupName | Access | Access[])[];
  /** Its count of the errors it throws by design (functions/core/metric-names.ts), left out of its error alarm. */
  designedErrorsMetric?: string;
  /**
   * Lambda executions reserved for it, so that an API flood cannot starve work customers already paid for; the
   * API's functions share what is left (docs/capacity.md).
   */
  reservedConcurrency?: number;
  /**
   * A public route's share of the executions the API's functions share, and the time one request holds one
   * (p99-ish, cold starts aside): its API Gateway throttle is derived from both (docs/capacity.md, "Throttles").
   */
  throttle?: RouteBudget;
  /** Its bundle's size budget where not the default 550 KiB (test/infra/lambda-bundles.test.ts), with why. */
  bundleBudgetKiB?: number;
}

export interface RouteBudget {
  readonly share: number;
  readonly seconds: number;
}
/** What every console route gets: the console's routes share 12 % of the API's executions evenly. */
export const CONSOLE_SHARE = 0.12;
export const CONSOLE_ROUTE_SECONDS = 0.2;

export const DEFAULT_TIMEOUT_SECONDS = 10;

const route = (method: HttpMethod, path: string) => ({ http: { method, path } });
/** A console route: its handler in functions/http/console/. */
function consoleRoute(
  id: string,
  method: HttpMethod,
  path: string,
  file: string,
  ...uses: FunctionDeclaration['uses']
) {
  return {
    id: `Console${id}`,
    trigger: { http: { method, path: `/api/v1/console${path}`, auth: 'jwt' } },
    entry: `functions/http/console/${file}`,
    uses: ['consoleCaller', ...uses],
  } satisfies FunctionDeclaration;
}
const accountSecrets = table('accounts', 'GetItem', 'UpdateItem');
const keyRate = config(ENV.defaultRateLimitPerSecond.name);
/** The webhook delivery log (docs/webhooks.md, "Delivery log"). */
const webhookLog = (...actions: DynamoDbAction[]): Access[] => [
  table('webhookDeliveries', ...actions),
  index('webhookDeliveries', WEBHOOK_DELIVERIES_BY_TASK_INDEX.name),
];
/** A redeliver: the logged delivery, its task, the account's secrets (made on first use), a fresh video URL. */
const redelivery: Access[] = [
  ...webhookLog('GetItem', 'PutItem'),
  ...taskRepository(['GetItem']),
  accountSecrets,
  ...videoUrlSigner,
];
/**
 * The model catalog: a Scan of its table, kept in the warm function for a while; and each provider's platform, as a
 * model its platform retired is not offered (functions/core/video-model.ts).
 */
const modelCatalog: Access[] = [
  table('models', 'Scan'),
  config(ENV.modelCatalogCacheSeconds.name, ...PROVIDER_NAMES.map((name) => providerEnv(name).platform.name)),
];

export const CATALOG: readonly FunctionDeclaration[] = [
  // The public API.
  {
    id: 'SubmitTask',
    // A transaction (charge + ledger + task) and an idempotency record: the slowest and the one that earns.
    throttle: { share: 0.2, seconds: 0.3 },
    trigger: route('POST', '/api/v1/video/generate'),
    entry: 'functions/http/submit-task.ts',
    uses: [
      'authentication',
      ...modelCatalog,
      // One transaction (with the ledger entry and the Idempotency-Key record, read first when a key is
      // sent); the task's execution starts from the table's stream (StartExecutions).
      // A charge late at its deadline is voided in the idempotency table, then its task read (charge-void.ts).
      taskRepository(
        ['PutItem', 'GetItem'],
        ['GetItem', 'UpdateItem'],
        ['GetItem', 'UpdateItem'],
        ['PutItem'],
        ['GetItem', 'PutItem', 'ConditionCheckItem'],
      ),
      // The uploads a submit names: their records, and a ranged GET of each stored object (its real type and size).
      uploads('GetItem'),
      { kind: 'uploads', actions: ['GetObject'] },
    ],
  },
  {
    id: 'ListTasks',
    throttle: { share: 0.08, seconds: 0.2 },
    trigger: route('GET', '/api/v1/video/tasks'),
    entry: 'functions/http/list-tasks.ts',
    // The account's index, and a succeeded task's re-signed video URL stored as GetTask stores it.
    uses: [
      'authentication',
      taskRepository(['UpdateItem']),
      index('tasks', TASKS_BY_ACCOUNT_INDEX.name),
      'videoUrlSigner',
    ],
  },
  // A query of a running task asks the upstream and may record a move, or a failure with its refund, and
  // wakes the execution; a waiting task's place is counted in the waiting room.
  {
    id: 'GetTask',
    // Polling: most of the traffic, one read each.
    // 0.04 of its former 0.19 went to the usage, export and delivery-log routes (docs/capacity.md).
    throttle: { share: 0.15, seconds: 0.1 },
    trigger: route('GET', '/api/v1/video/tasks/{id}'),
    entry: 'functions/http/get-task.ts',
    uses: ['authentication', 'taskQuery'],
  },
  {
    id: 'CancelTask',
    throttle: { share: 0.04, seconds: 0.3 },
    trigger: route('POST', '/api/v1/video/tasks/{id}/cancel'),
    entry: 'functions/http/cancel-task.ts',
    // Cancels the upstream job (up to three calls of CANCEL_UPSTREAM_TIMEOUT_MS), refunds, stops the execution
    // and gives the slot back: given longer than a read, below the HTTP API's 30-s integration limit.
    timeoutSeconds: 25,
    uses: ['authentication', 'settle', { kind: 'executions', start: false, actions: ['StopExecution'] }],
  },
  {
    id: 'GetBalance',
    throttle: { share: 0.04, seconds: 0.1 },
    trigger: route('GET', '/api/v1/account/balance'),
    entry: 'functions/http/get-balance.ts',
    uses: ['authentication', table('accounts', 'GetItem')],
  },
  {
    id: 'ListTransactions',
    throttle: { share: 0.04, seconds: 0.2 },
    trigger: route('GET', '/api/v1/account/transactions'),
    entry: 'functions/http/list-transactions.ts',
    uses: ['authentication', index('ledger', LEDGER_BY_TIME_INDEX.name)],
  },
  {
    id: 'ListModels',
    throttle: { share: 0.03, seconds: 0.1 },
    trigger: route('GET', '/api/v1/models'),
    entry: 'functions/http/list-models.ts',
    uses: ['authentication', ...modelCatalog],
  },
  {
    id: 'CreateUpload',
    throttle: { share: 0.04, seconds: 0.2 },
    trigger: route('POST', '/api/v1/uploads'),
    entry: 'functions/http/create-upload.ts',
    // Records the upload (with its Idempotency-Key record, read first when a key is sent) and presigns its PUT
    // with the function's own role: the URL can write only what that role may, under uploads/.
    uses: [
      'authentication',
      uploads('PutItem'),
      table('idempotency', 'GetItem', 'PutItem'),
      { kind: 'uploads', actions: ['PutObject'] },
    ],
  },
  // OpenAI's Videos API over the same tasks, prices, ledger, quotas and Idempotency-Key (docs/openai-videos.md):
  // its dialect in functions/http/openai/, its use cases in functions/core/use-cases/openai/. 0.03 of the shares
  // in all, as little as the native routes they mirror are given per request.
  {
    id: 'OpenAiCreateVideo',
    // A submit, and an input_reference file stored (one PUT of up to 4 MiB) before it.
    throttle: { share: 0.01, seconds: 0.5 },
    trigger: route('POST', '/api/v1/videos'),
    entry: 'functions/http/openai/create-video.ts',
    uses: [
      'authentication',
      ...modelCatalog,
      // As SubmitTask's transaction, and the new task read back for its answer.
      taskRepository(
        ['PutItem', 'GetItem'],
        ['GetItem', 'UpdateItem'],
        ['UpdateItem'],
        ['PutItem'],
        ['GetItem', 'PutItem'],
      ),
      // The input_reference stored as an upload (record and object), then checked as every submit's uploads.
      uploads('GetItem', 'PutItem'),
      { kind: 'uploads', actions: ['GetObject', 'PutObject'] },
      config(ENV.videoRetentionDays.name),
    ],
  },
  {
    id: 'OpenAiListVideos',
    throttle: { share: 0.003, seconds: 0.2 },
    trigger: route('GET', '/api/v1/videos'),
    entry: 'functions/http/openai/list-videos.ts',
    // `after` names a task: read for its place in the account's index.
    uses: [
      'authentication',
      taskRepository(['GetItem']),
      index('tasks', TASKS_BY_ACCOUNT_INDEX.name),
      config(ENV.videoRetentionDays.name),
    ],
  },
  {
    id: 'OpenAiGetVideo',
    // Polling, as GetTask.
    throttle: { share: 0.01, seconds: 0.1 },
    trigger: route('GET', '/api/v1/videos/{id}'),
    entry: 'functions/http/openai/get-video.ts',
    uses: ['authentication', 'taskQuery'],
  },
  {
    id: 'OpenAiDeleteVideo',
    throttle: { share: 0.002, seconds: 0.3 },
    trigger: route('DELETE', '/api/v1/videos/{id}'),
    entry: 'functions/http/openai/delete-video.ts',
    // A queued video is cancelled as CancelTask does (its timeout too); a finished one's object is deleted and
    // its task marked.
    timeoutSeconds: 25,
    uses: [
      'authentication',
      'settle',
      { kind: 'executions', start: false, actions: ['StopExecution'] },
      { kind: 'videos', keys: 'videos/*', delete: true },
    ],
  },
  {
    id: 'OpenAiGetVideoContent',
    throttle: { share: 0.004, seconds: 0.1 },
    trigger: route('GET', '/api/v1/videos/{id}/content'),
    entry: 'functions/http/openai/get-video-content.ts',
    // A redirect to the video's URL, signed again and stored as GetTask does.
    uses: ['authentication', taskRepository(['GetItem', 'UpdateItem']), 'videoUrlSigner'],
  },
  {
    id: 'OpenAiRemixVideo',
    throttle: { share: 0.001, seconds: 0.05 },
    trigger: route('POST', '/api/v1/videos/{id}/remix'),
    entry: 'functions/http/openai/remix-video.ts',
    uses: ['authentication'],
  },

  // No API key (docs/api-contract.md, "Routes"), no storage: for load balancers and uptime checks, and the API's
  // own description, answered from the bundle alone.
  {
    id: 'Health',
    trigger: route('GET', '/api/v1/health'),
    entry: 'functions/http/health.ts',
    uses: [],
    throttle: { share: 0.01, seconds: 0.05 },
  },
  {
    id: 'GetOpenApi',
    trigger: route('GET', '/api/v1/openapi.json'),
    entry: 'functions/http/get-openapi.ts',
    uses: [],
    throttle: { share: 0.01, seconds: 0.05 },
  },
  {
    id: 'GetDocs',
    trigger: route('GET', '/docs'),
    entry: 'functions/http/get-docs.ts',
    uses: [],
    throttle: { share: 0.01, seconds: 0.05 },
  },
  // The upstream's job reports (docs/task-lifecycle.md, "Completion"): no API key; the per-task secret in the path
  // guards it. A read of the job (2 s at most), then as GetTask's settle. Ark waits 5 s for the answer; the
  // function may take longer under load (the work is done, Ark only sends the hint again).
  {
    id: 'UpstreamCallback',
    // The upstream's reports: one or two per task; refused reports are made good by the polls.
    throttle: { share: 0.08, seconds: 0.2 },
    trigger: route('POST', '/api/v1/upstream-callbacks/{id}/{secret}'),
    entry: 'functions/http/upstream-callback.ts',
    uses: ['settle'],
  },

  // Top-ups (docs/money-and-ledger.md, "Top-ups"): an order, its QR code from Alipay, its one credit. A create and a
  // GET of a pending order wait for Alipay (5 s at most); few customers top up at once.
  {
    id: 'CreateTopup',
    bundleBudgetKiB: ALIPAY_SDK_BUNDLE_KIB,
    trigger: route('POST', '/api/v1/account/topups'),
    entry: 'functions/http/create-topup.ts',
    throttle: { share: 0.01, seconds: 1 },
    uses: ['authentication', 'topups', table('topups', 'PutItem')],
  },
  {
    id: 'ListTopups',
    trigger: route('GET', '/api/v1/account/topups'),
    entry: 'functions/http/list-topups.ts',
    throttle: { share: 0.01, seconds: 0.2 },
    // The orders' names only (topupStore()): a page is read from the account's index; Alipay is not asked.
    uses: ['authentication', topupNames, index('topups', TOPUPS_BY_ACCOUNT_INDEX.name)],
  },
  {
    id: 'GetTopup',
    bundleBudgetKiB: ALIPAY_SDK_BUNDLE_KIB,
    trigger: route('GET', '/api/v1/account/topups/{topup_id}'),
    entry: 'functions/http/get-topup.ts',
    throttle: { share: 0.02, seconds: 0.5 },
    uses: ['authentication', 'topups'],
  },
  // What an account spent and what its webhooks did (docs/webhooks.md, "Delivery log"): 0.04 of the shares in
  // all, taken from GetTask's; each console twin is a console route below.
  {
    id: 'ListWebhookDeliveries',
    throttle: { share: 0.01, seconds: 0.2 },
    trigger: route('GET', '/api/v1/webhook-deliveries'),
    entry: 'functions/http/list-webhook-deliveries.ts',
    uses: ['authentication', webhookLog('Query')],
  },
  {
    id: 'RedeliverWebhook',
    // One POST to the customer's URL, up to its 15 s: few, and held long.
    throttle: { share: 0.005, seconds: 2 },
    timeoutSeconds: 20,
    trigger: route('POST', '/api/v1/webhook-deliveries/{id}/redeliver'),
    entry: 'functions/http/redeliver-webhook.ts',
    uses: ['authentication', ...redelivery],
  },
  // Alipay's asynchronous notification: no API key; its RSA2 signature, checked with Alipay's key, guards it.
  {
    id: 'AlipayNotify',
    bundleBudgetKiB: ALIPAY_SDK_BUNDLE_KIB,
    trigger: route('POST', '/api/v1/payments/alipay/notify'),
    entry: 'functions/http/alipay-notify.ts',
    throttle: { share: 0.01, seconds: 0.3 },
    uses: ['topups'],
  },

  // The customer console's API (docs/console.md): the same use cases as the public API, for the signed-in
  // user's account; the JWT authorizer has checked the token, each route finds its caller's account.
  consoleRoute(
    'GetAccount',
    'GET',
    '/account',
    'get-account.ts',
    table('accounts', 'GetItem'),
    index('ledger', LEDGER_BY_TIME_INDEX.name),
  ),
  consoleRoute(
    'ListTransactions',
    'GET',
    '/transactions',
    'list-transactions.ts',
    index('ledger', LEDGER_BY_TIME_INDEX.name),
  ),
  // Filtered by key (`key_id`): the key found among the account's, its tasks read from the key's index.
  consoleRoute(
    'ListTasks',
    'GET',
    '/tasks',
    'list-tasks.ts',
    taskRepository(['UpdateItem']),
    index('tasks', TASKS_BY_ACCOUNT_INDEX.name),
    index('tasks', TASKS_BY_KEY_INDEX.name),
    index('apiKeys', API_KEYS_BY_ACCOUNT_INDEX.name),
    'videoUrlSigner',
  ),
  consoleRoute('GetTask', 'GET', '/tasks/{id}', 'get-task.ts', 'taskQuery'),
  // Each key's spend is the sum of its shards (key-spend.ts); its view says its rate as a number: the service default when it has none (docs/console.md, "Keys").
  consoleRoute('ListKeys', 'GET', '/keys', 'list-keys.ts', consoleKeys('GetItem'), keyRate),
  consoleRoute('CreateKey', 'POST', '/keys', 'create-key.ts', consoleKeys('PutItem'), keyRate),
  consoleRoute('UpdateKey', 'PATCH', '/keys/{id}', 'update-key.ts', consoleKeys('UpdateItem', 'GetItem'), keyRate),
  // Revoked for good, the record kept: its tasks and ledger entries still name it.
  consoleRoute('DeleteKey', 'DELETE', '/keys/{id}', 'delete-key.ts', consoleKeys('UpdateItem', 'GetItem'), keyRate),
  // The account's webhook signing secrets (webhookSecrets(): on the account's item).
  consoleRoute('GetWebhookSecret', 'GET', '/webhook-secret', 'get-webhook-secret.ts', accountSecrets),
  consoleRoute('RotateWebhookSecret', 'POST', '/webhook-secret/rotate', 'rotate-webhook-secret.ts', accountSecrets),
  // Signs a test event with the account's secret and POSTs it to the customer's (public) URL.
  consoleRoute('SendTestWebhook', 'POST', '/webhook-test', 'send-test-webhook.ts', accountSecrets),
  // One transaction: the code marked redeemed, the balance raised, the ledger entry written.
  consoleRoute('RedeemCode', 'POST', '/redeem', 'redeem-code.ts', [
    table('redeemCodes', 'GetItem', 'UpdateItem'),
    table('accounts', 'GetItem', 'UpdateItem', 'ConditionCheckItem'),
    table('ledger', 'PutItem'),
  ]),
  consoleRoute(
    'ListWebhookDeliveries',
    'GET',
    '/webhook-deliveries',
    'list-webhook-deliveries.ts',
    webhookLog('Query'),
  ),
  {
    ...consoleRoute(
      'RedeliverWebhook',
      'POST',
      '/webhook-deliveries/{id}/redeliver',
      'redeliver-webhook.ts',
      ...redelivery,
    ),
    timeoutSeconds: 20,
  },
  consoleRoute('ListModels', 'GET', '/models', 'list-models.ts', ...modelCatalog),
  {
    ...consoleRoute('CreateTopup', 'POST', '/topups', 'create-topup.ts', 'topups', table('topups', 'PutItem')),
    bundleBudgetKiB: ALIPAY_SDK_BUNDLE_KIB,
  },
  consoleRoute(
    'ListTopups',
    'GET',
    '/topups',
    'list-topups.ts',
    topupNames,
    index('topups', TOPUPS_BY_ACCOUNT_INDEX.name),
  ),
  {
    ...consoleRoute('GetTopup', 'GET', '/topups/{topup_id}', 'get-topup.ts', 'topups'),
    bundleBudgetKiB: ALIPAY_SDK_BUNDLE_KIB,
  },

  // Answers with the envelope only: touches nothing.
  {
    id: 'NotFound',
    trigger: { http: 'default' },
    entry: 'functions/http/not-found.ts',
    uses: [],
    throttle: { share: 0.03, seconds: 0.05 },
  },

  // The state machine's steps: each timeout below its state's TimeoutSeconds in the ASL.
  // Uploads made fetchable for the upstream (CloudFront-signed until the upload's expiry), read and written
  // with their real type (docs/api-contract.md, "Uploads"). An H.265 video is handed to TranscodeUpload, never
  // decoded here; its call is waited for (the state's 160 s is above; the machine's 12 h holds every worst case).
  {
    id: 'PrepareInputs',
    trigger: { state: 'PrepareInputsFunctionArn' },
    entry: 'functions/workflow/prepare-inputs.ts',
    timeoutSeconds: UPLOAD_TRANSCODER.timeoutSeconds + 10,
    // It waits for TranscodeUpload's answer, so as many as TranscodeUpload: a transcode is never throttled while its caller runs.
    reservedConcurrency: 10,
    uses: [
      taskRepository(['GetItem', 'UpdateItem']),
      uploads('GetItem'),
      { kind: 'uploads', actions: ['GetObject', 'PutObject'] },
      'videoUrlSigner',
      { kind: 'invokeTranscoder' },
    ],
  },
  // Decodes untrusted media (docs/security.md, "Untrusted media"): reads an upload, writes its H.264 copy; no
  // table, no secret; the layer's ffmpeg runs with an empty environment. x264 uses every vCPU it gets, and
  // Lambda gives vCPUs by memory (one per 1,769 MB): 4096 MB is over two.
  {
    id: UPLOAD_TRANSCODER.id,
    trigger: { invokedBy: 'PrepareInputs' },
    entry: 'functions/workflow/transcode-upload.ts',
    timeoutSeconds: UPLOAD_TRANSCODER.timeoutSeconds,
    memoryMb: 4096,
    // Transcodes take up to 130 s at 4 GB each: few at once, rare (H.265 uploads only).
    reservedConcurrency: 10,
    ffmpeg: true,
    uses: [{ kind: 'transcodeUploads' }, config(ENV.ffmpegPath.name)],
  },
  {
    id: 'WaitForUpstreamSlot',
    trigger: { state: 'WaitForUpstreamSlotFunctionArn' },
    entry: 'functions/workflow/wait-for-slot.ts',
    timeoutSeconds: 50,
    // Short DynamoDB-only steps run once or twice per task: 10 at ~100 ms each is ~100 tasks/s.
    reservedConcurrency: 10,
    uses: ['capacity'],
  },
  {
    id: 'StartUpstream',
    trigger: { state: 'StartUpstreamFunctionArn' },
    entry: 'functions/workflow/start-upstream.ts',
    // Its claim on the task outlives it (lib/ship/cdk/service-functions.ts checks UPSTREAM_CLAIM_LEASE_MS).
    timeoutSeconds: 50,
    // "No room upstream after all" (429, account problems) sends the task back to the waiting room.
    designedErrorsMetric: METRIC.upstreamStartsDeferred,
    // One create per task, up to the 50 s timeout when the upstream is slow.
    reservedConcurrency: 20,
    uses: [
      'capacity',
      'upstream',
      config(ENV.completionCheckSeconds.name, ENV.completionPollSeconds.name, ENV.callbackBaseUrl.name),
    ],
  },
  // Registers its token, looks at the job; a job found final is settled (a failed one refunded) here.
  {
    id: 'AwaitCompletion',
    trigger: { state: 'AwaitCompletionFunctionArn' },
    entry: 'functions/workflow/await-completion.ts',
    timeoutSeconds: 25,
    // One look per job every check interval (60 s polls, 300 s behind callbacks): 20 cover thousands of jobs.
    reservedConcurrency: 20,
    uses: ['settle'],
  },
  // Gets the video key from AwaitCompletion: no table. Network throughput grows with memory; the upload itself
  // keeps 2 × 5 MiB parts in flight.
  {
    id: 'TransferVideo',
    trigger: { state: 'TransferVideoFunctionArn' },
    entry: 'functions/workflow/transfer-video.ts',
    timeoutSeconds: 900,
    memoryMb: 1024,
    // Downloads run for minutes each (up to 12 of its 15): 50 finish 50 videos at once.
    reservedConcurrency: 50,
    uses: [
      // Where videos are written (functions/core/use-cases/upstream-completion.ts: `videos/<account>/<task>.mp4`).
      { kind: 'videos', keys: 'videos/*' },
      config(ENV.maxVideoBytes.name, ENV.videoDownloadTimeoutMs.name, ENV.aigcContentPropagator.name),
    ],
  },
  // Queues the completion webhook itself (one message; the state machine's own send was two transitions more).
  {
    id: 'CompleteTask',
    trigger: { state: 'CompleteTaskFunctionArn' },
    entry: 'functions/workflow/complete-task.ts',
    timeoutSeconds: 25,
    reservedConcurrency: 10,
    uses: [taskRepository(['GetItem', 'UpdateItem']), 'videoUrlSigner', webhookQueue],
  },
  {
    id: 'FailAndRefund',
    trigger: { state: 'FailAndRefundFunctionArn' },
    entry: 'functions/workflow/fail-and-refund.ts',
    timeoutSeconds: 25,
    reservedConcurrency: 10,
    uses: ['settle'],
  },

  // Delivers completion webhooks (webhook-dependencies.ts): per-account signing secrets live in the accounts
  // table; retries and hops are new messages, parked ones go to the dead-letter queue.
  {
    id: WEBHOOK_QUEUE.consumer.id,
    trigger: { queue: WEBHOOK_QUEUE.name },
    entry: 'functions/webhooks/deliver-webhook.ts',
    // Its timeout with the queue's settings, which depend on it (functions/adapters/runtime/resources.ts).
    timeoutSeconds: WEBHOOK_QUEUE.consumer.timeoutSeconds,
    // Exactly the event source's MaximumConcurrency: the poller never invokes more, so it is never throttled.
    reservedConcurrency: WEBHOOK_QUEUE.consumer.maxConcurrency,
    uses: [
      taskRepository(['GetItem', 'UpdateItem'], ['GetItem', 'UpdateItem']),
      'videoUrlSigner',
      webhookQueue,
      config(ENV.webhookRetryScheduleSeconds.name),
      // Each POST, a line of the delivery log (docs/webhooks.md, "Delivery log").
      table('webhookDeliveries', 'PutItem'),
    ],
  },
  // Starts each new task's execution from the tasks table's stream (TASK_STARTS; the event source grants the read).
  {
    id: TASK_STARTS.starter.id,
    trigger: { stream: 'tasks' },
    entry: 'functions/workflow/start-executions.ts',
    timeoutSeconds: 30,
    // One batch per stream shard at a time: a handful of shards.
    reservedConcurrency: 5,
    uses: [{ kind: 'executions', start: true, actions: [] }],
  },
  // Restarts executions of stuck tasks; gives back slots that ended tasks still hold, dispatches each waiting room.
  {
    id: 'ReconcileTasks',
    trigger: { everyMinutes: 1 },
    entry: 'functions/workflow/reconcile-tasks.ts',
    timeoutSeconds: 50,
    uses: [
      taskRepository(['UpdateItem']),
      index('tasks', TASKS_IN_FLIGHT_INDEX.name),
      { kind: 'executions', start: true, actions: ['DescribeExecution'] },
      'capacity',
      index('tasks', TASKS_SLOT_HOLDERS_INDEX.name),
      config(ENV.reconcileMinAgeSeconds.name),
    ],
  },
  // Asks Alipay about pending top-ups: a lost notification still credits once; an expired order is closed.
  {
    id: 'SweepTopups',
    bundleBudgetKiB: ALIPAY_SDK_BUNDLE_KIB,
    trigger: { everyMinutes: 1 },
    entry: 'functions/workflow/sweep-topups.ts',
    timeoutSeconds: 50,
    uses: ['topups', index('topups', TOPUPS_PENDING_INDEX.name)],
  },
  // Sends again the webhooks that final tasks still owe, once overdue.
  {
    id: 'RequeueWebhooks',
    trigger: { everyMinutes: 1 },
    entry: 'functions/webhooks/requeue-webhooks.ts',
    timeoutSeconds: 50,
    uses: [
      table('tasks', 'UpdateItem'),
      index('tasks', TASKS_WEBHOOK_PENDING_INDEX.name),
      webhookQueue,
      config(ENV.webhookRequeueAfterSeconds.name),
    ],
  },
];

/** A function's accesses, its groups expanded. */
export function accessesOf(declaration: Pick<FunctionDeclaration, 'uses'>): Access[] {
  return declaration.uses.flatMap((use) => (typeof use === 'string' ? GROUPS[use] : use));
}

/** The variables an access gives (`local`: with the local stack's stand-ins). */
export function variablesOf(access: Access, local = false): string[] {
  switch (access.kind) {
    case 'table':
    case 'index':
      return [TABLES[access.table].envVar];
    case 'videos':
    case 'uploads':
    case 'transcodeUploads':
      return [VIDEO_BUCKET.envVar];
    case 'invokeTranscoder':
      return [UPLOAD_TRANSCODER.envVar];
    case 'executions':
      return [STATE_MACHINE.envVar];
    case 'webhookQueue':
      return [WEBHOOK_QUEUE.envVar];
    case 'taskTokens':
      return [];
    case 'config':
      return access.variables;
    case 'secret':
      return local && access.plain ? [access.variable, access.plain] : [access.variable];
    case 'local':
      return local ? access.variables : [];
  }
}

/** Every variable a function is given (in AWS, or `local`ly), each once. */
export function functionVariables(declaration: Pick<FunctionDeclaration, 'uses'>, local = false): string[] {
  return [...new Set(accessesOf(declaration).flatMap((access) => variablesOf(access, local)))];
}

export function functionById(id: string): FunctionDeclaration {
  const declaration = CATALOG.find((fn) => fn.id === id);
  if (!declaration) throw new Error(`functions/catalog.ts declares no function ${id}`);
  return declaration;
}

/** An HTTP function's method and path. */
export function httpRouteOf(id: string): { method: HttpMethod; path: string } {
  const { trigger } = functionById(id);
  if (!('http' in trigger) || trigger.http === 'default') throw new Error(`${id} is no HTTP route`);
  return trigger.http;
}
