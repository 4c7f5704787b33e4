/**
 * The two storage paths every API request takes, against DynamoDB Local: the per-key limiter (reserved
 * shares, never more than the limit in a second, across instances) and the coalesced consistent reads.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoDbItemReader } from '../../functions/adapters/dynamodb-item-reader.js';
import {
  BLOCK_SECONDS,
  counterLocation,
  DynamoDbRateLimiter,
  subjectPhaseMs,
} from '../../functions/adapters/dynamodb-rate-limiter.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/local-aws.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';

const local = useDynamoDbLocal('limits');

/**
 * Counts the requests a client sends, by command; `holdWrites` holds its UpdateItems until released, and
 * `failWrites` makes them fail (as a network error would).
 */
function countingClient() {
  const counts: Record<string, number> = {};
  let held: Promise<void> | undefined;
  let failing = false;
  const counted = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: local.dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
  );
  counted.middlewareStack.add(
    (next, context) => async (args) => {
      counts[context.commandName ?? '?'] = (counts[context.commandName ?? '?'] ?? 0) + 1;
      if (context.commandName === 'UpdateItemCommand') {
        await held;
        if (failing) throw new Error('socket hang up');
      }
      return next(args);
    },
    { step: 'initialize' },
  );
  const holdWrites = () => {
    let release = () => {};
    held = new Promise((resolve) => (release = resolve));
    return () => {
      held = undefined;
      release();
    };
  };
  const failWrites = (on: boolean) => {
    failing = on;
  };
  return { counted, counts, holdWrites, failWrites };
}

/** Subjects' seconds aligned with the clock's, for tests that step the clock by whole seconds. */
const NO_PHASE = () => 0;

/** The start of the next block of seconds (with NO_PHASE): a test's first second is its block's first. */
const nextBlockStart = () => {
  const blockMs = BLOCK_SECONDS * 1000;
  return (Math.floor(Date.now() / blockMs) + 1) * blockMs;
};

/** A clock frozen inside one second, so a burst cannot straddle two windows. */
const frozenAt = (ms: number) => () => ms;

