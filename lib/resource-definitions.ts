/**
 * The one description of the service's stateful resources, used by the local stack (to create them in
 * the emulators) and by the CDK stack (to declare them). Handlers learn the physical names from the
 * environment variables named here.
 */
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS, webhookMaxAttempts } from '../functions/core/webhook.js';

export interface TableDefinition {
  /** Environment variable through which functions receive the table name. */
  envVar: string;
  partitionKey: string;
  /** Attribute holding an epoch-seconds expiry, when items expire. */
  ttlAttribute?: string;
  /** Global secondary indexes (string keys, all attributes projected). */
  indexes?: readonly { name: string; partitionKey: string; sortKey: string }[];
}

/** Finds tasks by state and age: the reconciler's view of what is still in flight. */
export const TASKS_BY_STATUS_INDEX = { name: 'by-status', partitionKey: 'status', sortKey: 'updated_at' } as const;

export const TABLES = {
  accounts: { envVar: 'ACCOUNTS_TABLE', partitionKey: 'account_id' },
  apiKeys: { envVar: 'API_KEYS_TABLE', partitionKey: 'key_hash' },
  tasks: { envVar: 'TASKS_TABLE', partitionKey: 'task_id', indexes: [TASKS_BY_STATUS_INDEX] },
  models: { envVar: 'MODELS_TABLE', partitionKey: 'id' },
  rateLimits: { envVar: 'RATE_LIMITS_TABLE', partitionKey: 'bucket', ttlAttribute: 'expires_at' },
} as const satisfies Record<string, TableDefinition>;
export type TableId = keyof typeof TABLES;

export const VIDEO_BUCKET = { envVar: 'VIDEO_BUCKET' } as const;

export const STATE_MACHINE = {
  envVar: 'STATE_MACHINE_ARN',
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
  envVar: 'WEBHOOK_QUEUE_URL',
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
  };
}

/** The environment a function needs to find every resource above. */
export function resourceEnvironment(names: ReturnType<typeof physicalNames>): Record<string, string> {
  const env: Record<string, string> = { [VIDEO_BUCKET.envVar]: names.videoBucket };
  for (const [id, definition] of Object.entries(TABLES)) env[definition.envVar] = names.tables[id as TableId];
  return env;
}
