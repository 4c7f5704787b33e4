/**
 * Idempotency records in DynamoDB (functions/core/idempotency.ts). A route's adapter adds `idempotencyPut` to
 * its own TransactWriteItems and maps that item's failed condition with `idempotencyKeyTaken`; the route's use
 * case reads records through DynamoDbIdempotencyStore. TTL deletes a record some time after `expires_at`.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IdempotencyRecord } from '../../core/idempotency.js';
import { IdempotencyKeyTakenError, isLive } from '../../core/idempotency.js';
import type { IdempotencyStore } from '../../core/ports/idempotency.js';
import { getItem } from './consistent-read.js';
import { conditionFailedAt } from './transaction-cancellation.js';

export class DynamoDbIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async find(id: string, now: Date): Promise<IdempotencyRecord | undefined> {
    const record = await getItem<IdempotencyRecord>(this.db, this.table, { id });
    // TTL deletes within days of expiry, not at it: an expired record still stored counts as none.
    return record && isLive(record, now) ? record : undefined;
  }
}

/** The transaction item that writes the record, unless a live one holds its key (an expired one is replaced). */
export function idempotencyPut(table: string, record: IdempotencyRecord) {
  return {
    Put: {
      TableName: table,
      Item: record,
      ConditionExpression: 'attribute_not_exists(id) OR expires_at <= :now',
      // Expired by the time this record was made (its created_at).
      ExpressionAttributeValues: { ':now': Math.floor(Date.parse(record.created_at) / 1000) },
    },
  };
}

/**
 * IdempotencyKeyTakenError when the transaction failed on the record's condition (the item at `index` of its
 * TransactItems); undefined for any other failure. Checked before the transaction's other conditions: the
 * winner's answer stands, even if this request would now also be short of balance.
 */
export function idempotencyKeyTaken(error: unknown, index: number): IdempotencyKeyTakenError | undefined {
  return conditionFailedAt(error, index) ? new IdempotencyKeyTakenError() : undefined;
}
