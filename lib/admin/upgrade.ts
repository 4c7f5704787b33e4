/**
 * `admin upgrade`: brings the tables to this release's indexes (functions/adapters/resources.ts), then backfills.
 * AWS (upgradeDeployment): DescribeTable each table, planStages, one stateful-stack deploy per stage but the
 * last (`-c tableIndexes=…`), each waited for until ACTIVE; then `cdk deploy --all`. Local stack (upgradeTables):
 * planIndexChanges, each UpdateTable alone. Then each backfill (backfills.ts): a scan, each record a conditional
 * update. A dry run prints the commands and the records to backfill, and changes nothing. docs/operations.md.
 */
import type { DynamoDBClient, TableDescription } from '@aws-sdk/client-dynamodb';
import { DescribeTableCommand, ResourceNotFoundException, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLES } from '../../functions/adapters/resources.js';
import type { TableDefinition, TableId } from '../../functions/adapters/resources.js';
import {
  allReleaseIndexes,
  perTable,
  releaseIndexes,
  TABLE_INDEXES_CONTEXT,
  tableIndexesContext,
} from '../table-indexes.js';
import type { IndexSpec, TableIndexes } from '../table-indexes.js';
import { BACKFILLS } from './backfills.js';
import type { Backfill } from './backfills.js';
import { describeStep, planIndexChanges, planStages } from './index-plan.js';
import type { CurrentIndex, IndexStep } from './index-plan.js';

export interface UpgradeOptions {
  dryRun: boolean;
  /** Indexes project ALL, as the local stack makes them. */
  projectAll: boolean;
  log(line: string): void;
  /** Between two DescribeTable calls while waiting. */
  pollMs?: number;
  /** How long one index may take to build or go (a large table's index builds for hours). */
  waitTimeoutMs?: number;
  /** Between a record's scan and its rewrite: where a test lets a live writer move the record on. */
  beforeRewrite?(record: Record<string, unknown>): Promise<void>;
}

/** Returns how many changes (index steps and rewritten records) it made, or would make in a dry run. */
export async function upgradeTables(
  client: DynamoDBClient,
  db: DynamoDBDocumentClient,
  tables: Record<TableId, string>,
  options: UpgradeOptions,
): Promise<number> {
  let changes = 0;
  for (const [id, definition] of Object.entries(TABLES) as [TableId, TableDefinition][]) {
    const table = await describe(client, tables[id]);
    if (!table) {
      options.log(`${tables[id]}: no such table (the stack's first deploy creates it)`);
      continue;
    }
    const steps = planIndexChanges(currentIndexes(table), releaseIndexes(id, options.projectAll));
    // An UpdateTable on a table that is itself UPDATING is refused: wait for it first.
    if (steps.length > 0 && !options.dryRun) await waitFor(client, tables[id], undefined, 'ACTIVE', options);
    for (const step of steps) {
      options.log(`${options.dryRun ? 'would ' : ''}${describeStep(tables[id], step)}`);
      if (step.kind !== 'wait') changes += 1;
      if (!options.dryRun) await apply(client, tables[id], definition, step, options);
    }
  }
  changes += await backfillAll(db, tables, options);
  options.log(
    changes === 0 ? 'up to date: nothing to do' : `${options.dryRun ? 'would make' : 'made'} ${changes} changes`,
  );
  return changes;
}

type CommonOptions = Omit<UpgradeOptions, 'projectAll'>;

export interface DeploymentOptions extends CommonOptions {
  /** The deployment's prefix: every command names it (`-c prefix=…`), so CDK deploys the stacks of these tables. */
  prefix: string;
  /** Runs one command (`npx cdk deploy …`) in the repository; rejects if it fails. */
  run(command: readonly string[]): Promise<void>;
}

/**
 * Deploys this release over the one in AWS: the stateful stack once per index stage but the last, each with
 * the stage's indexes as context, then `cdk deploy --all`, waiting after each until every index is ACTIVE
 * (CloudFormation may finish before), then the backfills. Returns the deploys and rewrites made (or planned).
 */
