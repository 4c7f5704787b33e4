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
/** How often the writer catches up with the writes due (the load generator shares this event loop). */
const TICK_MS = 10;

export interface CounterWritesResult {
  /** Writes answered. */
  made: number;
  /** Writes that failed (a timeout or socket error from DynamoDB Local): counted, never thrown. */
  failed: number;
  /** Writes started per second of the stretch, as achieved. */
  perSecond: number;
}

export interface CounterWrites {
  /** Stops starting writes and waits for those under way. */
  stop(): Promise<CounterWritesResult>;
}

export function startCounterWrites(db: DynamoDBDocumentClient, table: string, perSecond: number): CounterWrites {
  const run = randomUUID().slice(0, 8);
  const pending = new Set<Promise<void>>();
  const started = performance.now();
  let sent = 0;
  let made = 0;
  let failed = 0;
  const write = () => {
    const bucket = `bench-writes-${run}-${sent % ITEMS}#0`;
    sent += 1;
    const answer = db
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
      .then(
        () => void (made += 1),
        () => void (failed += 1),
      )
      .finally(() => pending.delete(answer));
    pending.add(answer);
  };
  // Paced by elapsed time, not by ticks or answers: a late tick makes up the writes it missed, and the rate
  // holds however slow each write is.
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
    while (sent < due) write();
  }, TICK_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      const seconds = (performance.now() - started) / 1000;
      await Promise.all(pending);
      return { made, failed, perSecond: seconds > 0 ? sent / seconds : 0 };
    },
  };
}
