/**
 * The one description of the service's stateful resources: the handlers find them through the environment
 * variables named here, the local stack creates them in the emulators, the CDK stack declares them.
 */
import { ENV } from './config.js';

export interface TableDefinition {
  /** Environment variable through which functions receive the table name. */
  envVar: string;
  partitionKey: string;
  /** The table's sort key (string), when items share a partition in order. */
  sortKey?: string;
  /** Attribute holding an epoch-seconds expiry, when items expire. */
  ttlAttribute?: string;
  /** Global secondary indexes (string keys; all attributes projected unless `nonKeyAttributes` lists some). */
  indexes?: readonly { name: string; partitionKey: string; sortKey: string; nonKeyAttributes?: readonly string[] }[];
  /** The table's DynamoDB stream, when something consumes its changes. */
  stream?: 'NEW_IMAGE';
}

/**
 * The reconciler's view of what is still in flight, oldest touch first. Sparse: only a task not yet final carries
 * `in_flight_shard` (its final move removes it), so the index holds the few tasks in flight, not every task ever
 * ("Take advantage of sparse indexes", DynamoDB guide). That key is one of `shards` values taken from the task id:
 * a GSI partition that takes every task's writes throttles the table's writes, the submit's included ("GSI write
 * throttling and back pressure"), and spreading the key is AWS's remedy ("Using write sharding"). The reconciler
 * queries every shard. It projects only what the reconciler reads, so a task's other writes never touch the index.
 * A new index name, not a changed `by-status`: an existing table gets it added.
 */
export const TASKS_IN_FLIGHT_INDEX = {
  name: 'in-flight',
  partitionKey: 'in_flight_shard',
  sortKey: 'updated_at',
  nonKeyAttributes: ['status', 'execution_name', 'restarts'],
  shards: 16,
} as const;

/**
 * Tasks whose completion webhook is still owed (pendingWebhookKeys in functions/core/webhook.ts): sparse, as
 * its keys are set at submit and removed once the webhook is delivered or failed; its partition key is one
 * of 16 shards of the task id (the same two remedies as the in-flight index). The requeuer
 * (functions/core/use-cases/requeue-webhooks.ts) filters on the two projected attributes: the index is
 * written when they or its keys change, never for the rest of a task's writes. DynamoDB takes one GSI change
 * per table update: `admin upgrade` deploys index changes one per table per deploy (docs/operations.md, "Upgrades").
 */
export const TASKS_WEBHOOK_PENDING_INDEX = {
  name: 'webhook-pending',
  partitionKey: 'webhook_pending',
  sortKey: 'webhook_due_at',
  nonKeyAttributes: ['status', 'updated_at'],
} as const;

/**
 * Tasks holding an upstream slot (docs/upstream-capacity.md), by account: sparse, as only a task holding a slot carries
 * `upstream_slot` (given back when its job is final). The reconciler finds here a slot left by a crash between
 * a task's end and the slot's release. At most a few hundred tasks per account.
 */
export const TASKS_SLOT_HOLDERS_INDEX = {
  name: 'slot-holders',
  partitionKey: 'upstream_slot',
  sortKey: 'updated_at',
  nonKeyAttributes: ['status'],
} as const;

/**
 * The ledger's newest-first listing (docs/money-and-ledger.md, "Ledger"). The table's key is (account_id, entry_id) with an
 * entry id from the entry's cause (`charge:<task>`), so a conditional put makes each movement at most once;
 * an id from a cause does not sort by time, hence this index on `listed_at` (`<created_at>#<entry id>`). A GSI
 * rather than an LSI: no 10 GB cap on an account's entries, and a listing may lag its write by a moment.
 */
export const LEDGER_BY_TIME_INDEX = { name: 'by-time', partitionKey: 'account_id', sortKey: 'listed_at' } as const;

/**
 * An account's tasks, newest first (GET /api/v1/video/tasks, docs/api-contract.md, "Listing tasks"). Keyed by what every task already
 * holds (`account_id`, `created_at`), so tasks stored before the index exist are listed too; ties in `created_at`
 * are ordered by the table key, which every page's cursor carries. It projects what a Task view is made of
 * (TaskViewSource in functions/core/task.ts) plus `video_key` (to re-sign an expired URL), nothing else: a task's
 * other writes (`updated_at`, wake tokens, slots) never touch the index.
 */
