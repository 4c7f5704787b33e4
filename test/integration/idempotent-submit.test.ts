/**
 * Idempotency-Key on submit against DynamoDB Local (docs/api-contract.md, "Idempotency-Key"): the record is part of the charge's
 * transaction, so 20 concurrent submits with one key make one task, one charge and one ledger entry and 19
 * replays; a submit whose transaction committed before its answer was lost replays on retry.
 */
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoDbIdempotencyStore } from '../../functions/adapters/dynamodb/idempotency.js';
import { DynamoDbTaskRepository } from '../../functions/adapters/dynamodb/task-repository.js';
import { DynamoDbApiKeyRepository } from '../../functions/adapters/dynamodb/accounts.js';
import { hashApiKey } from '../../functions/core/api-key.js';
import { InvalidRequestError } from '../../functions/core/api-error.js';
import type { TaskRepository } from '../../functions/core/ports/task-repository.js';
import { submitTaskIdempotently } from '../../functions/core/use-cases/submit-task.js';
import type { SubmitTaskDeps } from '../../functions/core/use-cases/submit-task.js';
import { catalogVideoModel } from '../../functions/providers/registry.js';
import { AdminStore } from '../../lib/ship/admin/admin-store.js';
import { InMemoryCatalog } from '../unit/fakes.js';
import { catalogRecords, PRO } from '../unit/support.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { storedBalance } from '../support/stored-money.js';

const local = useDynamoDbLocal('idempotent-submit');
const BODY = { model: PRO, prompt: 'a fox', duration: 5 };

async function newCaller() {
  const admin = new AdminStore(local.db, local.names.tables);
  const accountId = `acct-${randomUUID().slice(0, 8)}`;
  await admin.createAccount(accountId, '100');
  const { key } = await admin.createKey({ accountId });
  return { admin, caller: { accountId, keyHash: hashApiKey(key), keyHasQuota: false } };
}

function deps(tasks: TaskRepository = new DynamoDbTaskRepository(local.db, local.names.tables)): SubmitTaskDeps {
  return {
    keys: new DynamoDbApiKeyRepository(local.db, local.names.tables.apiKeys),
    models: new InMemoryCatalog(catalogRecords().map((record) => catalogVideoModel(record))),
    tasks,
    urls: { assertPublic: async () => undefined },
    uploads: { assertUsable: async () => undefined },
    idempotency: new DynamoDbIdempotencyStore(local.db, local.names.tables.idempotency),
    now: () => new Date(),
    newTaskId: randomUUID,
  };
}

const repositoryOf = () => new DynamoDbTaskRepository(local.db, local.names.tables);

class CrashError extends Error {}

/** The store's reads until the process "dies": the lookup before the charge works, the one after it fails. */
function crashAfterFirstRead() {
  const store = new DynamoDbIdempotencyStore(local.db, local.names.tables.idempotency);
  let reads = 0;
  return (id: string, now: Date) => {
    reads += 1;
    return reads === 1 ? store.find(id, now) : Promise.reject(new CrashError());
  };
}

