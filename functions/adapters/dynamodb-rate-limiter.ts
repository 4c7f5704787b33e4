/**
 * Per-key request limit: a counter per key and second (fixed window) in DynamoDB, so every function
 * instance shares one count. One unconditional ADD returns the new count, read in the same round trip as
 * the key itself (see authenticate.ts). Counters expire through the table's TTL.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimiter, RateWindow } from '../core/ports/rate-limiter.js';

const WINDOW_SECONDS = 1;
const KEEP_SECONDS = 120;

export class DynamoDbRateLimiter implements RateLimiter {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: () => number = Date.now,
  ) {}

  async hit(subject: string): Promise<RateWindow> {
    const nowMs = this.clock();
    const window = Math.floor(nowMs / 1000 / WINDOW_SECONDS);
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { bucket: `${subject}#${window}` },
        UpdateExpression: 'ADD hits :one SET expires_at = if_not_exists(expires_at, :expires)',
        ExpressionAttributeValues: { ':one': 1, ':expires': Math.floor(nowMs / 1000) + KEEP_SECONDS },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const windowEndsMs = (window + 1) * WINDOW_SECONDS * 1000;
    return {
      hits: Number(Attributes?.['hits'] ?? 1),
      retryAfterSeconds: Math.max(1, Math.ceil((windowEndsMs - nowMs) / 1000)),
    };
  }
}
