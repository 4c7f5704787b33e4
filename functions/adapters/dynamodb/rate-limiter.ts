/**
 * Fixed one-second windows per key in DynamoDB: one UpdateItem per request (ADD, returning the new count),
 * issued in parallel with the key's read, so the limit (from the key) is applied once both are back.
 * Counters expire through the table's TTL. A window spanning two seconds may admit up to twice the limit.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimiter, RateWindow } from '../../core/ports/rate-limiter.js';

/** TTL deletes within days, not seconds: the window is in the key, so an old item only costs storage. */
const KEEP_SECONDS = 60;

export class DynamoDbRateLimiter implements RateLimiter {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: () => number = Date.now,
  ) {}

  async hit(subject: string): Promise<RateWindow> {
    const nowMs = this.clock();
    const second = Math.floor(nowMs / 1000);
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { bucket: `${subject}#${second}` },
        UpdateExpression: 'ADD #count :one SET expires_at = if_not_exists(expires_at, :expires)',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':expires': second + KEEP_SECONDS },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return {
      count: Number(Attributes?.['count'] ?? 1),
      retryAfterSeconds: Math.max(1, Math.ceil(((second + 1) * 1000 - nowMs) / 1000)),
    };
  }
}
