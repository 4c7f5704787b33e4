/**
 * `admin upgrade` on DynamoDB Local, over tables as the previous schema made them (the tasks table with only
 * `by-status`, no ledger or key index) holding records written before the new indexes: after one run every
 * index is ACTIVE and the records are found through them; a second run changes nothing. In AWS's mode the
 * deploys it runs go to a stand-in for CloudFormation that applies each template's index changes here.
 */
import { CreateTableCommand, DescribeTableCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  API_KEYS_BY_ACCOUNT_INDEX,
  LEDGER_BY_TIME_INDEX,
  physicalNames,
  TABLES,
  TASKS_BY_ACCOUNT_INDEX,
  TASKS_IN_FLIGHT_INDEX,
  TASKS_SLOT_HOLDERS_INDEX,
} from '../../functions/adapters/runtime/resources.js';
import type { TableDefinition, TableId } from '../../functions/adapters/runtime/resources.js';
import { runAdmin } from '../../lib/ship/admin/cli.js';
import { upgradeDeployment } from '../../lib/ship/admin/upgrade-deployment.js';
import { upgradeTables } from '../../lib/ship/admin/upgrade.js';
import { allReleaseIndexes, TABLE_INDEXES_CONTEXT, tableIndexesFromContext } from '../../lib/ship/table-indexes.js';
import type { IndexSpec, TableIndexes } from '../../lib/ship/table-indexes.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { taskRecord } from '../support/task-records.js';

const local = useDynamoDbLocal('upgrade');
const ACCOUNT = 'acct-upgrade';

/** Every table as the previous schema made it: no indexes but the tasks table's `by-status` (ALL). */
async function previousTables(prefix: string): Promise<Record<TableId, string>> {
  return (await previousDeployment(prefix)).tables;
}

async function previousDeployment(name: string): Promise<{ prefix: string; tables: Record<TableId, string> }> {
  const prefix = `${name}-${randomUUID().slice(0, 8)}`;
  const names = physicalNames(prefix).tables;
  for (const [id, definition] of Object.entries(TABLES) as [TableId, TableDefinition][]) {
    const keys = [definition.partitionKey, ...(definition.sortKey ? [definition.sortKey] : [])];
    const byStatus = id === 'tasks';
    await local.client.send(
      new CreateTableCommand({
        TableName: names[id],
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...keys, ...(byStatus ? ['status', 'updated_at'] : [])].map((name) => ({
          AttributeName: name,
          AttributeType: 'S',
        })),
        KeySchema: keys.map((name, n) => ({ AttributeName: name, KeyType: n === 0 ? 'HASH' : 'RANGE' })),
        ...(byStatus && {
          GlobalSecondaryIndexes: [
            {
              IndexName: 'by-status',
              KeySchema: [
                { AttributeName: 'status', KeyType: 'HASH' },
                { AttributeName: 'updated_at', KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'ALL' },
            },
          ],
        }),
      }),
    );
  }
  return { prefix, tables: names };
}

/** Records the previous release wrote: in-flight and webhook-owing tasks without the sparse indexes' keys. */
async function previousRecords(tables: Record<TableId, string>) {
  const id = () => randomUUID();
  const tasks = {
    pending: taskRecord({ task_id: id(), account_id: ACCOUNT, status: 'pending' }),
    owing: taskRecord({
      task_id: id(),
      account_id: ACCOUNT,
      status: 'running',
      upstream_slot: 'ark#main',
      generation: { webhookUrl: 'https://hooks.example.com/done' },
    }),
    delivered: taskRecord({
      task_id: id(),
      account_id: ACCOUNT,
      status: 'success',
      finished_at: '2026-11-21T10:05:00.000Z',
      webhook_state: 'delivered',
      generation: { webhookUrl: 'https://hooks.example.com/done' },
    }),
  };
  for (const task of Object.values(tasks)) await local.db.send(new PutCommand({ TableName: tables.tasks, Item: task }));
  await local.db.send(
    new PutCommand({
      TableName: tables.ledger,
      Item: {
        account_id: ACCOUNT,
        entry_id: `charge:${tasks.pending.task_id}`,
        listed_at: '2026-11-21T09:59:00.000Z#c',
      },
    }),
  );
  await local.db.send(
    new PutCommand({
      TableName: tables.apiKeys,
      Item: { key_hash: id(), key_id: 'key_1', account_id: ACCOUNT, created_at: '2026-11-21T09:00:00.000Z' },
    }),
  );
  return tasks;
}

