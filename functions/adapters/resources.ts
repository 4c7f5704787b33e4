/**
 * The one description of the service's stateful resources: the handlers find them through the environment
 * variables named here, the local stack creates them in the emulators, the CDK stack declares them.
 */
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS, webhookMaxAttempts } from '../core/webhook.js';
import { ENV } from './config.js';

export interface TableDefinition {
  /** Environment variable through which functions receive the table name. */
  envVar: string;
  partitionKey: string;
  /** Attribute holding an epoch-seconds expiry, when items expire. */
  ttlAttribute?: string;
  /** Global secondary indexes (string keys, all attributes projected). */
  indexes?: readonly { name: string; partitionKey: string; sortKey: string }[];
  /** The table's DynamoDB stream, when something consumes its changes. */
  stream?: 'NEW_IMAGE';
}

/** Finds tasks by state and age: the reconciler's view of what is still in flight. */
export const TASKS_BY_STATUS_INDEX = { name: 'by-status', partitionKey: 'status', sortKey: 'updated_at' } as const;

export const TABLES = {
  accounts: { envVar: ENV.accountsTable.name, partitionKey: 'account_id' },
  apiKeys: { envVar: ENV.apiKeysTable.name, partitionKey: 'key_hash' },
  // Its stream starts each new task's execution (TASK_STARTS).
  tasks: { envVar: ENV.tasksTable.name, partitionKey: 'task_id', indexes: [TASKS_BY_STATUS_INDEX], stream: 'NEW_IMAGE' },
  models: { envVar: ENV.modelsTable.name, partitionKey: 'id' },
  rateLimits: { envVar: ENV.rateLimitsTable.name, partitionKey: 'bucket', ttlAttribute: 'expires_at' },
} as const satisfies Record<string, TableDefinition>;
export type TableId = keyof typeof TABLES;

export const VIDEO_BUCKET = { envVar: ENV.videoBucket.name } as const;

export const STATE_MACHINE = {
  envVar: ENV.stateMachineArn.name,
  name: 'task-lifecycle',
  definitionFile: 'statemachine/task-lifecycle.asl.json',
} as const;

/**
 * Completion webhooks (DESIGN §3 row 19): the state machine sends one message per final task to this
 * queue, the consumer delivers it (retrying by changing the message's visibility), and after its last
 * try the queue's redrive parks it in the dead-letter queue. maxReceiveCount equals the tries of the
 * default schedule: a deployment that sets WEBHOOK_RETRY_SCHEDULE_SECONDS must keep the two in step
 * (webhookMaxAttempts).
 */
export const WEBHOOK_QUEUE = {
  /** Environment variable through which the consumer receives the queue's URL. */
  envVar: ENV.webhookQueueUrl.name,
  name: 'webhooks',
  deadLetterName: 'webhooks-dlq',
  maxReceiveCount: webhookMaxAttempts(DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS),
  /** Six times the consumer's timeout, as AWS advises for an SQS event source. */
  visibilityTimeoutSeconds: 180,
  /** Longer than the whole retry schedule (about 35 h). */
  retentionSeconds: 4 * 24 * 60 * 60,
  consumer: {
    id: 'DeliverWebhook',
    entry: 'functions/webhooks/deliver-webhook.ts',
    timeoutSeconds: 30,
    batchSize: 10,
    /** The handler returns `{ batchItemFailures }`: the event source must have ReportBatchItemFailures. */
    reportBatchItemFailures: true,
  },
} as const;

/**
 * How a new task's execution starts: not from the submit (StartExecution is the slowest call a submit
 * could make, and a submit that failed after its transaction would leave a charged task unstarted) but
 * from the tasks table's stream. The submit's transaction writes the task; Lambda's event source on the
 * stream (in AWS) or lib/local/dynamodb-stream-source.ts (locally) hands each new `pending` task to the
 * starter, which starts the execution named by the task id (a second start of that name is a no-op, so a
 * redelivered record does nothing). A start that never happens (records dropped after the retries, a
 * local restart) is the reconciler's: a pending task without an execution is started once it is older
 * than RECONCILE_MIN_AGE_SECONDS.
 */
export const TASK_STARTS = {
  starter: { id: 'StartExecutions', entry: 'functions/workflow/start-executions.ts', timeoutSeconds: 30 },
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
  };
}

/** The environment a function needs to find every resource above. */
export function resourceEnvironment(names: ReturnType<typeof physicalNames>): Record<string, string> {
  const env: Record<string, string> = { [VIDEO_BUCKET.envVar]: names.videoBucket };
  for (const [id, definition] of Object.entries(TABLES)) env[definition.envVar] = names.tables[id as TableId];
  return env;
}
