/**
 * An account's balance and a key's spend, each split over MONEY_SHARDS items (docs/money-and-ledger.md, "Balance
 * shards") so that concurrent submits write different items. Shard 0 is the account's (or key's) own item; the
 * others live in the same table under `<id>#shard-<n>`, marked with the owner (scans skip them).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BatchGetCommand, TransactGetCommand } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { isConflict } from './transaction-retry.js';

export const MONEY_SHARDS = 16;

/** The attribute naming a shard item's owner (absent on the owner's own item). */
export const SHARD_OF = 'shard_of';

export interface ShardedCounter {
  table: string;
  keyName: 'account_id' | 'key_hash';
  id: string;
}

export function shardKey(counter: ShardedCounter, shard: number): Record<string, string> {
  return { [counter.keyName]: shard === 0 ? counter.id : `${counter.id}#shard-${shard}` };
}

export function randomShard(): number {
  return Math.floor(Math.random() * MONEY_SHARDS);
}

/** A stored number as a bigint (older data may be past 2^53); absent is 0. */
export function unitsOf(value: unknown): bigint {
  return typeof value === 'number' || typeof value === 'bigint' ? BigInt(value) : 0n;
}

const shardList = () => Array.from({ length: MONEY_SHARDS }, (_, shard) => shard);

/**
 * Every shard item (undefined where absent), each read consistently though not at one instant: good for
 * planning and for sums while nothing moves; `snapshotShards` when a refusal rests on the sum.
 */
export async function readShards(
  db: DynamoDBDocumentClient,
  counter: ShardedCounter,
): Promise<(Record<string, unknown> | undefined)[]> {
  const found = new Map<string, Record<string, unknown>>();
  let keys: Record<string, unknown>[] | undefined = shardList().map((shard) => shardKey(counter, shard));
  while (keys && keys.length > 0) {
    const {
      Responses,
      UnprocessedKeys,
    }: {
      Responses?: Record<string, Record<string, unknown>[]>;
      UnprocessedKeys?: Record<string, { Keys?: Record<string, unknown>[] }>;
    } = await db.send(new BatchGetCommand({ RequestItems: { [counter.table]: { Keys: keys, ConsistentRead: true } } }));
    for (const item of Responses?.[counter.table] ?? []) found.set(item[counter.keyName] as string, item);
    keys = UnprocessedKeys?.[counter.table]?.Keys;
  }
  return shardList().map((shard) => found.get(shardKey(counter, shard)[counter.keyName] as string));
}

/**
 * Every shard item at one instant (TransactGetItems: serializable with the transactions that write them). It is
 * refused while one of them is in a transaction (TransactionConflict): read again after a random wait.
 */
export async function snapshotShards(
  db: DynamoDBDocumentClient,
  counter: ShardedCounter,
): Promise<(Record<string, unknown> | undefined)[]> {
  const command = new TransactGetCommand({
    TransactItems: shardList().map((shard) => ({ Get: { TableName: counter.table, Key: shardKey(counter, shard) } })),
  });
  const deadline = Date.now() + SNAPSHOT_FOR_MS;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const { Responses = [] } = await db.send(command);
      return shardList().map((shard) => Responses[shard]?.Item);
    } catch (error) {
      if (!isConflict(error) || Date.now() >= deadline) throw error;
      await sleep(Math.random() * Math.min(100, 5 * 2 ** attempt));
    }
  }
}

const SNAPSHOT_FOR_MS = 3_000;

/** The sum of `attribute` over the shards read. */
export function sumOf(items: readonly (Record<string, unknown> | undefined)[], attribute: string): bigint {
  return items.reduce((sum, item) => sum + unitsOf(item?.[attribute]), 0n);
}

/** The account's balance: the sum of its shards (absent account: undefined). */
export async function readBalance(
  db: DynamoDBDocumentClient,
  accountsTable: string,
  accountId: string,
): Promise<{ item: Record<string, unknown>; units: bigint } | undefined> {
  const items = await readShards(db, { table: accountsTable, keyName: 'account_id', id: accountId });
  const own = items[0];
  return own && { item: own, units: sumOf(items, 'balance_units') };
}
