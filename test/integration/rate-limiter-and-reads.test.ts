/**
 * The two storage paths every API request takes, against DynamoDB Local: the per-key limiter (reserved
 * shares, never more than the limit in a second, across instances) and the coalesced consistent reads.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoDbItemReader } from '../../functions/adapters/dynamodb-item-reader.js';
import { DynamoDbRateLimiter, subjectPhaseMs } from '../../functions/adapters/dynamodb-rate-limiter.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/local-aws.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';

const local = useDynamoDbLocal('limits');

/** Counts the requests a client sends, by command. */
function countingClient() {
  const counts: Record<string, number> = {};
  const counted = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: local.dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
  );
  counted.middlewareStack.add(
    (next, context) => async (args) => {
      counts[context.commandName ?? '?'] = (counts[context.commandName ?? '?'] ?? 0) + 1;
      return next(args);
    },
    { step: 'initialize' },
  );
  return { counted, counts };
}

/** Subjects' seconds aligned with the clock's, for tests that step the clock by whole seconds. */
const NO_PHASE = () => 0;

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

  it('reserves about what it served the second before: a steady instance writes once a second', async () => {
    const subject = `key-${randomUUID()}`;
    const { counted, counts } = countingClient();
    let now = (Math.floor(Date.now() / 1000) + 1) * 1000;
    const limiter = new DynamoDbRateLimiter(counted, local.names.tables.rateLimits, () => now, NO_PHASE);
    for (let i = 0; i < 30; i += 1) expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
    const firstSecond = counts['UpdateItemCommand'] ?? 0;
    // A new instance knows nothing of its rate yet: small reservations, growing with what it serves.
    expect(firstSecond).toBeGreaterThan(1);
    expect(firstSecond).toBeLessThan(30);
    now += 1000;
    for (let i = 0; i < 30; i += 1) expect((await limiter.acquire(subject, 1000)).allowed).toBe(true);
    expect((counts['UpdateItemCommand'] ?? 0) - firstSecond).toBe(1);
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

  it("each key's seconds begin at its own phase, the same in every instance, spread over the second", async () => {
    const phases = Array.from({ length: 1000 }, () => subjectPhaseMs(randomUUID()));
    expect(Math.min(...phases)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...phases)).toBeLessThan(1000);
    // Spread: every tenth of the second holds some of 1,000 keys' phases.
    const tenths = new Set(phases.map((phase) => Math.floor(phase / 100)));
    expect(tenths.size).toBe(10);
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
    const window = Math.floor(clock() / 1000);
    const { Item } = await local.db.send(
      new GetCommand({ TableName: local.names.tables.rateLimits, Key: { bucket: `${subject}#${window}` } }),
    );
    // Every admitted request was reserved; unspent reservations are the only gap, and nothing passed 25.
    expect(Item?.['hits']).toBe(25);
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