async function query(table: string, index: string, key: string, value: string) {
  const { Items } = await local.db.send(
    new QueryCommand({
      TableName: table,
      IndexName: index,
      KeyConditionExpression: '#key = :value',
      ExpressionAttributeNames: { '#key': key },
      ExpressionAttributeValues: { ':value': value },
    }),
  );
  return (Items ?? []).map((item) => item['task_id'] ?? item['entry_id'] ?? item['key_id']);
}

async function indexesOf(table: string) {
  const { Table } = await local.client.send(new DescribeTableCommand({ TableName: table }));
  return (Table?.GlobalSecondaryIndexes ?? [])
    .map((index) => ({
      name: index.IndexName,
      status: index.IndexStatus,
      projection: index.Projection?.ProjectionType,
    }))
    .sort((a, b) => a.name!.localeCompare(b.name!));
}

describe('admin upgrade', () => {
  it('stages the new indexes, and a second run does nothing', async () => {
    const tables = await previousTables('aws-shape');
    const tasks = await previousRecords(tables);
    const lines: string[] = [];
    // A wait that never ends fails naming the index and its status, instead of holding the run.
    const options = { projectAll: false, pollMs: 50, waitTimeoutMs: 120_000, log: (line: string) => lines.push(line) };

    const planned = await upgradeTables(local.client, tables, { ...options, dryRun: true });
    expect(lines).toContain(`would ${tables.tasks}: delete index by-status`);
    // by-status out; 5 tasks, 1 ledger, 1 key, 2 top-up and 1 delivery-log indexes in.
    expect(planned).toBe(1 + 5 + 1 + 1 + 2 + 1);
    expect(await indexesOf(tables.tasks)).toEqual([{ name: 'by-status', status: 'ACTIVE', projection: 'ALL' }]);

    lines.length = 0;
    expect(await upgradeTables(local.client, tables, { ...options, dryRun: false })).toBe(planned);
    for (const [id, definition] of Object.entries(TABLES) as [TableId, TableDefinition][]) {
      expect(await indexesOf(tables[id]), id).toEqual(
        (definition.indexes ?? [])
          .map((index) => ({
            name: index.name,
            status: 'ACTIVE',
            projection: index.nonKeyAttributes ? 'INCLUDE' : 'ALL',
          }))
          .sort((a, b) => a.name.localeCompare(b.name)),
      );
    }
    expect(await query(tables.tasks, TASKS_SLOT_HOLDERS_INDEX.name, 'upstream_slot', 'ark#main')).toEqual([
      tasks.owing.task_id,
    ]);
    expect((await query(tables.tasks, TASKS_BY_ACCOUNT_INDEX.name, 'account_id', ACCOUNT)).sort()).toEqual(
      Object.values(tasks)
        .map((task) => task.task_id)
        .sort(),
    );
    expect(await query(tables.ledger, LEDGER_BY_TIME_INDEX.name, 'account_id', ACCOUNT)).toHaveLength(1);
    expect(await query(tables.apiKeys, API_KEYS_BY_ACCOUNT_INDEX.name, 'account_id', ACCOUNT)).toEqual(['key_1']);

    lines.length = 0;
    expect(await upgradeTables(local.client, tables, { ...options, dryRun: false })).toBe(0);
    expect(lines).toEqual(['up to date: nothing to do']);
  });

  it('runs as `npm run admin -- upgrade` against the local stack, printing each step', async () => {
    const tables = await previousTables('local-shape');
    await previousRecords(tables);
    const dataDir = mkdtempSync(join(tmpdir(), 'upgrade-'));
    writeFileSync(
      join(dataDir, 'local-stack.json'),
      JSON.stringify({ endpoints: { dynamodb: local.dynamo.endpoint }, names: { tables } }),
    );
    const saved = process.env['DATA_DIR'];
    process.env['DATA_DIR'] = dataDir;
    try {
      const run = async (...argv: string[]) => {
        const out: string[] = [];
        const code = await runAdmin(argv, { out: (line) => out.push(line), err: () => {} });
        return { code, out };
      };
      const dry = await run('upgrade', '--dry-run');
      expect(dry.code).toBe(0);
      expect(dry.out).toContain(`would ${tables.tasks}: delete index by-status`);
      const done = await run('upgrade');
      expect(done.code).toBe(0);
      expect(done.out).toContain(
        `${tables.tasks}: create index ${TASKS_IN_FLIGHT_INDEX.name} (in_flight_shard, updated_at; ALL)`,
      );
      expect(done.out.at(-1)).toBe('made 11 changes');
      expect((await run('upgrade')).out).toEqual(['up to date: nothing to do']);
    } finally {
      if (saved === undefined) delete process.env['DATA_DIR'];
      else process.env['DATA_DIR'] = saved;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/**
 * Stands in for `npx cdk deploy` and CloudFormation: reads the indexes the command's template would hold (the
 * `tableIndexes` context, parsed by the code the CDK app uses; none: every index) and makes each table match
 * by UpdateTable, refusing, as CloudFormation does, a deploy that changes more than one index of a table. Like
 * CloudFormation it does not wait for a new index to be ACTIVE.
 */
function cloudFormation(tables: Record<TableId, string>, seen: string[][], onDeployAll: () => Promise<void>) {
  return async (command: readonly string[]) => {
    seen.push([...command]);
    const context = command.find((part) => part.startsWith(`${TABLE_INDEXES_CONTEXT}=`));
    const target: TableIndexes = context
      ? tableIndexesFromContext(context.slice(TABLE_INDEXES_CONTEXT.length + 1))
      : allReleaseIndexes();
    if (!context) await onDeployAll();
    for (const [id, wanted] of Object.entries(target) as [TableId, IndexSpec[]][]) {
      const { Table } = await local.client.send(new DescribeTableCommand({ TableName: tables[id] }));
      const current = (Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName!);
      const creates = wanted.filter((index) => !current.includes(index.name));
      const deletes = current.filter((name) => !wanted.some((index) => index.name === name));
      if (creates.length + deletes.length > 1) throw new Error(`${tables[id]}: more than one index change`);
      const [create] = creates;
      if (create) {
        // The table's keys and the new index's, as CloudFormation sends them.
        const keys = new Set([
          ...(Table?.KeySchema ?? []).map((key) => key.AttributeName!),
          create.partitionKey,
          create.sortKey,
        ]);
        await local.client.send(
          new UpdateTableCommand({
            TableName: tables[id],
            AttributeDefinitions: [...keys].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
            GlobalSecondaryIndexUpdates: [
              {
                Create: {
                  IndexName: create.name,
                  KeySchema: [
                    { AttributeName: create.partitionKey, KeyType: 'HASH' },
                    { AttributeName: create.sortKey, KeyType: 'RANGE' },
                  ],
                  Projection: create.nonKeyAttributes
                    ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...create.nonKeyAttributes] }
                    : { ProjectionType: 'ALL' },
                },
              },
            ],
          }),
        );
      } else if (deletes[0]) {
        await local.client.send(
          new UpdateTableCommand({
            TableName: tables[id],
            GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: deletes[0] } }],
          }),
        );
      }
    }
  };
}

