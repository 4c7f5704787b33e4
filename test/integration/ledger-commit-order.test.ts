/**
 * The transactions list on DynamoDB Local (docs/money-and-ledger.md, "Listing order"): by the cause's time, then
 * the entry id, whatever order the movements committed in; every committed movement is listed once, and the
 * entries add up to the balance.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb/ledger.js';
import { DynamoDbTaskRepository } from '../../functions/adapters/dynamodb/task-repository.js';
import { hashApiKey } from '../../functions/core/api-key.js';
import type { LedgerEntry } from '../../functions/core/ledger.js';
import { InsufficientBalanceError } from '../../functions/core/api-error.js';
import { AdminStore } from '../../lib/ship/admin/admin-store.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { storedBalance } from '../support/stored-money.js';
import { taskRecordFor } from '../support/task-records.js';

const local = useDynamoDbLocal('ledger-order');
const BASE = Date.parse('2026-11-21T10:00:00.000Z');
/** An ISO time `seconds` after BASE (negative: before). */
const at = (seconds: number) => new Date(BASE + seconds * 1000).toISOString();

/** A fresh account and key; the admin store dates its movements by `clock`. */
async function newAccount(balanceYuan: string, clock: () => Date) {
  const admin = new AdminStore(local.db, local.names.tables, clock);
  const accountId = `acct-${randomUUID().slice(0, 8)}`;
  await admin.createAccount(accountId, balanceYuan);
  const { key } = await admin.createKey({ accountId });
  return { admin, accountId, keyHash: hashApiKey(key) };
}

/** Every entry the list shows, newest first, page by page. */
async function listed(accountId: string): Promise<LedgerEntry[]> {
  const ledger = new DynamoDbLedger(local.db, local.names.tables.ledger);
  const all: LedgerEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await ledger.list(accountId, 3, cursor);
    all.push(...page.entries);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return all;
}

/** The running balance after each entry, rebuilt from the list oldest first. */
function runningBalances(newestFirst: LedgerEntry[]): number[] {
  let balance = 0;
  return [...newestFirst].reverse().map((entry) => (balance += entry.amount_units));
}

async function balanceOf(accountId: string): Promise<number | undefined> {
  return (await storedBalance(local.db, local.names.tables.accounts, accountId)) as number | undefined;
}

describe('the transactions list', () => {
  it('lists a charge dated before a top-up before it, though it committed after it (the weaker order)', async () => {
    const { admin, accountId, keyHash } = await newAccount('0', () => new Date(at(10)));
    // The top-up commits first, dated 10 s; the charge, dated 5 s (its submit took the time before the
    // top-up committed), commits after it: it needs the top-up's money.
    await admin.topUp(accountId, '5', 'top-up-first');
    const repository = new DynamoDbTaskRepository(local.db, local.names.tables);
    const task = taskRecordFor({ accountId, keyHash }, { cost_units: 50_000, created_at: at(5) });
    await repository.createCharged(task, { accountId, keyHash, keyHasQuota: false, costUnits: 50_000 });

    const entries = await listed(accountId);
    // No item orders commits any more: the list follows the causes' times, so a running balance rebuilt from
    // it may dip below zero between movements that overlapped, and ends at the balance.
    expect(entries.map((entry) => entry.entry_id)).toEqual(['topup:top-up-first', `charge:${task.task_id}`]);
    expect(runningBalances(entries)).toEqual([-50_000, 0]);
    expect(entries[1]?.created_at).toBe(at(5));
    expect(entries[1]!.listed_at < entries[0]!.listed_at).toBe(true);
  });

  it('charges, refunds and top-ups at once, each dated before the one issued before it: all listed, by time', async () => {
    // A clock that goes backwards: every movement is dated a second before the previous one.
    let tick = 0;
    const backwards = () => new Date(at(-(tick += 1)));
    const { admin, accountId, keyHash } = await newAccount('3', backwards);
    const repository = new DynamoDbTaskRepository(local.db, local.names.tables);
    const tasks = Array.from({ length: 8 }, () =>
      taskRecordFor({ accountId, keyHash }, { cost_units: 10_000, created_at: backwards().toISOString() }),
    );
    const charged: typeof tasks = [];
    await Promise.all([
      ...tasks.map(async (task) => {
        try {
          await repository.createCharged(task, { accountId, keyHash, keyHasQuota: false, costUnits: 10_000 });
          charged.push(task);
          // Half of them fail and are refunded straight away.
          if (charged.length % 2 === 0) {
            await repository.refund(task, 'failed', 'generation failed', backwards().toISOString());
          }
        } catch (error) {
          // A charge the balance did not cover at its moment: refused, nothing written.
          if (!(error instanceof InsufficientBalanceError)) throw error;
        }
      }),
      ...Array.from({ length: 3 }, (_, index) => admin.topUp(accountId, '1', `top-up-${index}`)),
    ]);
    expect(charged.length).toBeGreaterThan(0);

    const entries = await listed(accountId);
    const balances = runningBalances(entries);
    expect(balances.at(-1)).toBe(await balanceOf(accountId));
    const keys = entries.map((entry) => entry.listed_at);
    expect(keys).toEqual([...keys].sort().reverse());
    // Every movement that committed is listed: the opening, each charge and refund, each top-up.
    expect(entries).toHaveLength(1 + charged.length + Math.floor(charged.length / 2) + 3);
    expect((await admin.verifyLedger()).mismatches).toEqual([]);
  });
});
