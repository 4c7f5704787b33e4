/**
 * Balances stay within MAX_BALANCE_UNITS (10^9 CNY): admin writes are checked before they are made and by their
 * own condition (so concurrent top-ups cannot pass the bound together), and a stored balance out of bounds
 * still reads (as the bound), never as an error. On DynamoDB Local, with the real account repository.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbAccountRepository } from '../../functions/adapters/dynamodb/accounts.js';
import { balanceToYuan, InvalidAmountError, MAX_BALANCE_UNITS, MAX_BALANCE_YUAN } from '../../functions/core/money.js';
import { getBalance } from '../../functions/core/use-cases/get-balance.js';
import { AdminError, AdminStore } from '../../lib/ship/admin/admin-store.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { storedBalance as storedBalanceOf } from '../support/stored-money.js';

const local = useDynamoDbLocal('money-bounds');
let admin: AdminStore;
beforeAll(() => {
  admin = new AdminStore(local.db, local.names.tables);
});

const newId = () => `acct-${randomUUID().slice(0, 8)}`;

async function storedBalance(accountId: string): Promise<unknown> {
  return (await storedBalanceOf(local.db, local.names.tables.accounts, accountId)) as unknown;
}

describe('the bound', () => {
  it('is 10^9 CNY, far inside the safe integers even doubled', () => {
    expect(MAX_BALANCE_YUAN).toBe(1_000_000_000);
    expect(MAX_BALANCE_UNITS).toBe(10 ** 13);
    expect(Number.isSafeInteger(2 * MAX_BALANCE_UNITS)).toBe(true);
  });
});

describe('account:create', () => {
  it('accepts the bound itself and refuses a cent more, writing nothing', async () => {
    const atBound = newId();
    expect(await admin.createAccount(atBound, '1000000000')).toBe(MAX_BALANCE_YUAN);
    const above = newId();
    await expect(admin.createAccount(above, '1000000000.0001')).rejects.toThrow(
      new InvalidAmountError('the balance must be at most 1,000,000,000 CNY'),
    );
    expect(await admin.accountExists(above)).toBe(false);
  });
});

describe('balance:topup', () => {
  it('refuses an amount past the bound before writing anything', async () => {
    const id = newId();
    await admin.createAccount(id, '5');
    await expect(admin.topUp(id, '99999999999', randomUUID())).rejects.toThrow(
      'the amount must be at most 1,000,000,000 CNY',
    );
    expect(await storedBalance(id)).toBe(50_000);
  });

  it('refuses a top-up that would take the balance past the bound; up to it is fine', async () => {
    const id = newId();
    await admin.createAccount(id, '999999999');
    await expect(admin.topUp(id, '1.0001', randomUUID())).rejects.toThrow(
      'refused: the balance (999999999 CNY) plus 1.0001 CNY would pass the maximum of 1,000,000,000 CNY',
    );
    expect(await storedBalance(id)).toBe(9_999_999_990_000);
    expect((await admin.topUp(id, '1', randomUUID())).balance).toBe(MAX_BALANCE_YUAN);
    await expect(admin.topUp(id, '0.0001', randomUUID())).rejects.toThrow(/would pass the maximum/);
    expect(await storedBalance(id)).toBe(MAX_BALANCE_UNITS);
  });

  it('concurrent top-ups cannot pass the bound together: the condition is part of the write', async () => {
    const id = newId();
    await admin.createAccount(id, '0');
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => admin.topUp(id, '125000000', randomUUID())),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(8);
    for (const result of results.filter((r) => r.status === 'rejected')) {
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(AdminError);
    }
    expect(await storedBalance(id)).toBe(MAX_BALANCE_UNITS);
  });

  it('an unknown account is still named as such', async () => {
    await expect(admin.topUp(newId(), '1', randomUUID())).rejects.toThrow(/does not exist/);
  });

  it('refuses to add to a balance already out of bounds (older data)', async () => {
    const id = newId();
    await writeBalance(id, '100000000000000000000');
    await expect(admin.topUp(id, '1', randomUUID())).rejects.toThrow(
      'refused: the balance (10000000000000000 CNY) plus 1 CNY would pass the maximum of 1,000,000,000 CNY',
    );
  });
});

describe('a quota', () => {
  it('is bounded like a balance', async () => {
    const id = newId();
    await admin.createAccount(id, '1');
    await expect(admin.createKey({ accountId: id, quotaYuan: '1000000000.0001' })).rejects.toThrow(
      'the quota must be at most 1,000,000,000 CNY',
    );
    expect(await admin.listKeys(id)).toEqual([]);
  });
});

describe('GET /account/balance of a stored balance out of bounds', () => {
  const accounts = () => new DynamoDbAccountRepository(local.db, local.names.tables.accounts);
  const balanceOf = (accountId: string) => getBalance({ accountId, keyHash: 'unused', keyHasQuota: false }, accounts());

  it.each([
    ['within bounds: exact', '1234567891234', 123_456_789.1234],
    ['at the bound', String(MAX_BALANCE_UNITS), MAX_BALANCE_YUAN],
    ['just past it (a refund after a top-up to the maximum)', String(MAX_BALANCE_UNITS + 42_000), MAX_BALANCE_YUAN],
    ['past 2^53 units (read back as a bigint)', '100000000000000000000', MAX_BALANCE_YUAN],
    ['far below zero', '-100000000000000000000', -MAX_BALANCE_YUAN],
  ])('%s', async (_label, units, yuan) => {
    const id = newId();
    await writeBalance(id, units);
    expect(await balanceOf(id)).toEqual({ balance: yuan, currency: 'CNY' });
  });

  it('balanceToYuan never throws', () => {
    expect(balanceToYuan(10n ** 30n)).toBe(MAX_BALANCE_YUAN);
    expect(balanceToYuan(12_345)).toBe(1.2345);
    expect(balanceToYuan(1.5)).toBe(0.0001);
    expect(balanceToYuan(Number.MAX_VALUE)).toBe(MAX_BALANCE_YUAN);
  });
});

/** The account item with any balance, written as a raw number as older data could hold it. */
async function writeBalance(accountId: string, units: string) {
  await local.client.send(
    new PutItemCommand({
      TableName: local.names.tables.accounts,
      Item: { account_id: { S: accountId }, balance_units: { N: units }, created_at: { S: '2026-01-01T00:00:00Z' } },
    }),
  );
}
