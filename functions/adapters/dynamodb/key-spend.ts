/**
 * A key's spend over its shards (money-shards.ts): a key without a quota adds each charge to a random shard;
 * its spend is their sum and its last use their latest. Setting or lifting a quota marks every shard, so a
 * charge on any shard sees it (task-repository.ts, keySpendUpdate).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord } from '../../core/ports/accounts.js';
import type { TransactItem } from './balance-debit.js';
import { readShards, SHARD_OF, shardKey, sumOf, unitsOf } from './money-shards.js';
import type { ShardedCounter } from './money-shards.js';

const counterOf = (table: string, keyHash: string): ShardedCounter => ({ table, keyName: 'key_hash', id: keyHash });

/** The key with its spend summed over its shards and its last use the latest of theirs. */
export async function withSpend(db: DynamoDBDocumentClient, table: string, key: ApiKeyRecord): Promise<ApiKeyRecord> {
  const shards = await readShards(db, counterOf(table, key.key_hash));
  const used = shards
    .map((item) => item?.['last_used_at'])
    .filter((at): at is string => typeof at === 'string')
    .sort()
    .at(-1);
  return { ...key, spent_units: Number(sumOf(shards, 'spent_units')), ...(used && { last_used_at: used }) };
}

/**
 * The writes that mark shards 1.. with a quota (`quotaUnits`) or lift it (null), each conditioned on the spend
 * read (so the quota's remainder, computed from it, is exact), with that spend.
 */
export async function quotaShardWrites(
  db: DynamoDBDocumentClient,
  table: string,
  keyHash: string,
  quotaUnits: number | null,
): Promise<{ item: TransactItem; spent: bigint }[]> {
  const counter = counterOf(table, keyHash);
  const shards = (await readShards(db, counter)).slice(1);
  return shards.map((item, index) => {
    const spent = unitsOf(item?.['spent_units']);
    const Key = shardKey(counter, index + 1);
    if (quotaUnits === null) {
      return { spent, item: { Update: { TableName: table, Key, UpdateExpression: 'REMOVE quota_units' } } };
    }
    const seen =
      item?.['spent_units'] === undefined
        ? { ConditionExpression: 'attribute_not_exists(spent_units)' }
        : { ConditionExpression: 'spent_units = :seen', ExpressionAttributeValues: { ':seen': Number(spent) } };
    return {
      spent,
      item: {
        Update: {
          TableName: table,
          Key,
          UpdateExpression: 'SET quota_units = :quota, #of = :of',
          ExpressionAttributeNames: { '#of': SHARD_OF },
          ...seen,
          ExpressionAttributeValues: { ...seen.ExpressionAttributeValues, ':quota': quotaUnits, ':of': keyHash },
        },
      },
    };
  });
}