export const TASKS_BY_ACCOUNT_INDEX = {
  name: 'by-account',
  partitionKey: 'account_id',
  sortKey: 'created_at',
  nonKeyAttributes: [
    'status',
    'cost_units',
    'generation',
    'finished_at',
    'error_message',
    'video_key',
    'video_url',
    'video_url_expires_at',
    'webhook_state',
    'webhook_attempts',
    'webhook_last_status_code',
    'webhook_last_error',
    'webhook_last_attempt_at',
    'webhook_delivered_at',
  ],
} as const;

/**
 * One key's tasks, newest first (the console's Tasks page filtered by key, docs/console.md). Keyed by what every
 * task holds (`key_hash`, `created_at`); a new index rather than a changed `by-account`, since DynamoDB cannot change
 * an index's projection and takes one index change per table update. It projects what `by-account` does, and
 * `account_id`, which the list checks.
 */
export const TASKS_BY_KEY_INDEX = {
  name: 'by-key',
  partitionKey: 'key_hash',
  sortKey: 'created_at',
  nonKeyAttributes: ['account_id', ...TASKS_BY_ACCOUNT_INDEX.nonKeyAttributes],
} as const;

/** An account's API keys, oldest first (the console's key list, docs/console.md): a few per account, every attribute. */
export const API_KEYS_BY_ACCOUNT_INDEX = {
  name: 'by-account',
  partitionKey: 'account_id',
  sortKey: 'created_at',
} as const;

/** An account's top-up orders, newest first (docs/money-and-ledger.md, "Top-ups"). */
export const TOPUPS_BY_ACCOUNT_INDEX = {
  name: 'by-account',
  partitionKey: 'account_id',
  sortKey: 'created_at',
} as const;
/** Orders still pending, by expiry: sparse, as only a pending order carries `pending` (the sweep reads it). */
export const TOPUPS_PENDING_INDEX = { name: 'pending', partitionKey: 'pending', sortKey: 'expires_at' } as const;

/** One task's webhook deliveries, newest first (`delivery_id` sorts by time). */
export const WEBHOOK_DELIVERIES_BY_TASK_INDEX = {
  name: 'by-task',
  partitionKey: 'task_id',
  sortKey: 'delivery_id',
} as const;

export const TABLES = {
  accounts: { envVar: ENV.accountsTable.name, partitionKey: 'account_id' },
  apiKeys: { envVar: ENV.apiKeysTable.name, partitionKey: 'key_hash', indexes: [API_KEYS_BY_ACCOUNT_INDEX] },
  // Its stream starts each new task's execution (TASK_STARTS).
  tasks: {
    envVar: ENV.tasksTable.name,
    partitionKey: 'task_id',
    indexes: [
      TASKS_IN_FLIGHT_INDEX,
      TASKS_WEBHOOK_PENDING_INDEX,
      TASKS_SLOT_HOLDERS_INDEX,
      TASKS_BY_ACCOUNT_INDEX,
      TASKS_BY_KEY_INDEX,
    ],
    stream: 'NEW_IMAGE',
  },
  models: { envVar: ENV.modelsTable.name, partitionKey: 'id' },
  rateLimits: { envVar: ENV.rateLimitsTable.name, partitionKey: 'bucket', ttlAttribute: 'expires_at' },
  // Upstream accounts (`<provider>#<name>`): capacity and slots in use (docs/upstream-capacity.md).
  upstreamAccounts: { envVar: ENV.upstreamAccountsTable.name, partitionKey: 'id' },
  // The waiting room: per provider, in submit order; read consistently (a GSI could lag behind a wake).
  upstreamQueue: { envVar: ENV.upstreamQueueTable.name, partitionKey: 'provider', sortKey: 'position' },
  // Every balance movement, immutable, written in the movement's own transaction (LEDGER_BY_TIME_INDEX).
  ledger: {
    envVar: ENV.ledgerTable.name,
    partitionKey: 'account_id',
    sortKey: 'entry_id',
    indexes: [LEDGER_BY_TIME_INDEX],
  },
  // Idempotency-Key records (docs/api-contract.md, "Idempotency-Key"), kept 24 h: `expires_at` is also checked on read (TTL lags).
  idempotency: { envVar: ENV.idempotencyTable.name, partitionKey: 'id', ttlAttribute: 'expires_at' },
  // Customer uploads (docs/api-contract.md, "Uploads"): TTL removes a record some time after its expires_at, which is enforced.
  uploads: { envVar: ENV.uploadsTable.name, partitionKey: 'upload_id', ttlAttribute: 'ttl' },
  // Console sign-ins (docs/console.md): a Cognito user's `sub` → its account. No password or token is stored.
  consoleUsers: { envVar: ENV.consoleUsersTable.name, partitionKey: 'sub' },
  // Top-up codes (admin code:create), by the SHA-256 of the code: single use, redeemed in the ledger's transaction.
  redeemCodes: { envVar: ENV.redeemCodesTable.name, partitionKey: 'code_hash' },
  // Top-up orders (docs/money-and-ledger.md, "Top-ups"): paid once, in the ledger entry's transaction.
  topups: {
    envVar: ENV.topupsTable.name,
    partitionKey: 'topup_id',
    indexes: [TOPUPS_BY_ACCOUNT_INDEX, TOPUPS_PENDING_INDEX],
  },
  // Every webhook POST, kept 30 days (docs/webhooks.md, "Delivery log"): an account's newest first by its key,
  // one task's through WEBHOOK_DELIVERIES_BY_TASK_INDEX.
  webhookDeliveries: {
    envVar: ENV.webhookDeliveriesTable.name,
    partitionKey: 'account_id',
    sortKey: 'delivery_id',
    ttlAttribute: 'expires_at',
    indexes: [WEBHOOK_DELIVERIES_BY_TASK_INDEX],
  },
} as const satisfies Record<string, TableDefinition>;
export type TableId = keyof typeof TABLES;