describe('DynamoDbRateLimiter', () => {
  it('never admits more than the limit in a second, across many instances hammering one key', async () => {
    const subject = `key-${randomUUID()}`;
    const clock = frozenAt(Math.floor(Date.now() / 1000) * 1000 + 100);
    const instances = Array.from(
      { length: 8 },
      () => new DynamoDbRateLimiter(local.db, local.names.tables.rateLimits, clock),
    );
    const decisions = await Promise.all(
      Array.from({ length: 400 }, (_, i) => instances[i % instances.length]!.acquire(subject, 100)),
    );
    const admitted = decisions.filter((decision) => decision.allowed).length;
    expect(admitted).toBeLessThanOrEqual(100);
    // Shares left unused in other instances may be lost; most of the limit is still served.
    expect(admitted).toBeGreaterThanOrEqual(50);
    for (const decision of decisions) {
      if (!decision.allowed) expect(decision.retryAfterSeconds).toBe(1);
    }
  });

  it('one instance serves exactly the limit, then refuses the rest of the second without asking again', async () => {
    const subject = `key-${randomUUID()}`;
    const { counted, counts } = countingClient();
    const limiter = new DynamoDbRateLimiter(counted, local.names.tables.rateLimits, frozenAt(Date.now()));
    const decisions = [];
    for (let i = 0; i < 55; i += 1) decisions.push(await limiter.acquire(subject, 50));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(50);
    expect(decisions.slice(50).every((decision) => !decision.allowed)).toBe(true);
    const writes = counts['UpdateItemCommand'];
    expect(writes).toBeGreaterThan(0);
    for (let i = 0; i < 20; i += 1) expect((await limiter.acquire(subject, 50)).allowed).toBe(false);
    expect(counts['UpdateItemCommand']).toBe(writes);
    counted.destroy();
  });

  it('reserves about what it served the second before, and a block of seconds per write: a steady key writes once a block', async () => {
    const subject = `key-${randomUUID()}`;
    const { counted, counts } = countingClient();
    const blockStart = nextBlockStart();
    let now = blockStart;
    const limiter = new DynamoDbRateLimiter(counted, local.names.tables.rateLimits, () => now, NO_PHASE);
    const writes = () => counts['UpdateItemCommand'] ?? 0;
    for (let i = 0; i < 30; i += 1) expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
    const firstSecond = writes();
    // A new instance knows nothing of its rate yet: small reservations, growing with what it serves.
    expect(firstSecond).toBeGreaterThan(1);
    expect(firstSecond).toBeLessThan(30);
    // The second second: one write, for it and for the rest of the block. Then one a block, in its last
    // second, for the whole next block, before it begins: no request waits for a write at its start.
    const perSecondWrites: number[] = [];
    for (let second = 1; second < 2 * BLOCK_SECONDS; second += 1) {
      const before = writes();
      // 30 requests spread over the second, as a steady client sends them.
      for (let i = 0; i < 30; i += 1) {
        now = blockStart + second * 1000 + i * 33;
        expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
      }
      perSecondWrites.push(writes() - before);
    }
    // Seconds 1 … 2 × BLOCK_SECONDS − 1: the second second's write, then one in the last second of each block.
    expect(perSecondWrites).toEqual(
      perSecondWrites.map((_, i) => (i === 0 || (i + 1) % BLOCK_SECONDS === BLOCK_SECONDS - 1 ? 1 : 0)),
    );
    // Every admitted request was counted in its own second, and the margin reserved beyond it lapses.
    const { bucket, attribute } = counterLocation(subject, Math.floor(now / 1000));
    const { Item } = await local.db.send(new GetCommand({ TableName: local.names.tables.rateLimits, Key: { bucket } }));
    expect(Item?.[attribute]).toBeGreaterThanOrEqual(30);
    // (The pace of a second is taken before its end, so the margin is of a quarter, or a little more.)
    expect(Item?.[attribute]).toBeLessThanOrEqual(30 * 1.5);
    counted.destroy();
  });

  it('seconds reserved ahead never take a second past half its limit, and never let it pass the limit', async () => {
    const subject = `key-${randomUUID()}`;
    let now = nextBlockStart();
    const clock = () => now;
    const limit = 100;
    // Six steady instances of 10 a second each: the first ones reserve the block's later seconds ahead.
    const steady = Array.from(
      { length: 6 },
      () => new DynamoDbRateLimiter(local.db, local.names.tables.rateLimits, clock, NO_PHASE),
    );
    const blockStart = now;
    for (let second = 0; second < 2; second += 1) {
      for (let i = 0; i < 10; i += 1) {
        for (const [n, limiter] of steady.entries()) {
          now = blockStart + second * 1000 + i * 100 + n;
          expect((await limiter.acquire(subject, limit)).allowed).toBe(true);
        }
      }
    }
    now = blockStart + 2000;
    // The third second of the block: what the instances reserved ahead for it is at most half the limit.
    const { bucket, attribute } = counterLocation(subject, Math.floor(now / 1000));
    const { Item } = await local.db.send(new GetCommand({ TableName: local.names.tables.rateLimits, Key: { bucket } }));
    expect(Item?.[attribute]).toBeGreaterThan(0);
    expect(Item?.[attribute]).toBeLessThanOrEqual(limit / 2);
    // A burst from new instances and the steady ones alike still admits no more than the limit in it.
    const burst = Array.from(
      { length: 4 },
      () => new DynamoDbRateLimiter(local.db, local.names.tables.rateLimits, clock, NO_PHASE),
    );
    const everyone = [...steady, ...burst];
    const decisions = await Promise.all(
      Array.from({ length: 300 }, (_, i) => everyone[i % everyone.length]!.acquire(subject, limit)),
    );
    const admitted = decisions.filter((decision) => decision.allowed).length;
    expect(admitted).toBeLessThanOrEqual(limit);
    expect(admitted).toBeGreaterThanOrEqual(limit / 2);
  });

  it('a key that runs short reserves more before it runs out: its requests do not wait for that write', async () => {
    const subject = `key-${randomUUID()}`;
    const { counted, counts, holdWrites } = countingClient();
    const blockStart = nextBlockStart();
    let now = blockStart;
    const limiter = new DynamoDbRateLimiter(counted, local.names.tables.rateLimits, () => now, NO_PHASE);
    const writes = () => counts['UpdateItemCommand'] ?? 0;
    // A second at 20 a second, then the next one's first request reserves for that rate (25, with the margin).
    for (let i = 0; i < 20; i += 1) {
      now = blockStart + i * 50;
      expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
    }
    now = blockStart + 1000;
    expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
    // Now at twice the pace: with a quarter of a second's worth left, it writes for more, and while that write
    // is out (held here), its requests are still admitted from what it has.
    const release = holdWrites();
    const before = writes();
    for (let i = 1; i <= 20; i += 1) {
      now = blockStart + 1000 + i * 25;
      expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
    }
    expect(writes() - before).toBe(1);
    release();
    // Once the write is back, the rest of the second at that pace needs no other.
    for (let i = 21; i <= 35; i += 1) {
      now = blockStart + 1000 + i * 25;
      expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
    }
    expect(writes() - before).toBe(1);
    counted.destroy();
  });

  it('a small limit, hammered steadily by one instance: every second admits exactly its limit', async () => {
    const subject = `key-${randomUUID()}`;
    const blockStart = nextBlockStart();
    let now = blockStart;
    const limiter = new DynamoDbRateLimiter(local.db, local.names.tables.rateLimits, () => now, NO_PHASE);
    const admittedPerSecond: number[] = [];
    // Two blocks and more, 10 requests a second against a limit of 3: reservations ahead and of the next
    // block are made, and each must count in its own second.
    for (let second = 0; second < 2 * BLOCK_SECONDS + 2; second += 1) {
      let admitted = 0;
      for (let i = 0; i < 10; i += 1) {
        now = blockStart + second * 1000 + i * 99;
        if ((await limiter.acquire(subject, 3)).allowed) admitted += 1;
      }
      admittedPerSecond.push(admitted);
    }
    expect(admittedPerSecond).toEqual(Array.from({ length: 2 * BLOCK_SECONDS + 2 }, () => 3));
  });

  it('a write that fails: nothing unreserved is admitted, the request that needed it gets the error', async () => {
    const subject = `key-${randomUUID()}`;
    const { counted, failWrites } = countingClient();
    const blockStart = nextBlockStart();
    let now = blockStart;
    const limiter = new DynamoDbRateLimiter(counted, local.names.tables.rateLimits, () => now, NO_PHASE);
    for (let i = 0; i < 20; i += 1) {
      now = blockStart + i * 50;
      expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
    }
    now = blockStart + 1000;
    expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
    // From here every write fails: the early one (running short) in the background, unseen, then the one a
    // request needs, which that request gets. What was reserved before is still spent.
    failWrites(true);
    let admitted = 1;
    let failure: unknown;
    for (let i = 1; i <= 60 && failure === undefined; i += 1) {
      now = blockStart + 1000 + i * 10;
      try {
        if ((await limiter.acquire(subject, 1000)).allowed) admitted += 1;
      } catch (error) {
        failure = error;
      }
    }
    expect((failure as Error | undefined)?.message).toBe('socket hang up');
    // The second's one reservation (20 at that rate, with the margin: 25) is all it admitted.
    expect(admitted).toBe(25);
    failWrites(false);
    expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
    counted.destroy();
  });

  it('a key that outruns its reservation late in a second costs a few more writes, not one per request', async () => {
    const subject = `key-${randomUUID()}`;
    const { counted, counts } = countingClient();
    const second = (Math.floor(Date.now() / 1000) + 1) * 1000;
    let now = second;
    const limiter = new DynamoDbRateLimiter(counted, local.names.tables.rateLimits, () => now, NO_PHASE);
    for (let i = 0; i < 10; i += 1) expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
    // The next second starts at the same pace (a reservation of about 10), then 40 more arrive at its very end.
    now = second + 1000;
    expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
    const before = counts['UpdateItemCommand'] ?? 0;
    now = second + 1950;
    for (let i = 0; i < 40; i += 1) expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
    // Reservations of 20, 40, ...: each asks for at least twice the one before.
    expect((counts['UpdateItemCommand'] ?? 0) - before).toBeLessThanOrEqual(3);
    counted.destroy();
  });

  it("each key's seconds begin at its own phase, the same in every instance, spread over the block", async () => {
    const phases = Array.from({ length: 1000 }, () => subjectPhaseMs(randomUUID()));
    expect(Math.min(...phases)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...phases)).toBeLessThan(BLOCK_SECONDS * 1000);
    // Spread: every tenth of the second, and every second of the block, holds some of 1,000 keys' phases.
    const tenths = new Set(phases.map((phase) => Math.floor((phase % 1000) / 100)));
    expect(tenths.size).toBe(10);
    const seconds = new Set(phases.map((phase) => Math.floor(phase / 1000)));
    expect(seconds.size).toBe(BLOCK_SECONDS);
    const subject = `key-${randomUUID()}`;
    const phase = subjectPhaseMs(subject);
    expect(subjectPhaseMs(subject)).toBe(phase);
    // The subject's second runs from phase to phase + 1000 ms of the clock: a limit of 1 admits one request in
    // it, refuses the rest (Retry-After until the phase comes round), and admits again after it.
    const start = (Math.floor(Date.now() / 1000) + 1) * 1000 + phase;
    let now = start;
    const first = new DynamoDbRateLimiter(local.db, local.names.tables.rateLimits, () => now);
    const second = new DynamoDbRateLimiter(local.db, local.names.tables.rateLimits, () => now);
    expect((await first.acquire(subject, 1)).allowed).toBe(true);
    now = start + 999;
    expect(await second.acquire(subject, 1)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now = start + 1000;
    expect((await second.acquire(subject, 1)).allowed).toBe(true);
  });

  it('a limit below one request (or not a number) admits nothing and writes nothing; 2.5 means 2', async () => {
    const { counted, counts } = countingClient();
    const limiter = new DynamoDbRateLimiter(counted, local.names.tables.rateLimits, frozenAt(Date.now()));
    for (const limit of [0, -3, 0.5, Number.NaN]) {
      expect(await limiter.acquire(`key-${randomUUID()}`, limit)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    }
    expect(counts['UpdateItemCommand']).toBeUndefined();
    const subject = `key-${randomUUID()}`;
    const decisions = [];
    for (let i = 0; i < 4; i += 1) decisions.push((await limiter.acquire(subject, 2.5)).allowed);
    expect(decisions).toEqual([true, true, false, false]);
    counted.destroy();
  });

  it('a new second starts a new count', async () => {
    const subject = `key-${randomUUID()}`;
    let now = Math.floor(Date.now() / 1000) * 1000;
    const limiter = new DynamoDbRateLimiter(local.db, local.names.tables.rateLimits, () => now, NO_PHASE);
    expect((await limiter.acquire(subject, 1)).allowed).toBe(true);
    expect(await limiter.acquire(subject, 1)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now += 1000;
    expect((await limiter.acquire(subject, 1)).allowed).toBe(true);
  });

  it('takes what is left of a window when a full reservation would pass the limit', async () => {
    const subject = `key-${randomUUID()}`;
    const clock = frozenAt(Date.now());
    // Seconds aligned with the clock's, so that the counter's item is found below.
    const first = new DynamoDbRateLimiter(local.db, local.names.tables.rateLimits, clock, NO_PHASE);
    const second = new DynamoDbRateLimiter(local.db, local.names.tables.rateLimits, clock, NO_PHASE);
    // Limit 25, two instances taking turns: reservations that would pass the limit shrink to what is left,
    // so together they serve exactly 25.
    let admitted = 0;
    for (let i = 0; i < 40; i += 1) {
      if ((await (i % 2 === 0 ? first : second).acquire(subject, 25)).allowed) admitted += 1;
    }
    expect(admitted).toBeLessThanOrEqual(25);
    expect(admitted).toBeGreaterThanOrEqual(20);
    const { bucket, attribute } = counterLocation(subject, Math.floor(clock() / 1000));
    const { Item } = await local.db.send(new GetCommand({ TableName: local.names.tables.rateLimits, Key: { bucket } }));
    // Every admitted request was reserved; unspent reservations are the only gap, and nothing passed 25.
    expect(Item?.[attribute]).toBe(25);
  });
});

describe('DynamoDbItemReader', () => {
  it('reads started in one tick go out as one BatchGetItem, across tables; a read alone as a GetItem', async () => {
    const taskId = randomUUID();
    const keyHash = `hash-${randomUUID()}`;
    await local.db.send(
      new PutCommand({ TableName: local.names.tables.tasks, Item: { task_id: taskId, prompt: 'fox' } }),
    );
    await local.db.send(
      new PutCommand({ TableName: local.names.tables.apiKeys, Item: { key_hash: keyHash, status: 'active' } }),
    );
    const { counted, counts } = countingClient();
    const reader = new DynamoDbItemReader(counted);

    const [task, key, missing] = await Promise.all([
      reader.get(local.names.tables.tasks, { task_id: taskId }),
      reader.get(local.names.tables.apiKeys, { key_hash: keyHash }),
      reader.get(local.names.tables.tasks, { task_id: randomUUID() }),
    ]);
    expect(task).toEqual({ task_id: taskId, prompt: 'fox' });
    expect(key).toEqual({ key_hash: keyHash, status: 'active' });
    expect(missing).toBeUndefined();
    expect(counts).toEqual({ BatchGetItemCommand: 1 });

    expect(await reader.get(local.names.tables.tasks, { task_id: taskId })).toEqual({ task_id: taskId, prompt: 'fox' });
    expect(counts).toEqual({ BatchGetItemCommand: 1, GetItemCommand: 1 });
    counted.destroy();
  });

  it('reads are fresh: nothing is cached between ticks', async () => {
    const keyHash = `hash-${randomUUID()}`;
    const reader = new DynamoDbItemReader(local.db);
    await local.db.send(
      new PutCommand({ TableName: local.names.tables.apiKeys, Item: { key_hash: keyHash, status: 'active' } }),
    );
    expect(await reader.get(local.names.tables.apiKeys, { key_hash: keyHash })).toMatchObject({ status: 'active' });
    await local.db.send(
      new PutCommand({ TableName: local.names.tables.apiKeys, Item: { key_hash: keyHash, status: 'disabled' } }),
    );
    expect(await reader.get(local.names.tables.apiKeys, { key_hash: keyHash })).toMatchObject({ status: 'disabled' });
  });

  it('the same item asked twice in one tick is answered to both', async () => {
    const taskId = randomUUID();
    await local.db.send(new PutCommand({ TableName: local.names.tables.tasks, Item: { task_id: taskId } }));
    const reader = new DynamoDbItemReader(local.db);
    const reads = await Promise.all([
      reader.get(local.names.tables.tasks, { task_id: taskId }),
      reader.get(local.names.tables.tasks, { task_id: taskId }),
    ]);
    expect(reads).toEqual([{ task_id: taskId }, { task_id: taskId }]);
  });
});
