/**
 * Takes money from an account's balance shards inside the caller's transaction (docs/money-and-ledger.md,
 * "Balance shards"): first one random shard; when it is short, a plan over the shards read (planDraw); a 402
 * only when a snapshot of all of them is short. Conflicts are retried with jitter until `settleBy`.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { planDraw } from '../../core/shard-draw.js';
import { randomShard, readShards, SHARD_OF, shardKey, snapshotShards, sumOf, unitsOf } from './money-shards.js';
import type { ShardedCounter } from './money-shards.js';
import { cancellationReasons, conditionFailed } from './transaction-cancellation.js';
import { isConflict } from './transaction-retry.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Why a debit's transaction was sent again: counted on what it wrote (the bench reports them). */
export interface DebitRetries {
  conflict: number;
  shard_short: number;
}

export interface DebitOptions {
  /** Epoch ms after which no try may start (the caller must answer before its own time ends). */
  settleBy: number;
  /** Thrown when no try may start any more (`conflicted`: other writers kept winning): nothing was taken. */
  outOfTime: (conflicted: boolean) => Error;
  /** Thrown when the shards together are short (a snapshot's sum). */
  short: (balanceUnits: bigint) => Error;
  /** Between tries after a conflict; may end them by throwing (a refusal read meanwhile). */
  beforeRetry?: () => Promise<void>;
}

/** The longest a try may take and still leave the caller time to answer: a try is started only before this. */
export const TRY_BUDGET_MS = 2_000;
const BASE_DELAY_MS = 5;
const MAX_DELAY_MS = 200;

/**
 * Sends `send(balanceItems, retries)`, the caller's items first and the balance items after them (the caller
 * reads its own items' cancellation reasons by index), until it commits; any refusal of the caller's items is
 * thrown as it is.
 */
export async function sendDebit<T>(
  db: DynamoDBDocumentClient,
  accountsTable: string,
  accountId: string,
  costUnits: number,
  callerItems: number,
  send: (balanceItems: TransactItem[], retries: DebitRetries) => Promise<T>,
  options: DebitOptions,
): Promise<T> {
  const counter: ShardedCounter = { table: accountsTable, keyName: 'account_id', id: accountId };
  const cost = BigInt(costUnits);
  const retries: DebitRetries = { conflict: 0, shard_short: 0 };
  let deltas = new Map([[randomShard(), -cost]]);
  for (let attempt = 1; ; attempt += 1) {
    if (Date.now() + TRY_BUDGET_MS > options.settleBy) throw options.outOfTime(retries.conflict > 0);
    try {
      return await send(balanceItems(counter, deltas), retries);
    } catch (error) {
      const reasons = cancellationReasons(error);
      const ownRefused = reasons?.slice(0, callerItems).some(conditionFailed);
      if (reasons && !ownRefused && reasons.slice(callerItems).some(conditionFailed)) {
        retries.shard_short += 1;
        const plan = await planFromShards(db, counter, cost);
        if (!plan) throw options.short(sumOf(await snapshotShards(db, counter), 'balance_units'));
        deltas = plan;
        continue;
      }
      if (!isConflict(error)) throw error;
      retries.conflict += 1;
      await sleep(Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt));
      await options.beforeRetry?.();
      deltas = new Map([[randomShard(), -cost]]);
    }
  }
}

/** A plan over the shards as read, or undefined when a snapshot confirms they are short together. */
async function planFromShards(
  db: DynamoDBDocumentClient,
  counter: ShardedCounter,
  cost: bigint,
): Promise<Map<number, bigint> | undefined> {
  const read = await readShards(db, counter);
  if (!read[0]) return undefined;
  const plan = planDraw(
    read.map((item) => unitsOf(item?.['balance_units'])),
    cost,
    randomShard(),
  );
  if (plan) return plan;
  // Read one by one while money moved between shards, the sum can miss what moved: a snapshot decides.
  const snapshot = await snapshotShards(db, counter);
  if (!snapshot[0]) return undefined;
  return planDraw(
    snapshot.map((item) => unitsOf(item?.['balance_units'])),
    cost,
    randomShard(),
  );
}

/**
 * One Update per shard moved: a shard that gives is conditioned on holding what it gives (never below 0
 * whatever else commits first); one that receives only adds. Shard 0 must exist (the account).
 */
function balanceItems(counter: ShardedCounter, deltas: Map<number, bigint>): TransactItem[] {
  return [...deltas].map(([shard, delta]) => {
    const gives = delta < 0n;
    const conditions = [shard === 0 ? 'attribute_exists(account_id)' : '', gives ? 'balance_units >= :need' : '']
      .filter(Boolean)
      .join(' AND ');
    return {
      Update: {
        TableName: counter.table,
        Key: shardKey(counter, shard),
        UpdateExpression: shard === 0 ? 'ADD balance_units :delta' : 'SET #of = :of ADD balance_units :delta',
        ...(conditions && { ConditionExpression: conditions }),
        ...(shard !== 0 && { ExpressionAttributeNames: { '#of': SHARD_OF } }),
        ExpressionAttributeValues: {
          ':delta': Number(delta),
          ...(gives && { ':need': Number(-delta) }),
          ...(shard !== 0 && { ':of': counter.id }),
        },
      },
    };
  });
}
