/** The per-key limiter on DynamoDB Local: one count per key and second, shared by every instance. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDbRateLimiter } from '../../functions/adapters/dynamodb/rate-limiter.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';

const local = useDynamoDbLocal('limits');
const SECOND = 1_900_000_000_000;

function limiter(clock: () => number) {
  return new DynamoDbRateLimiter(local.db, local.names.tables.rateLimits, clock);
}

describe('DynamoDbRateLimiter', () => {
  it('counts every request of a key in its second, across instances, with none lost to concurrency', async () => {
    const clock = () => SECOND + 200;
    const [a, b] = [limiter(clock), limiter(clock)];
    const counts = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).hit('key-1')));
    expect(counts.map((window) => window.count).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it('keeps keys apart and starts again in the next second', async () => {
    let now = SECOND + 10_000;
    const subject = limiter(() => now);
    await subject.hit('key-2');
    expect((await subject.hit('key-2')).count).toBe(2);
    expect((await subject.hit('key-3')).count).toBe(1);
    now += 1000;
    expect((await subject.hit('key-2')).count).toBe(1);
  });

  it('says when the window ends (Retry-After, at least 1 s) and lets the counter expire', async () => {
    const now = SECOND + 20_000 + 100;
    expect((await limiter(() => now).hit('key-4')).retryAfterSeconds).toBe(1);
    const second = Math.floor(now / 1000);
    const { Item } = await local.db.send(
      new GetCommand({ TableName: local.names.tables.rateLimits, Key: { bucket: `key-4#${second}` } }),
    );
    expect(Item?.['expires_at']).toBeGreaterThan(second);
  });
});
