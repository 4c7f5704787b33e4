/**
 * Why DynamoDB cancelled a transaction: one reason per item, in TransactItems order, so callers read them
 * by index and every transaction keeps its items' order (docs/money-and-ledger.md, "Charge and refund transactions").
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { CancellationReason } from '@aws-sdk/client-dynamodb';

/** The reasons of a cancelled transaction; undefined for any other error. */
export function cancellationReasons(error: unknown): CancellationReason[] | undefined {
  return error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : undefined;
}

/** The item's own condition refused it (not a conflict with another writer). */
export function conditionFailed(reason: CancellationReason | undefined): reason is CancellationReason {
  return reason?.Code === 'ConditionalCheckFailed';
}

/** A cancelled transaction whose item at `index` failed its condition. */
export function conditionFailedAt(error: unknown, index: number): boolean {
  return conditionFailed(cancellationReasons(error)?.[index]);
}

/**
 * Whether each item's condition refused a cancelled transaction, in TransactItems order; any other error is
 * thrown again as it is (it is no refusal the caller can word).
 */
export function failedConditions(error: unknown): boolean[] {
  const reasons = cancellationReasons(error);
  if (!reasons) throw error;
  return reasons.map(conditionFailed);
}
