/**
 * Per-key request limit: a counter per key and second (fixed window) in DynamoDB, incremented under a
 * condition, so every function instance shares one count. Counters expire through the table's TTL.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateDecision, RateLimiter } from '../core/ports/rate-limiter.js';

const WINDOW_SECONDS = 1;
const KEEP_SECONDS = 120;

export class DynamoDbRateLimiter implements RateLimiter {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: () => number = Date.now,
  ) {}

  async consume(subject: string, limitPerSecond: number): Promise<RateDecision> {
    const nowMs = this.clock();
    const window = Math.floor(nowMs / 1000 / WINDOW_SECONDS);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { bucket: `${subject}#${window}` },
          UpdateExpression: 'ADD hits :one SET expires_at = if_not_exists(expires_at, :expires)',
          ConditionExpression: 'attribute_not_exists(hits) OR hits < :limit',
          ExpressionAttributeValues: {
            ':one': 1,
            ':limit': limitPerSecond,
            ':expires': Math.floor(nowMs / 1000) + KEEP_SECONDS,
          },
        }),
      );
      return { allowed: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const windowEndsMs = (window + 1) * WINDOW_SECONDS * 1000;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowEndsMs - nowMs) / 1000)) };
    }
  }
}
