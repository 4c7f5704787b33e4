/**
 * A table's indexes as DescribeTable reports them, and the waits an upgrade makes between index changes: DynamoDB
 * refuses an index change on a table whose other change is still in progress, and an index is usable once ACTIVE.
 */
import type { DynamoDBClient, TableDescription } from '@aws-sdk/client-dynamodb';
import { DescribeTableCommand, ResourceNotFoundException, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import type { TableDefinition } from '../runtime/resources.js';

/** An index's shape: its keys, and its projected non-key attributes (undefined: ALL; `[]`: KEYS_ONLY). */
export interface IndexShape {
  name: string;
  partitionKey: string;
  sortKey: string;
  nonKeyAttributes?: readonly string[];
}

/** An index as DescribeTable reports it. */
export interface CurrentIndex extends IndexShape {
  status: 'CREATING' | 'UPDATING' | 'DELETING' | 'ACTIVE';
}

export interface WaitOptions {
  /** Between two DescribeTable calls while waiting. */
  pollMs?: number;
  /** How long one index may take to build or go (a large table's index builds for hours). */
  waitTimeoutMs?: number;
}

export async function describe(client: DynamoDBClient, table: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: table }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

export function currentIndexes(table: TableDescription): CurrentIndex[] {
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

/**
 * Polls until the table is ACTIVE and the index (if named) is ACTIVE or gone; unnamed, until every index is
 * ACTIVE (none being built or deleted). A table that does not exist has nothing to wait for.
 */
export async function waitFor(
  client: DynamoDBClient,
  table: string,
  index: string | undefined,
  until: 'ACTIVE' | 'gone',
  options: WaitOptions,
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

/** Starts deleting one index (UpdateTable takes one index change at a time). */
export async function deleteIndex(client: DynamoDBClient, table: string, index: string): Promise<void> {
  await client.send(
    new UpdateTableCommand({ TableName: table, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: index } }] }),
  );
}

/** Starts building one index on a table of `definition`'s keys. */
export async function createIndex(
  client: DynamoDBClient,
  table: string,
  definition: TableDefinition,
  index: IndexShape,
): Promise<void> {
  const { name, partitionKey, sortKey, nonKeyAttributes } = index;
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
}