describe('admin upgrade in AWS', () => {
  it('deploys one index change per table per stage, then the release; a second run only deploys', async () => {
    const { prefix, tables } = await previousDeployment('aws');
    await previousRecords(tables);
    const commands: string[][] = [];
    const lines: string[] = [];
    const run = cloudFormation(tables, commands, async () => {});
    const options = { prefix, pollMs: 50, waitTimeoutMs: 120_000, run, log: (line: string) => lines.push(line) };

    const planned = await upgradeDeployment(local.client, tables, { ...options, dryRun: true });
    expect(commands).toEqual([]);
    const stateful = `npx cdk deploy ${prefix}-stateful --exclusively -c prefix=${prefix} -c`;
    expect(lines.filter((line) => line.startsWith(`would run: ${stateful} 'tableIndexes=`))).toHaveLength(5);
    expect(lines).toContain(`would run: npx cdk deploy --all -c prefix=${prefix}`);
    // Five tasks indexes in, by-status out (the other tables' indexes ride along): six deploys.
    expect(planned).toBe(6);
    expect(await indexesOf(tables.tasks)).toEqual([{ name: 'by-status', status: 'ACTIVE', projection: 'ALL' }]);

    lines.length = 0;
    expect(await upgradeDeployment(local.client, tables, { ...options, dryRun: false })).toBe(planned);
    expect(commands.map((command) => command.slice(0, 4).join(' '))).toEqual([
      ...Array(5).fill(`npx cdk deploy ${prefix}-stateful`),
      'npx cdk deploy --all',
    ]);
    for (const [id, definition] of Object.entries(TABLES) as [TableId, TableDefinition][]) {
      expect(
        (await indexesOf(tables[id])).map((index) => index.name),
        id,
      ).toEqual((definition.indexes ?? []).map((index) => index.name).sort());
    }
    commands.length = 0;
    lines.length = 0;
    expect(await upgradeDeployment(local.client, tables, { ...options, dryRun: false })).toBe(0);
    expect(commands).toEqual([['npx', 'cdk', 'deploy', '--all', '-c', `prefix=${prefix}`]]);
  });
});
