/**
 * DynamoDB cancels a transaction that touches an item another transaction holds (TransactionConflict)
 * and the SDK does not retry that. Many submits on one account do exactly this, so retry with full jitter
 * for up to 6 s (a count of attempts runs out sooner when every attempt is slow; the functions have 10 s).
 * `beforeRetry` may end the retries by throwing (a charge the balance no longer covers).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { conditionFailedAt } from './transaction-cancellation.js';

const RETRY_FOR_MS = 6_000;
const BASE_DELAY_MS = 10;
const MAX_DELAY_MS = 500;

export async function withTransactionConflictRetry<T>(
  write: () => Promise<T>,
  beforeRetry?: () => Promise<void>,
): Promise<T> {
  const deadline = Date.now() + RETRY_FOR_MS;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (!isConflict(error) || Date.now() >= deadline) throw error;
      const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
      await sleep(Math.random() * ceiling);
      await beforeRetry?.();
    }
  }
}

/**
 * Sends a transaction whose first item's condition decides whether it applies: false when that condition
 * failed (the move was made already), true when it applied; conflicts retried as above.
 */
export async function sendGuardedTransaction(send: () => Promise<unknown>): Promise<boolean> {
  try {
    await withTransactionConflictRetry(send);
    return true;
  } catch (error) {
    if (conditionFailedAt(error, 0)) return false;
    throw error;
  }
}

/** A transaction that lost to another writer (and may be tried again), not one a condition refused. */
export function isConflict(error: unknown): boolean {
  if (error instanceof TransactionCanceledException) {
    const reasons = error.CancellationReasons ?? [];
    const conflict = reasons.some((reason) => reason.Code === 'TransactionConflict');
    const conditionFailed = reasons.some((reason) => reason.Code === 'ConditionalCheckFailed');
    return conflict && !conditionFailed;
  }
  return error instanceof Error && error.name === 'TransactionInProgressException';
}