export const VIDEO_BUCKET = { envVar: ENV.videoBucket.name } as const;

/**
 * Customer uploads live in the video bucket under this prefix (functions/core/uploads.ts names the keys), with
 * whatever is derived from them; the bucket's lifecycle rule deletes them after `expireAfterDays` (S3 counts
 * whole days, so 48 h becomes 2 days), and the local stack's sweep does the same.
 */
export const UPLOADS = { prefix: 'uploads/', expireAfterDays: 2 } as const;

export const STATE_MACHINE = {
  envVar: ENV.stateMachineArn.name,
  name: 'task-lifecycle',
  definitionFile: 'statemachine/task-lifecycle.asl.json',
} as const;

/**
 * Completion webhooks (docs/webhooks.md): the state machine sends one message per final task to this
 * queue, and the consumer delivers it. A retry is a new message sent with a timer (at most 15 min; a longer
 * wait hops, see MAX_MESSAGE_DELAY_SECONDS) while the received one is deleted, so a waiting retry is never
 * in flight (a standard queue allows about 120,000 in flight: "Amazon SQS standard queue quotas"). The try
 * count lives on the task; after the last try the task's webhook is `failed` and the consumer itself parks
 * the message in the dead-letter queue. The redrive only catches a message its consumer keeps failing on.
 */
export const WEBHOOK_QUEUE = {
  /** Environment variable through which the consumer receives the queue's URL. */
  envVar: ENV.webhookQueueUrl.name,
  name: 'webhooks',
  deadLetterName: 'webhooks-dlq',
  /**
   * Receives of one message before the redrive parks it. A message comes back only when its consumer failed
   * on it (a crash, a timeout, DynamoDB unavailable), never for a retry, and the event source's
   * MaximumConcurrency keeps throttles from counting: five such failures make a message worth a look.
   */
  maxReceiveCount: 5,
  /** Six times the consumer's timeout, as AWS advises for an SQS event source. */
  visibilityTimeoutSeconds: 180,
  /** A message waits 15 min at most; four days leave room for a consumer outage. */
  retentionSeconds: 4 * 24 * 60 * 60,
  /** Its function (functions/catalog.ts); the queue's visibility timeout and the claim depend on its timeout. */
  consumer: {
    id: 'DeliverWebhook',
    timeoutSeconds: 30,
    batchSize: 10,
    /** The handler returns `{ batchItemFailures }`: the event source must have ReportBatchItemFailures. */
    reportBatchItemFailures: true,
    /**
     * The event source's MaximumConcurrency (ScalingConfig, 2 to 1000: "Configuring scaling behavior for SQS
     * event source mappings", Lambda developer guide), so a burst of webhooks cannot take the account's
     * Lambda concurrency (1,000 by default). 50 batches of 10 keep up with about 33 tries a second that each
     * hang for the sender's whole 15 s. The local event source runs as many batches at once.
     */
    maxConcurrency: 50,
  },
} as const;