export async function upgradeDeployment(
  client: DynamoDBClient,
  db: DynamoDBDocumentClient,
  tables: Record<TableId, string>,
  options: DeploymentOptions,
): Promise<number> {
  const ids = Object.keys(TABLES) as TableId[];
  const settle = async () => {
    for (const id of ids) if (!options.dryRun) await waitFor(client, tables[id], undefined, 'ACTIVE', options);
  };
  await settle();
  const current = {} as Record<TableId, IndexSpec[] | undefined>;
  for (const id of ids) {
    const table = await describe(client, tables[id]);
    current[id] = table && currentIndexes(table).filter((index) => index.status !== 'DELETING');
  }
  const stages = planStages(current, allReleaseIndexes());
  const verb = options.dryRun ? 'would run' : 'running';
  let before: TableIndexes = perTable((id) => current[id] ?? []);
  for (const [n, stage] of stages.entries()) {
    const last = n === stages.length - 1;
    const command = last
      ? deployAll(options.prefix)
      : [
          ...['npx', 'cdk', 'deploy', `${options.prefix}-stateful`, '--exclusively', '--require-approval', 'never'],
          ...['-c', `prefix=${options.prefix}`, '-c', `${TABLE_INDEXES_CONTEXT}=${tableIndexesContext(stage)}`],
        ];
    options.log(`stage ${n + 1} of ${stages.length}: ${stageChanges(tables, before, stage).join('; ')}`);
    options.log(`${verb}: ${command.map(shellQuote).join(' ')}`);
    if (!options.dryRun) {
      await options.run(command);
      await settle();
    }
    before = stage;
  }
  if (stages.length === 0) {
    const command = deployAll(options.prefix);
    options.log(`indexes up to date; ${verb}: ${command.join(' ')}`);
    if (!options.dryRun) await options.run(command);
  }
  const changes = stages.length + (await backfillAll(db, tables, options));
  options.log(
    `${options.dryRun ? 'would make' : 'made'} ${stages.length} index stages and ${changes - stages.length} record rewrites`,
  );
  return changes;
}

/** The release's plain deploy, as docs/operations.md has it, naming the prefix. */
function deployAll(prefix: string): string[] {
  return ['npx', 'cdk', 'deploy', '--all', '-c', `prefix=${prefix}`];
}

/** What one stage does, per table: `vgs-tasks: create index in-flight`. */
function stageChanges(tables: Record<TableId, string>, before: TableIndexes, after: TableIndexes): string[] {
  const lines: string[] = [];
  for (const id of Object.keys(after) as TableId[]) {
    const had = new Map(before[id].map((index) => [index.name, index]));
    const has = new Map(after[id].map((index) => [index.name, index]));
    for (const name of had.keys()) if (!has.has(name)) lines.push(`${tables[id]}: delete index ${name}`);
    for (const [name, index] of has) {
      if (!had.has(name)) lines.push(describeStep(tables[id], { kind: 'create', index }));
    }
  }
  return lines.length > 0 ? lines : ['no index change'];
}

