/** The money as stored over its shards (docs/money-and-ledger.md, "Balance shards"): what tests compare. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readBalance, readShards, sumOf } from '../../functions/adapters/dynamodb/money-shards.js';

/** An account's balance, the sum of its shards (a bigint past 2^53); undefined when there is no account. */
export async function storedBalance(db: DynamoDBDocumentClient, accountsTable: string, accountId: string) {
  const found = await readBalance(db, accountsTable, accountId);
  if (!found) return undefined;
  return found.units <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(found.units) : found.units;
}

/** A key's spend, the sum of its shards. */
export async function storedSpend(db: DynamoDBDocumentClient, apiKeysTable: string, keyHash: string) {
  return Number(sumOf(await readShards(db, { table: apiKeysTable, keyName: 'key_hash', id: keyHash }), 'spent_units'));
}