async function tasksOf(accountId: string): Promise<string[]> {
  const { Items = [] } = await local.db.send(
    new ScanCommand({
      TableName: local.names.tables.tasks,
      FilterExpression: 'account_id = :a',
      ExpressionAttributeValues: { ':a': accountId },
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => item['task_id'] as string);
}

async function chargeEntries(accountId: string): Promise<string[]> {
  const { Items = [] } = await local.db.send(
    new QueryCommand({
      TableName: local.names.tables.ledger,
      KeyConditionExpression: 'account_id = :a AND begins_with(entry_id, :charge)',
      ExpressionAttributeValues: { ':a': accountId, ':charge': 'charge:' },
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => item['entry_id'] as string);
}

async function balanceUnits(accountId: string): Promise<number> {
  return (await storedBalance(local.db, local.names.tables.accounts, accountId)) as number;
}

describe('Idempotency-Key on submit', () => {
  it('20 at once with one key: one task, one charge, one ledger entry, 19 replays of the same answer', async () => {
    const { caller } = await newCaller();
    const shared = deps();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => submitTaskIdempotently(caller, BODY, shared, 'burst-1')),
    );
    expect(outcomes.filter((outcome) => !outcome.replayed)).toHaveLength(1);
    expect(new Set(outcomes.map((outcome) => JSON.stringify(outcome.answer))).size).toBe(1);
    const [taskId] = await tasksOf(caller.accountId);
    expect(await tasksOf(caller.accountId)).toEqual([outcomes[0]!.answer.task_id]);
    expect(await chargeEntries(caller.accountId)).toEqual([`charge:${taskId}`]);
    expect(await balanceUnits(caller.accountId)).toBe(1_000_000 - Math.round(outcomes[0]!.answer.cost * 10_000));
  });

  it('a submit that committed and then crashed before answering (a 500) replays its task when retried', async () => {
    const { caller, admin } = await newCaller();
    // What a crash after the commit leaves: the task, its charge and the key's record, and no answer sent.
    const crashed: TaskRepository = Object.assign(Object.create(repositoryOf()) as TaskRepository, {
      createCharged: async (...args: Parameters<TaskRepository['createCharged']>) => {
        await repositoryOf().createCharged(...args);
        throw new CrashError();
      },
    });
    const dying = { ...deps(crashed), idempotency: { find: crashAfterFirstRead() } };
    await expect(submitTaskIdempotently(caller, BODY, dying, 'lost-1')).rejects.toThrow(CrashError);
    const [committed] = await tasksOf(caller.accountId);
    const retry = await submitTaskIdempotently(caller, BODY, deps(), 'lost-1');
    expect(retry).toMatchObject({ replayed: true, answer: { task_id: committed, status: 'pending' } });
    expect(await tasksOf(caller.accountId)).toEqual([committed]);
    expect(await chargeEntries(caller.accountId)).toEqual([`charge:${committed}`]);
    expect((await admin.verifyLedger()).mismatches).toEqual([]);
  });

  it('an error after the commit, in the same request: its own answer from the record, not a 500', async () => {
    const { caller } = await newCaller();
    const lossy: TaskRepository = Object.assign(Object.create(repositoryOf()) as TaskRepository, {
      createCharged: async (...args: Parameters<TaskRepository['createCharged']>) => {
        await repositoryOf().createCharged(...args);
        throw new Error('connection reset after the commit');
      },
    });
    const outcome = await submitTaskIdempotently(caller, BODY, deps(lossy), 'reset-1');
    expect(outcome.replayed).toBe(false);
    expect(await tasksOf(caller.accountId)).toEqual([outcome.answer.task_id]);
  });

  it('another body with the key: 400, nothing charged; the same body without a key: a new task', async () => {
    const { caller } = await newCaller();
    const first = await submitTaskIdempotently(caller, BODY, deps(), 'k-1');
    const before = await balanceUnits(caller.accountId);
    await expect(submitTaskIdempotently(caller, { ...BODY, duration: 6 }, deps(), 'k-1')).rejects.toThrow(
      InvalidRequestError,
    );
    expect(await balanceUnits(caller.accountId)).toBe(before);
    const unkeyed = await submitTaskIdempotently(caller, BODY, deps(), undefined);
    expect(unkeyed.answer.task_id).not.toBe(first.answer.task_id);
  });

  it('an expired record still stored (TTL lags) frees the key: a new task, the record replaced', async () => {
    const { caller } = await newCaller();
    const first = await submitTaskIdempotently(caller, BODY, deps(), 'old-1');
    const later = { ...deps(), now: () => new Date(Date.now() + 25 * 3600 * 1000) };
    const second = await submitTaskIdempotently(caller, BODY, later, 'old-1');
    expect(second.replayed).toBe(false);
    expect(second.answer.task_id).not.toBe(first.answer.task_id);
    expect(await submitTaskIdempotently(caller, BODY, later, 'old-1')).toEqual({
      answer: second.answer,
      replayed: true,
      headers: second.headers,
    });
  });
});