/**
 * The dead-letter queue's URL, from the queue's: both are named from one prefix (physicalNames) in one
 * account and region, so the consumer needs no second variable to park a message there.
 */
export function webhookDeadLetterQueueUrl(queueUrl: string): string {
  const suffix = `-${WEBHOOK_QUEUE.name}`;
  if (!queueUrl.endsWith(suffix)) throw new Error(`${queueUrl} is not a webhook queue URL (ending ${suffix})`);
  return `${queueUrl.slice(0, -WEBHOOK_QUEUE.name.length)}${WEBHOOK_QUEUE.deadLetterName}`;
}

/**
 * How a new task's execution starts: not from the submit (StartExecution is the slowest call a submit
 * could make, and a submit that failed after its transaction would leave a charged task unstarted) but
 * from the tasks table's stream. The submit's transaction writes the task; Lambda's event source on the
 * stream (in AWS) or lib/dev/local/dynamodb-stream-source.ts (locally) hands each new `pending` task to the
 * starter, which starts the execution named by the task id (a second start of that name is a no-op, so a
 * redelivered record does nothing). A start that never happens (records dropped after the retries, a
 * local restart) is the reconciler's: a pending task without an execution is started once it is older
 * than RECONCILE_MIN_AGE_SECONDS.
 */
export const TASK_STARTS = {
  /** Its function (functions/catalog.ts). */
  starter: { id: 'StartExecutions' },
  /** Lambda's filter criteria, applied alike by the local event source: a task created as pending, nothing else. */
  filterPattern: { eventName: ['INSERT'], dynamodb: { NewImage: { status: { S: ['pending'] } } } },
  /**
   * Records per invocation (their StartExecutions run at once: ten stay well inside the API's burst), and how
   * long the event source may wait to fill a batch.
   */
  batchSize: 10,
  maxBatchingWindowSeconds: 0,
  /** A failing batch is retried, halved each time (bisect), this many times; then left to the reconciler. */
  retryAttempts: 8,
  /** Records older than this are left to the reconciler too. */
  maxRecordAgeSeconds: 3600,
  /** The handler returns `{ batchItemFailures }`: the event source must have ReportBatchItemFailures. */
  reportBatchItemFailures: true,
  /**
   * Where the event source reports a batch it gave up on (its shard and sequence range, not the records):
   * those tasks wait for the reconciler, and the queue's alarm says that happened.
   */
  deadLetterName: 'task-starts-dlq',
} as const;

/**
 * The function that decodes untrusted media (docs/security.md, "Untrusted media"; declared in
 * functions/catalog.ts): PrepareInputs invokes it for each uploaded video, and waits as long as its timeout,
 * which holds the transcode (TRANSCODE_TIMEOUT_MS in its handler) and two copies of a 50 MB file.
 */
export const UPLOAD_TRANSCODER = {
  id: 'TranscodeUpload',
  envVar: ENV.transcoderFunction.name,
  timeoutSeconds: 130,
} as const;

/** The prefix of a deployment's names when CDK context `prefix` is unset. */
export const DEFAULT_PREFIX = 'vgs';

/** Physical names for one deployment (or one local run): `<prefix>-<logical name>`. */
export function physicalNames(prefix: string) {
  const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const tables = Object.fromEntries(Object.keys(TABLES).map((id) => [id, `${prefix}-${kebab(id)}`])) as Record<
    TableId,
    string
  >;
  return {
    tables,
    videoBucket: `${prefix}-videos`,
    stateMachine: `${prefix}-${STATE_MACHINE.name}`,
    webhookQueue: `${prefix}-${WEBHOOK_QUEUE.name}`,
    webhookDeadLetterQueue: `${prefix}-${WEBHOOK_QUEUE.deadLetterName}`,
    taskStartsDeadLetterQueue: `${prefix}-${TASK_STARTS.deadLetterName}`,
    transcoderFunction: `${prefix}-${UPLOAD_TRANSCODER.id}`,
  };
}

/** The environment a function needs to find every resource above. */
export function resourceEnvironment(names: ReturnType<typeof physicalNames>): Record<string, string> {
  const env: Record<string, string> = {
    [VIDEO_BUCKET.envVar]: names.videoBucket,
    [UPLOAD_TRANSCODER.envVar]: names.transcoderFunction,
  };
  for (const [id, definition] of Object.entries(TABLES)) env[definition.envVar] = names.tables[id as TableId];
  return env;
}