function shellQuote(part: string): string {
  return /^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`;
}

async function backfillAll(db: DynamoDBDocumentClient, tables: Record<TableId, string>, options: CommonOptions) {
  let rewritten = 0;
  for (const backfill of BACKFILLS) rewritten += await runBackfill(db, tables[backfill.table], backfill, options);
  return rewritten;
}

async function describe(client: DynamoDBClient, table: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: table }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

function currentIndexes(table: TableDescription): CurrentIndex[] {
  return (table.GlobalSecondaryIndexes ?? []).map((index) => {
    const key = (type: 'HASH' | 'RANGE') => index.KeySchema?.find((part) => part.KeyType === type)?.AttributeName ?? '';
    const projection = index.Projection;
    return {
      name: index.IndexName ?? '',
      partitionKey: key('HASH'),
      sortKey: key('RANGE'),
      ...(projection?.ProjectionType === 'ALL' ? {} : { nonKeyAttributes: [...(projection?.NonKeyAttributes ?? [])] }),
      status: (index.IndexStatus ?? 'ACTIVE') as CurrentIndex['status'],
    };
  });
}

async function apply(
  client: DynamoDBClient,
  table: string,
  definition: TableDefinition,
  step: IndexStep,
  options: UpgradeOptions,
): Promise<void> {
  switch (step.kind) {
    case 'delete':
      await client.send(
        new UpdateTableCommand({
          TableName: table,
          GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: step.index } }],
        }),
      );
      return;
    case 'create': {
      const { name, partitionKey, sortKey, nonKeyAttributes } = step.index;
      const keys = new Set([
        definition.partitionKey,
        ...(definition.sortKey ? [definition.sortKey] : []),
        partitionKey,
        sortKey,
      ]);
      await client.send(
        new UpdateTableCommand({
          TableName: table,
          AttributeDefinitions: [...keys].map((attribute) => ({ AttributeName: attribute, AttributeType: 'S' })),
          GlobalSecondaryIndexUpdates: [
            {
              Create: {
                IndexName: name,
                KeySchema: [
                  { AttributeName: partitionKey, KeyType: 'HASH' },
                  { AttributeName: sortKey, KeyType: 'RANGE' },
                ],
                Projection: nonKeyAttributes
                  ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...nonKeyAttributes] }
                  : { ProjectionType: 'ALL' },
              },
            },
          ],
        }),
      );
      return;
    }
    case 'wait':
      await waitFor(client, table, step.index, step.until, options);
  }
}

/**
 * Polls until the table is ACTIVE and the index (if named) is ACTIVE or gone; unnamed, until every index is
 * ACTIVE (none being built or deleted). A table that does not exist has nothing to wait for.
 */
async function waitFor(
  client: DynamoDBClient,
  table: string,
  index: string | undefined,
  until: 'ACTIVE' | 'gone',
  options: CommonOptions,
): Promise<void> {
  const deadline = Date.now() + (options.waitTimeoutMs ?? 12 * 60 * 60 * 1000);
  for (;;) {
    const description = await describe(client, table);
    if (!description) return;
    const indexes = description.GlobalSecondaryIndexes ?? [];
    const found = indexes.find((candidate) => candidate.IndexName === index);
    const busy = indexes.find((candidate) => candidate.IndexStatus !== 'ACTIVE');
    const indexDone =
      index === undefined ? !busy : until === 'gone' ? found === undefined : found?.IndexStatus === 'ACTIVE';
    if (indexDone && description.TableStatus === 'ACTIVE') return;
    if (Date.now() > deadline) {
      const what = index === undefined ? busy?.IndexName : index;
      const status = (index === undefined ? busy : found)?.IndexStatus ?? description.TableStatus;
      throw new Error(`${table}: index ${what} is still ${status}; run the upgrade again later`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 5000));
  }
}

/** A paged scan for the records the backfill names, each updated under the same condition; returns the count. */
async function runBackfill(db: DynamoDBDocumentClient, table: string, backfill: Backfill, options: CommonOptions) {
  let rewritten = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: backfill.filter,
        ExpressionAttributeNames: backfill.names,
        ExpressionAttributeValues: backfill.values,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const record of page.Items ?? []) {
      if (!options.dryRun) {
        await options.beforeRewrite?.(record);
        if (!(await rewrite(db, table, backfill, record))) continue;
      }
      rewritten += 1;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  if (rewritten > 0) {
    options.log(
      `${options.dryRun ? 'would backfill' : 'backfilled'} ${rewritten} record${rewritten === 1 ? '' : 's'} of ${table} for index ${backfill.index}`,
    );
  }
  return rewritten;
}

async function rewrite(db: DynamoDBDocumentClient, table: string, backfill: Backfill, record: Record<string, unknown>) {
  const keys = Object.entries(backfill.keys(record));
  const definition: TableDefinition = TABLES[backfill.table];
  const keyNames = [definition.partitionKey, ...(definition.sortKey ? [definition.sortKey] : [])];
  const key = Object.fromEntries(keyNames.map((name) => [name, record[name]]));
  try {
    await db.send(
      new UpdateCommand({
        TableName: table,
        Key: key,
        UpdateExpression: `SET ${keys.map((_, n) => `#set${n} = :set${n}`).join(', ')}`,
        ConditionExpression: backfill.filter,
        ExpressionAttributeNames: {
          ...backfill.names,
          ...Object.fromEntries(keys.map(([name], n) => [`#set${n}`, name])),
        },
        ExpressionAttributeValues: {
          ...backfill.values,
          ...Object.fromEntries(keys.map(([, value], n) => [`:set${n}`, value])),
        },
      }),
    );
    return true;
  } catch (error) {
    // The record moved on since the scan (finished, delivered): it needs nothing now.
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
