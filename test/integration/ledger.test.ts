/**
 * The ledger in DynamoDB Local (docs/money-and-ledger.md, "Ledger"): each movement writes one entry in its own transaction, at
 * most once per cause (charge, refund, top-up request id, opening); a listing pages newest first by cursor;
 * ledger:verify sees every account balance, and an account from before the ledger until it is backfilled.
 */
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb/ledger.js';
import { DynamoDbTaskRepository } from '../../functions/adapters/dynamodb/task-repository.js';
import { InvalidRequestError } from '../../functions/core/api-error.js';
import { hashApiKey } from '../../functions/core/api-key.js';
import type { LedgerEntry } from '../../functions/core/ledger.js';
import { AdminError, AdminStore } from '../../lib/ship/admin/admin-store.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { storedBalance } from '../support/stored-money.js';
import { taskRecordFor } from '../support/task-records.js';

const local = useDynamoDbLocal('ledger');

async function entries(accountId: string): Promise<LedgerEntry[]> {
  const { Items = [] } = await local.db.send(
    new QueryCommand({
      TableName: local.names.tables.ledger,
      KeyConditionExpression: 'account_id = :a',
      ExpressionAttributeValues: { ':a': accountId },
      ConsistentRead: true,
    }),
  );
  return Items as LedgerEntry[];
}

async function balance(accountId: string): Promise<number> {
  return (await storedBalance(local.db, local.names.tables.accounts, accountId)) as number;
}

async function newAccount(balanceYuan = '10') {
  const admin = new AdminStore(local.db, local.names.tables);
  const accountId = `acct-${randomUUID().slice(0, 8)}`;
  await admin.createAccount(accountId, balanceYuan);
  const { key } = await admin.createKey({ accountId });
  return { admin, accountId, keyHash: hashApiKey(key) };
}

describe('ledger entries, at most once per cause', () => {
  it('account:create writes the opening balance as an entry; a zero balance writes none', async () => {
    const { accountId } = await newAccount('10');
    expect(await entries(accountId)).toEqual([
      expect.objectContaining({ entry_id: 'opening', type: 'topup', amount_units: 100_000 }),
    ]);
    const empty = await newAccount('0');
    expect(await entries(empty.accountId)).toEqual([]);
  });

  it('a charge and its refund: one entry each, in their transactions; a second refund writes nothing', async () => {
    const { accountId, keyHash } = await newAccount('10');
    const repository = new DynamoDbTaskRepository(local.db, local.names.tables);
    const task = taskRecordFor({ accountId, keyHash }, { cost_units: 42_000 });
    await repository.createCharged(task, { accountId, keyHash, keyHasQuota: false, costUnits: 42_000 });
    const now = new Date().toISOString();
    expect(await repository.refund(task, 'refunded', 'cancelled', now)).toBe(true);
    expect(await repository.refund(task, 'failed', 'late', now)).toBe(false);
    const ids = (await entries(accountId)).map((entry) => [entry.entry_id, entry.type, entry.amount_units]);
    expect(ids.sort()).toEqual([
      [`charge:${task.task_id}`, 'charge', -42_000],
      ['opening', 'topup', 100_000],
      [`refund:${task.task_id}`, 'refund', 42_000],
    ]);
    expect(await balance(accountId)).toBe(100_000);
  });

  it('a charge refused (balance short) writes no entry', async () => {
    const { accountId, keyHash } = await newAccount('1');
    const repository = new DynamoDbTaskRepository(local.db, local.names.tables);
    const task = taskRecordFor({ accountId, keyHash }, { cost_units: 42_000 });
    await expect(
      repository.createCharged(task, { accountId, keyHash, keyHasQuota: false, costUnits: 42_000 }),
    ).rejects.toThrow(/insufficient balance/);
    expect((await entries(accountId)).map((entry) => entry.entry_id)).toEqual(['opening']);
  });

  it('a top-up retried with its request id adds once and says so; another amount with it is refused', async () => {
    const { admin, accountId } = await newAccount('10');
    const requestId = randomUUID();
    expect(await admin.topUp(accountId, '5', requestId)).toEqual({ balance: 15, added: true });
    expect(await admin.topUp(accountId, '5', requestId)).toEqual({ balance: 15, added: false });
    await expect(admin.topUp(accountId, '6', requestId)).rejects.toThrow(AdminError);
    // At once, too: five tries of one request id add once.
    const again = randomUUID();
    const results = await Promise.all(Array.from({ length: 5 }, () => admin.topUp(accountId, '1', again)));
    expect(results.filter((result) => result.added)).toHaveLength(1);
    expect(await balance(accountId)).toBe(160_000);
    expect((await entries(accountId)).filter((entry) => entry.type === 'topup')).toHaveLength(3);
  });
});

