/**
 * Money in: a paid top-up order, a redeemed code, an operator's credit (docs/money-and-ledger.md, "Balance
 * shards"). A credit is spread over every shard, bounded so their sum stays within MAX_BALANCE_UNITS: the other
 * shards are checked not to have grown since read (charges only lower them), so concurrent credits cannot pass
 * the bound together. Items in order: the caller's `before`, shard 0, the caller's `after`, the other shards.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LedgerEntry } from '../../core/ledger.js';
import { MAX_BALANCE_UNITS } from '../../core/money.js';
import type { TransactItem } from './balance-debit.js';
import { ledgerPut } from './ledger.js';
import { readShards, SHARD_OF, shardKey, unitsOf } from './money-shards.js';
import type { ShardedCounter } from './money-shards.js';
import { cancellationReasons, conditionFailed } from './transaction-cancellation.js';
import { isConflict } from './transaction-retry.js';

type TransactUpdate = NonNullable<TransactItem['Update']>;

const RETRY_FOR_MS = 6_000;

/**
 * Adds `amount` (positive) to the account's shard 0 with `before` and `after`, while the sum stays at most
 * `room` before adding. Refused (the TransactionCanceledException, shard 0's reason a condition failure) when
 * the account is missing or the sum is past `room`; a refusal of the caller's items is thrown as it is.
 */
export async function sendCredit(
  db: DynamoDBDocumentClient,
  accountsTable: string,
  accountId: string,
  amount: number,
  room: bigint,
  before: TransactItem[],
  after: TransactItem[],
): Promise<void> {
  const counter: ShardedCounter = { table: accountsTable, keyName: 'account_id', id: accountId };
  const deadline = Date.now() + RETRY_FOR_MS;
  for (let attempt = 1; ; attempt += 1) {
    const seen = (await readShards(db, counter)).map((item) => unitsOf(item?.['balance_units']));
    const others = seen.slice(1).reduce((sum, units) => sum + units, 0n);
    const parts = spread(BigInt(amount), seen.length);
    // Each other shard gets its part if it has not grown since read (charges only lower it), so the sum
    // before adding is at most `room` whatever commits meanwhile; spread, the next charges find money anywhere.
    const checks: TransactItem[] = seen.slice(1).map((units, index) => ({
      Update: {
        TableName: accountsTable,
        Key: shardKey(counter, index + 1),
        UpdateExpression: 'SET #of = :of ADD balance_units :part',
        ConditionExpression: 'attribute_not_exists(balance_units) OR balance_units <= :seen',
        ExpressionAttributeNames: { '#of': SHARD_OF },
        ExpressionAttributeValues: { ':seen': units, ':part': parts[index + 1], ':of': accountId },
      },
    }));
    const shardZero: TransactItem = {
      Update: {
        TableName: accountsTable,
        Key: shardKey(counter, 0),
        UpdateExpression: 'ADD balance_units :amount',
        ConditionExpression: 'attribute_exists(account_id) AND balance_units <= :room',
        ExpressionAttributeValues: { ':amount': parts[0], ':room': room - others },
      },
    };
    try {
      await db.send(new TransactWriteCommand({ TransactItems: [...before, shardZero, ...after, ...checks] }));
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      const callerRefused =
        reasons &&
        [
          ...reasons.slice(0, before.length),
          ...reasons.slice(before.length + 1, before.length + 1 + after.length),
        ].some(conditionFailed);
      const othersGrew = reasons?.slice(before.length + 1 + after.length).some(conditionFailed);
      const retry = (isConflict(error) || (othersGrew && !callerRefused)) && Date.now() < deadline;
      if (!retry) throw error;
      if (isConflict(error)) await sleep(Math.random() * Math.min(200, 5 * 2 ** attempt));
    }
  }
}

/** `amount` in `count` parts as even as whole units allow (the odd units on the first). */
export function spread(amount: bigint, count: number): number[] {
  const each = amount / BigInt(count);
  const odd = amount % BigInt(count);
  return Array.from({ length: count }, (_, index) => Number(each + (BigInt(index) < odd ? 1n : 0n)));
}

/** Credits `entry.amount_units` to `entry.account_id` together with `source`: 0 source, 1 balance, 2 entry. */
export async function sendBalanceCredit(
  db: DynamoDBDocumentClient,
  tables: { accounts: string; ledger: string },
  entry: LedgerEntry,
  source: TransactUpdate,
): Promise<void> {
  await sendCredit(
    db,
    tables.accounts,
    entry.account_id,
    entry.amount_units,
    BigInt(MAX_BALANCE_UNITS - entry.amount_units),
    [{ Update: source }],
    [ledgerPut(tables.ledger, entry)],
  );
}
