/**
 * A diagnostic load for the API bench: conditional counter writes at a steady rate, the same shape as the
 * rate limiter's (an ADD with a condition and a TTL attribute, one item per key and block, on the rate-limit
 * table), made beside the baseline server's GET turn. DynamoDB Local applies writes one at a time, and reads
 * queue behind them; this shows how much that alone costs a server that makes no writes of its own.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';

/** Counter items written round-robin, as many keys' blocks would be. */
const ITEMS = 64;

export interface CounterWrites {
  /** Stops starting writes, waits for those under way; answers how many were made. */
  stop(): Promise<number>;
}

export function startCounterWrites(db: DynamoDBDocumentClient, table: string, perSecond: number): CounterWrites {
  const run = randomUUID().slice(0, 8);
  const pending = new Set<Promise<unknown>>();
  let made = 0;
  const write = () => {
    const bucket = `bench-writes-${run}-${made % ITEMS}#0`;
    made += 1;
    const sent = db
      .send(
        new UpdateCommand({
          TableName: table,
          Key: { bucket },
          UpdateExpression: 'ADD #second :take SET expires_at = if_not_exists(expires_at, :expires)',
          ConditionExpression: 'attribute_not_exists(#second) OR #second <= :most',
          ExpressionAttributeNames: { '#second': 'second_0' },
          ExpressionAttributeValues: {
            ':take': 1,
            ':most': Number.MAX_SAFE_INTEGER,
            ':expires': Math.floor(Date.now() / 1000) + 300,
          },
        }),
      )
      .finally(() => pending.delete(sent));
    pending.add(sent);
  };
  // Paced by the clock, not by answers: the rate holds however slow each write is.
  const timer = setInterval(write, 1000 / perSecond);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      return made;
    },
  };
}
