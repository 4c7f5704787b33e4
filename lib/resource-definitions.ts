/**
 * The one description of the service's stateful resources, used by the local stack (to create them in
 * the emulators) and by the CDK stack (to declare them). Handlers learn the physical names from the
 * environment variables named here.
 */
export interface TableDefinition {
  /** Environment variable through which functions receive the table name. */
  envVar: string;
  partitionKey: string;
  /** Attribute holding an epoch-seconds expiry, when items expire. */
  ttlAttribute?: string;
}

export const TABLES = {
  accounts: { envVar: 'ACCOUNTS_TABLE', partitionKey: 'account_id' },
  apiKeys: { envVar: 'API_KEYS_TABLE', partitionKey: 'key_hash' },
  tasks: { envVar: 'TASKS_TABLE', partitionKey: 'task_id' },
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

/** Physical names for one deployment (or one local run): `<prefix>-<logical name>`. */
export function physicalNames(prefix: string) {
  const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const tables = Object.fromEntries(Object.keys(TABLES).map((id) => [id, `${prefix}-${kebab(id)}`])) as Record<
    TableId,
    string
  >;
  return { tables, videoBucket: `${prefix}-videos`, stateMachine: `${prefix}-${STATE_MACHINE.name}` };
}

/** The environment a function needs to find every resource above. */
export function resourceEnvironment(names: ReturnType<typeof physicalNames>): Record<string, string> {
  const env: Record<string, string> = { [VIDEO_BUCKET.envVar]: names.videoBucket };
  for (const [id, definition] of Object.entries(TABLES)) env[definition.envVar] = names.tables[id as TableId];
  return env;
}