describe('balance:adjust', () => {
  it('adds or takes away with a reason, at most once per request id, never below zero', async () => {
    const { admin, accountId } = await newAccount('10');
    expect(await admin.adjust(accountId, '-2.5', 'goodwill reversed', 'adj-1')).toEqual({ balance: 7.5, added: true });
    expect(await admin.adjust(accountId, '-2.5', 'goodwill reversed', 'adj-1')).toEqual({ balance: 7.5, added: false });
    await expect(admin.adjust(accountId, '-8', 'too much', 'adj-2')).rejects.toThrow(/below zero/);
    expect(await admin.adjust(accountId, '1', 'compensation', 'adj-3')).toEqual({ balance: 8.5, added: true });
    const adjustments = (await entries(accountId)).filter((entry) => entry.type === 'adjustment');
    expect(adjustments.map((entry) => [entry.entry_id, entry.amount_units]).sort()).toEqual([
      ['adjustment:adj-1', -25_000],
      ['adjustment:adj-3', 10_000],
    ]);
    expect(adjustments.find((entry) => entry.entry_id === 'adjustment:adj-1')).toMatchObject({
      reason: 'goodwill reversed',
    });
    expect((await admin.verifyLedger()).mismatches).toEqual([]);
  });
});

describe('listing', () => {
  it('pages newest first by an opaque cursor, the last page with next_cursor null', async () => {
    const { admin, accountId } = await newAccount('1');
    for (let index = 0; index < 4; index += 1) await admin.topUp(accountId, String(index + 1), `req-${index}`);
    const ledger = new DynamoDbLedger(local.db, local.names.tables.ledger);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await ledger.list(accountId, 2, cursor);
      seen.push(...page.entries.map((entry) => entry.entry_id));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    const all = await entries(accountId);
    const newestFirst = [...all].sort((a, b) => b.listed_at.localeCompare(a.listed_at)).map((e) => e.entry_id);
    expect(seen).toEqual(newestFirst);
    expect(seen).toHaveLength(5);
    // A full last page promises no next one.
    expect((await ledger.list(accountId, 5)).nextCursor).toBeNull();
  });

  it('a cursor of another account, or a made-up one, is a 400 and reads nothing', async () => {
    const mine = await newAccount('1');
    const theirs = await newAccount('1');
    await theirs.admin.topUp(theirs.accountId, '1', 'x');
    const ledger = new DynamoDbLedger(local.db, local.names.tables.ledger);
    const page = await ledger.list(theirs.accountId, 1);
    expect(page.nextCursor).not.toBeNull();
    await expect(ledger.list(mine.accountId, 1, page.nextCursor!)).rejects.toThrow(InvalidRequestError);
    for (const bad of ['abc', '!!!', Buffer.from('{"account_id":1}').toString('base64url')]) {
      await expect(ledger.list(mine.accountId, 1, bad), bad).rejects.toThrow(InvalidRequestError);
    }
  });
});

describe('ledger:verify and ledger:backfill', () => {
  it('an account from before the ledger differs until backfilled; a balance changed by hand is a mismatch', async () => {
    const { admin, accountId } = await newAccount('10');
    const legacy = `legacy-${randomUUID().slice(0, 8)}`;
    await local.db.send(
      new PutCommand({
        TableName: local.names.tables.accounts,
        Item: { account_id: legacy, balance_units: 70_000, created_at: '2025-01-01T00:00:00Z' },
      }),
    );
    let report = await admin.verifyLedger();
    expect(report.mismatches.map((m) => m.accountId)).toEqual([legacy]);
    expect(report.mismatches[0]).toMatchObject({ balanceUnits: 70_000n, entriesUnits: 0n, opened: false });

    expect(await admin.backfillOpening(legacy)).toBe(70_000n);
    expect(await admin.backfillOpening(legacy)).toBeUndefined();
    await admin.topUp(legacy, '1', 'after-backfill');
    report = await admin.verifyLedger();
    expect(report.mismatches).toEqual([]);
    expect(report.accounts).toBeGreaterThanOrEqual(2);

    await local.db.send(
      new UpdateCommand({
        TableName: local.names.tables.accounts,
        Key: { account_id: accountId },
        UpdateExpression: 'ADD balance_units :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    report = await admin.verifyLedger();
    expect(report.mismatches).toEqual([
      expect.objectContaining({ accountId, balanceUnits: 100_001n, entriesUnits: 100_000n, opened: true }),
    ]);
    // An account with its opening entry is not backfilled: the difference is for a person to look into.
    await expect(admin.backfillOpening(accountId)).rejects.toThrow(/already has an opening entry/);
  });
});
