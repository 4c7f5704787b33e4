/**
 * Per-key request limit: a counter per key and second (fixed window) in DynamoDB, so every function
 * instance shares one count and no second admits more than the limit. An instance does not write per
 * request: it reserves a share of the window's requests at once (a conditional ADD that cannot take the
 * count past the limit) and spends it locally, so a busy key costs one write per share, not per request.
 * Reservations an instance does not use lapse with their second, so a key spread over many instances
 * can be refused slightly before its limit; never after. Counters expire through the table's TTL.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateDecision, RateLimiter } from '../core/ports/rate-limiter.js';

const KEEP_SECONDS = 120;
/** A reservation is a tenth of the limit (at most this many): ten writes a second for a key at its limit. */
const SHARES_PER_WINDOW = 10;
const MAX_RESERVATION = 100;

interface Reservation {
  window: number;
  left: number;
  /** The window's count has reached the limit: refuse without asking again until the next second. */
  spent?: true;
}

export class DynamoDbRateLimiter implements RateLimiter {
  private readonly reserved = new Map<string, Reservation>();
  /** A reservation being written: concurrent requests for the subject wait for it instead of racing it. */
  private readonly refilling = new Map<string, Promise<void>>();

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: () => number = Date.now,
  ) {}

  async acquire(subject: string, limitPerSecond: number): Promise<RateDecision> {
    for (;;) {
      const nowMs = this.clock();
      const window = Math.floor(nowMs / 1000);
      const held = this.reserved.get(subject);
      if (held?.window === window && held.left > 0) {
        held.left -= 1;
        return { allowed: true };
      }
      if (held?.window === window && held.spent) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * 1000 - nowMs) / 1000)) };
      }
      const inflight = this.refilling.get(subject);
      if (inflight) {
        await inflight.catch(() => undefined);
        continue;
      }
      const refill = this.refill(subject, window, limitPerSecond, nowMs);
      this.refilling.set(subject, refill);
      try {
        await refill;
      } finally {
        this.refilling.delete(subject);
      }
    }
  }

  private async refill(subject: string, window: number, limit: number, nowMs: number): Promise<void> {
    const want = Math.min(MAX_RESERVATION, Math.max(1, Math.ceil(limit / SHARES_PER_WINDOW)));
    const granted = await this.reserve(subject, window, want, limit, nowMs);
    this.reserved.set(subject, granted === 0 ? { window, left: 0, spent: true } : { window, left: granted });
    if (this.reserved.size > 10_000) this.forgetOldWindows(window);
  }

  /** Adds up to `want` to the window's count without passing `limit`; returns how many it added. */
  private async reserve(subject: string, window: number, want: number, limit: number, nowMs: number) {
    let take = want;
    for (let attempt = 0; attempt < 3 && take > 0; attempt += 1) {
      try {
        await this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { bucket: `${subject}#${window}` },
            UpdateExpression: 'ADD hits :take SET expires_at = if_not_exists(expires_at, :expires)',
            ConditionExpression: 'attribute_not_exists(hits) OR hits <= :most',
            ExpressionAttributeValues: {
              ':take': take,
              ':most': limit - take,
              ':expires': Math.floor(nowMs / 1000) + KEEP_SECONDS,
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return take;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        // What is left of the window, if anything: ask for exactly that.
        const hits = Number(error.Item?.['hits']?.N ?? limit);
        take = Math.min(want, limit - hits);
      }
    }
    return 0;
  }

  private forgetOldWindows(window: number): void {
    for (const [subject, reservation] of this.reserved) {
      if (reservation.window !== window) this.reserved.delete(subject);
    }
  }
}
