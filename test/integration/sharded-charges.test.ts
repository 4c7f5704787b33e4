/**
 * The balance and the key's spend over shards (docs/money-and-ledger.md, "Balance shards") on DynamoDB Local:
 * many charges of one account and key at once make exactly the tasks answered, and a model of charges,
 * refunds, top-ups and operator debits keeps every invariant after each step.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DynamoDbTaskRepository } from '../../functions/adapters/dynamodb/task-repository.js';
import { readShards } from '../../functions/adapters/dynamodb/money-shards.js';
import { hashApiKey } from '../../functions/core/api-key.js';
import { InsufficientBalanceError } from '../../functions/core/api-error.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { AdminStore } from '../../lib/ship/admin/admin-store.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { storedBalance, storedSpend } from '../support/stored-money.js';
import { taskRecordFor } from '../support/task-records.js';

const local = useDynamoDbLocal('sharded-charges');
const COST = 30_000;

async function newAccount(balanceYuan: string) {
  const admin = new AdminStore(local.db, local.names.tables);
  const accountId = `acct-${randomUUID().slice(0, 8)}`;
  await admin.createAccount(accountId, balanceYuan);
  const { key } = await admin.createKey({ accountId });
  const keyHash = hashApiKey(key);
  const repository = new DynamoDbTaskRepository(local.db, local.names.tables);
  // As a function with a minute left would: DynamoDB Local on a shared machine is slow, and the bound under
  // test is the money, not the time.
  const charge = (task: TaskRecord) =>
    repository.createCharged(task, {
      accountId,
      keyHash,
      keyHasQuota: false,
      costUnits: task.cost_units,
      settleBy: Date.now() + 60_000,
    });
  const newTask = () => taskRecordFor({ accountId, keyHash }, { cost_units: COST });
  return { admin, accountId, keyHash, repository, charge, newTask };
}

async function money(accountId: string, keyHash: string) {
  const shards = await readShards(local.db, {
    table: local.names.tables.accounts,
    keyName: 'account_id',
    id: accountId,
  });
  return {
    balance: await storedBalance(local.db, local.names.tables.accounts, accountId),
    spend: await storedSpend(local.db, local.names.tables.apiKeys, keyHash),
    lowestShard: Math.min(...shards.map((item) => Number(item?.['balance_units'] ?? 0))),
  };
}

describe('charges of one account at once', () => {
  it('200 at once, enough for 150: exactly 150 tasks made and charged, the rest 402, nothing else', async () => {
    const { accountId, keyHash, charge, newTask, admin } = await newAccount(String((150 * COST) / 10_000));
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, async () => {
        const task = newTask();
        try {
          await charge(task);
          return 'ok';
        } catch (error) {
          if (error instanceof InsufficientBalanceError) return '402';
          return `${(error as Error).name}: ${(error as Error).message}`;
        }
      }),
    );
    const counted = outcomes.reduce<Record<string, number>>((n, o) => ({ ...n, [o]: (n[o] ?? 0) + 1 }), {});
    expect(counted).toEqual({ ok: 150, '402': 50 });
    expect(await money(accountId, keyHash)).toEqual({ balance: 0, spend: 150 * COST, lowestShard: 0 });
    expect((await admin.verifyLedger()).mismatches).toEqual([]);
  }, 120_000);
});

type Step =
  | { kind: 'charge'; units: number }
  | { kind: 'refund'; pick: number }
  | { kind: 'topup'; units: number }
  | { kind: 'debit'; units: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('charge' as const), units: fc.integer({ min: 1, max: 60_000 }) }),
  fc.record({ kind: fc.constant('refund' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('topup' as const), units: fc.integer({ min: 1, max: 40_000 }) }),
  fc.record({ kind: fc.constant('debit' as const), units: fc.integer({ min: 1, max: 40_000 }) }),
);

describe('a model of the money', () => {
  it('charges, refunds, top-ups and debits, in rounds of concurrent steps: the invariants hold after each round', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(step, { minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 6 }),
        async (rounds) => {
          const { admin, accountId, keyHash, repository, charge } = await newAccount('10');
          let expected = 100_000;
          let spent = 0;
          const charged: TaskRecord[] = [];
          for (const round of rounds) {
            await Promise.all(
              round.map(async (s) => {
                if (s.kind === 'charge') {
                  const task = taskRecordFor({ accountId, keyHash: keyHash }, { cost_units: s.units });
                  try {
                    await charge(task);
                    charged.push(task);
                    expected -= s.units;
                    spent += s.units;
                  } catch (error) {
                    if (!(error instanceof InsufficientBalanceError)) throw error;
                  }
                } else if (s.kind === 'refund' && charged.length > 0) {
                  const [task] = charged.splice(s.pick % charged.length, 1);
                  if (await repository.refund(task!, 'failed', 'model', new Date().toISOString())) {
                    expected += task!.cost_units;
                    spent -= task!.cost_units;
                  }
                } else if (s.kind === 'topup') {
                  await admin.topUp(accountId, String(s.units / 10_000), randomUUID());
                  expected += s.units;
                } else if (s.kind === 'debit') {
                  try {
                    await admin.adjust(accountId, `-${s.units / 10_000}`, 'model', randomUUID());
                    expected -= s.units;
                  } catch {
                    // Refused: more than the balance; nothing moved.
                  }
                }
              }),
            );
            const now = await money(accountId, keyHash);
            expect(now.lowestShard).toBeGreaterThanOrEqual(0);
            expect(now.balance).toBe(expected);
            expect(now.spend).toBe(spent);
            expect((await admin.verifyLedger()).mismatches).toEqual([]);
          }
        },
      ),
      { numRuns: 8 },
    );
  }, 300_000);
});

describe('a charge against its deadline', () => {
  /** The repository on a client that holds every charge transaction `delayMs` before sending it. */
  const slow = (delayMs: number) => {
    const sent: Promise<unknown>[] = [];
    const db = {
      send: async (command: unknown) => {
        if (command instanceof TransactWriteCommand) {
          const late = sleep(delayMs).then(() => local.db.send(command));
          sent.push(late.catch(() => undefined));
          return late;
        }
        return local.db.send(command as GetCommand);
      },
    } as unknown as DynamoDBDocumentClient;
    return { repository: new DynamoDbTaskRepository(db, local.names.tables), sent };
  };

  it('no time left to start: 429 in its own words, nothing charged', async () => {
    const { accountId, keyHash, repository, newTask } = await newAccount('10');
    const task = newTask();
    const charge = { accountId, keyHash, keyHasQuota: false, costUnits: COST, settleBy: Date.now() + 500 };
    await expect(repository.createCharged(task, charge)).rejects.toMatchObject({ code: 429 });
    expect(await money(accountId, keyHash)).toMatchObject({ balance: 100_000, spend: 0 });
  });

  it('a try still in flight at the deadline is voided: 429, and it can never commit after', async () => {
    const { accountId, keyHash, newTask } = await newAccount('10');
    const { repository, sent } = slow(3_000);
    const task = newTask();
    const charge = { accountId, keyHash, keyHasQuota: false, costUnits: COST, settleBy: Date.now() + 2_500 };
    await expect(repository.createCharged(task, charge)).rejects.toMatchObject({ code: 429 });
    await Promise.all(sent);
    expect(await money(accountId, keyHash)).toMatchObject({ balance: 100_000, spend: 0 });
    const { Item } = await local.db.send(
      new GetCommand({ TableName: local.names.tables.tasks, Key: { task_id: task.task_id }, ConsistentRead: true }),
    );
    expect(Item).toBeUndefined();
  }, 30_000);

  it('a try that committed just before the deadline answers as charged', async () => {
    const { accountId, keyHash, newTask } = await newAccount('100');
    // 6.25 CNY a shard: the first try's shard covers it.
    const { repository } = slow(2_400);
    const task = newTask();
    const charge = { accountId, keyHash, keyHasQuota: false, costUnits: COST, settleBy: Date.now() + 2_600 };
    await repository.createCharged(task, charge);
    expect(await money(accountId, keyHash)).toMatchObject({ balance: 1_000_000 - COST, spend: COST });
  }, 30_000);

  it('a try whose answer was lost (the connection dropped after it committed) answers as charged', async () => {
    const { accountId, keyHash, newTask } = await newAccount('100');
    const db = {
      send: async (command: unknown) => {
        const result = await local.db.send(command as GetCommand);
        if (command instanceof TransactWriteCommand)
          throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
        return result;
      },
    } as unknown as DynamoDBDocumentClient;
    const task = newTask();
    await new DynamoDbTaskRepository(db, local.names.tables).createCharged(task, {
      accountId,
      keyHash,
      keyHasQuota: false,
      costUnits: COST,
    });
    expect(await money(accountId, keyHash)).toMatchObject({ balance: 1_000_000 - COST, spend: COST });
  });
});
