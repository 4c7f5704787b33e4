/**
 * The console's storage in DynamoDB Local (docs/console.md): a first sign-in opens one account however many requests
 * race; keys made, listed, renamed, disabled and re-quota'd keep the charge's invariants; a top-up code adds
 * once, to one account, with its ledger entry; this month's spend is the ledger's.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoDbApiKeyRepository } from '../../functions/adapters/dynamodb/accounts.js';
import { DynamoDbConsoleKeys } from '../../functions/adapters/dynamodb/console-keys.js';
import { DynamoDbConsoleUsers } from '../../functions/adapters/dynamodb/console-users.js';
import { ledgerPut } from '../../functions/adapters/dynamodb/ledger.js';
import { DynamoDbMonthlySpend } from '../../functions/adapters/dynamodb/monthly-spend.js';
import { DynamoDbRedeemCodes } from '../../functions/adapters/dynamodb/redeem-codes.js';
import { DynamoDbTaskRepository } from '../../functions/adapters/dynamodb/task-repository.js';
import {
  AuthenticationError,
  ForbiddenError,
  InvalidRequestError,
  NotFoundError,
} from '../../functions/core/api-error.js';
import { hashApiKey } from '../../functions/core/api-key.js';
import { ledgerEntry } from '../../functions/core/ledger.js';
import {
  generateRedeemCode,
  hashRedeemCode,
  normaliseRedeemCode,
  redeemCodeId,
} from '../../functions/core/redeem-code.js';
import { consoleCaller } from '../../functions/core/use-cases/console/console-caller.js';
import { createKey } from '../../functions/core/use-cases/console/create-key.js';
import { deleteKey } from '../../functions/core/use-cases/console/delete-key.js';
import { listKeys } from '../../functions/core/use-cases/console/list-keys.js';
import { redeemCode } from '../../functions/core/use-cases/console/redeem-code.js';
import { updateKey } from '../../functions/core/use-cases/console/update-key.js';
import { AdminStore } from '../../lib/ship/admin/admin-store.js';
import { verifyLedger } from '../../lib/ship/admin/ledger-check.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { storedBalance as storedBalanceOf } from '../support/stored-money.js';
import { taskRecordFor } from '../support/task-records.js';

const local = useDynamoDbLocal('console');
const now = () => new Date();

function stores() {
  const { tables } = local.names;
  return {
    users: new DynamoDbConsoleUsers(local.db, tables),
    keys: new DynamoDbConsoleKeys(local.db, tables),
    codes: new DynamoDbRedeemCodes(local.db, tables),
    spend: new DynamoDbMonthlySpend(local.db, tables.ledger),
    apiKeys: new DynamoDbApiKeyRepository(local.db, tables.apiKeys),
    tasks: new DynamoDbTaskRepository(local.db, tables),
  };
}

const accessClaims = (sub: string) => ({ sub, token_use: 'access', username: sub });

async function signIn(sub = randomUUID()) {
  return consoleCaller(accessClaims(sub), { users: stores().users, now });
}

async function balanceUnits(accountId: string): Promise<number> {
  return (await storedBalanceOf(local.db, local.names.tables.accounts, accountId)) as number;
}

describe('console sign-in', () => {
  it('opens one account with a zero balance for a new user, however many first requests race', async () => {
    const sub = randomUUID();
    const callers = await Promise.all(Array.from({ length: 8 }, () => signIn(sub)));
    expect(new Set(callers.map((caller) => caller.accountId)).size).toBe(1);
    const accountId = callers[0]!.accountId;
    expect(accountId).toMatch(/^acct_[0-9a-f]{20}$/);
    expect(await balanceUnits(accountId)).toBe(0);
    expect(await stores().users.find(sub)).toMatchObject({ account_id: accountId });
    expect((await signIn(sub)).accountId).toBe(accountId);
  });

  it('takes only access tokens', async () => {
    await expect(consoleCaller({ sub: randomUUID(), token_use: 'id' }, { users: stores().users, now })).rejects.toThrow(
      AuthenticationError,
    );
    await expect(consoleCaller(undefined, { users: stores().users, now })).rejects.toThrow(AuthenticationError);
  });
});

describe('console keys', () => {
  const deps = () => ({ keys: stores().keys, defaultRatePerSecond: 10, now });

  it('creates a key that authenticates, lists it, renames, disables, enables and re-quotas it', async () => {
    const caller = await signIn();
    const created = await createKey(caller, { name: 'production', quota: 2.5, rate_limit_per_second: 5 }, deps());
    expect(created).toMatchObject({ name: 'production', status: 'active', quota: 2.5, spent: 0, last_used_at: null });
    expect(created.key).toMatch(/^bc_/);
    const stored = await stores().apiKeys.findByHash(hashApiKey(created.key));
    expect(stored).toMatchObject({ account_id: caller.accountId, quota_remaining_units: 25_000, rate_per_second: 5 });
    expect(JSON.stringify(stored)).not.toContain(created.key);
    expect((await listKeys(caller, deps())).items).toEqual([
      expect.objectContaining({ key_id: created.key_id, name: 'production' }),
    ]);

    // A charge through the key records its last use and keeps remaining = quota - spent.
    const task = taskRecordFor({ accountId: caller.accountId, keyHash: stored!.key_hash }, { cost_units: 10_000 });
    await local.db.send(
      new UpdateCommand({
        TableName: local.names.tables.accounts,
        Key: { account_id: caller.accountId },
        UpdateExpression: 'SET balance_units = :b',
        ExpressionAttributeValues: { ':b': 100_000 },
      }),
    );
    await stores().tasks.createCharged(task, {
      accountId: caller.accountId,
      keyHash: stored!.key_hash,
      keyHasQuota: true,
      costUnits: 10_000,
    });
    const raised = await updateKey(caller, created.key_id, { quota: 4, name: 'prod' }, deps());
    expect(raised).toMatchObject({ name: 'prod', quota: 4, spent: 1, last_used_at: task.created_at });
    expect(await stores().apiKeys.findByHash(stored!.key_hash)).toMatchObject({ quota_remaining_units: 30_000 });

    const disabled = await updateKey(caller, created.key_id, { status: 'disabled' }, deps());
    expect(disabled.status).toBe('disabled');
    expect((await stores().apiKeys.findByHash(stored!.key_hash))?.status).toBe('disabled');
    expect((await updateKey(caller, created.key_id, { status: 'active', quota: null }, deps())).quota).toBeNull();
    const uncapped = await stores().apiKeys.findByHash(stored!.key_hash);
    expect(uncapped?.status).toBe('active');
    expect(uncapped).not.toHaveProperty('quota_remaining_units');
  });

  it('shows the key by its hint and its rate as a number; a delete revokes it for good and keeps it listed', async () => {
    const caller = await signIn();
    const created = await createKey(caller, { name: 'ci' }, deps());
    expect(created.key_hint).toBe(`${created.key.slice(0, 7)}…${created.key.slice(-4)}`);
    expect(created).toMatchObject({ rate_limit_per_second: 10, rate_is_default: true, deleted_at: null });
    const deleted = await deleteKey(caller, created.key_id, deps());
    expect(deleted).toMatchObject({ status: 'deleted', deleted_at: expect.any(String), key_hint: created.key_hint });
    expect(await deleteKey(caller, created.key_id, deps())).toEqual(deleted);
    expect((await stores().apiKeys.findByHash(hashApiKey(created.key)))?.status).toBe('deleted');
    await expect(updateKey(caller, created.key_id, { status: 'active' }, deps())).rejects.toThrow(/was deleted/);
    await expect(updateKey(caller, created.key_id, { name: 'again' }, deps())).rejects.toThrow(InvalidRequestError);
    expect((await listKeys(caller, deps())).items).toEqual([expect.objectContaining({ status: 'deleted' })]);
    const stranger = await signIn();
    await expect(deleteKey(stranger, created.key_id, deps())).rejects.toThrow(NotFoundError);
  });

  it("refuses another account's key as missing, a bad body, a rate above the default, and enabling in a disabled account", async () => {
    const owner = await signIn();
    const stranger = await signIn();
    const { key_id } = await createKey(owner, { name: 'mine' }, deps());
    await expect(updateKey(stranger, key_id, { status: 'disabled' }, deps())).rejects.toThrow(NotFoundError);
    await expect(updateKey(owner, key_id, {}, deps())).rejects.toThrow(/at least one/);
    await expect(createKey(owner, { name: '' }, deps())).rejects.toThrow(InvalidRequestError);
    await expect(createKey(owner, { name: 'x', quota: 1.00001 }, deps())).rejects.toThrow(/4 decimals/);
    await expect(createKey(owner, { name: 'x', rate_limit_per_second: 11 }, deps())).rejects.toThrow(/at most 10/);
    await expect(createKey(owner, { name: 'x', extra: 1 }, deps())).rejects.toThrow(InvalidRequestError);

    await updateKey(owner, key_id, { status: 'disabled' }, deps());
    await local.db.send(
      new UpdateCommand({
        TableName: local.names.tables.accounts,
        Key: { account_id: owner.accountId },
        UpdateExpression: 'SET #s = :off',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':off': 'disabled' },
      }),
    );
    await expect(updateKey(owner, key_id, { status: 'active' }, deps())).rejects.toThrow(ForbiddenError);
    await expect(createKey(owner, { name: 'another' }, deps())).rejects.toThrow(ForbiddenError);
  });
});

describe('top-up codes', () => {
  async function newCode(amountUnits: number, expiresAt?: string) {
    const code = generateRedeemCode();
    const codeHash = hashRedeemCode(normaliseRedeemCode(code)!);
    await stores().codes.create({
      code_hash: codeHash,
      code_id: redeemCodeId(codeHash),
      amount_units: amountUnits,
      created_at: new Date().toISOString(),
      ...(expiresAt && { expires_at: expiresAt }),
    });
    return code;
  }
  const redeem = (caller: Awaited<ReturnType<typeof signIn>>, code: string) =>
    redeemCode(caller, { code }, { codes: stores().codes, now });

  it('adds once, to one account, with its ledger entry; the same account again answers the same', async () => {
    const code = await newCode(1_000_000);
    const [first, second] = [await signIn(), await signIn()];
    expect(await redeem(first, code.toLowerCase().replaceAll('-', ' '))).toEqual({
      amount: 100,
      balance: 100,
      already_redeemed_at: null,
    });
    // Asked again, it says when it was redeemed, and adds nothing.
    expect(await redeem(first, code)).toEqual({
      amount: 100,
      balance: 100,
      already_redeemed_at: expect.any(String),
    });
    await expect(redeem(second, code)).rejects.toThrow(/redeemed already/);
    expect(await balanceUnits(second.accountId)).toBe(0);

    const contested = await newCode(50_000);
    const racers = await Promise.all(Array.from({ length: 5 }, () => signIn()));
    const outcomes = await Promise.allSettled(racers.map((caller) => redeem(caller, contested)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const balances = await Promise.all(racers.map((caller) => balanceUnits(caller.accountId)));
    expect(balances.sort((a, b) => a - b)).toEqual([0, 0, 0, 0, 50_000]);
    // Every balance here equals the sum of its ledger entries (other tests set balances by hand).
    const ours = [first, second, ...racers].map((caller) => caller.accountId);
    const report = await verifyLedger(local.db, local.names.tables);
    expect(report.mismatches.filter((account) => ours.includes(account.accountId))).toEqual([]);
  });

  it('admin code:create makes codes that redeem once each, for their amount', async () => {
    const admin = new AdminStore(local.db, local.names.tables);
    const { codes } = await admin.createRedeemCodes('12.5', 2, 30);
    expect(codes).toHaveLength(2);
    expect(codes[0]).toMatch(/^VGS(-[0-9A-HJKMNP-TV-Z]{4}){4}$/);
    const caller = await signIn();
    expect(await redeem(caller, codes[0]!)).toEqual({ amount: 12.5, balance: 12.5, already_redeemed_at: null });
    expect(await redeem(caller, codes[1]!)).toEqual({ amount: 12.5, balance: 25, already_redeemed_at: null });
    await expect(admin.createRedeemCodes('0', 1, 30)).rejects.toThrow(/positive/);
  });

  it('refuses unknown, malformed and expired codes in words', async () => {
    const caller = await signIn();
    await expect(redeem(caller, 'VGS-0000-0000-0000-0000')).rejects.toThrow(/does not exist/);
    await expect(redeem(caller, 'hello')).rejects.toThrow(/not a top-up code/);
    const expired = await newCode(10_000, new Date(Date.now() - 1_000).toISOString());
    await expect(redeem(caller, expired)).rejects.toThrow(/expired/);
    expect(await balanceUnits(caller.accountId)).toBe(0);
  });
});

describe("this month's spend", () => {
  it('sums charges less refunds since the date, not top-ups or older entries', async () => {
    const accountId = `acct-${randomUUID().slice(0, 8)}`;
    const table = local.names.tables.ledger;
    const entries = [
      ledgerEntry(accountId, 'charge:old', 'charge', -70_000, '2026-10-31T23:59:59.000Z', 'old'),
      ledgerEntry(accountId, 'charge:a', 'charge', -30_000, '2026-11-02T00:00:00.000Z', 'a'),
      ledgerEntry(accountId, 'charge:b', 'charge', -20_000, '2026-11-03T00:00:00.000Z', 'b'),
      ledgerEntry(accountId, 'refund:b', 'refund', 20_000, '2026-11-03T00:01:00.000Z', 'b'),
      ledgerEntry(accountId, 'topup:x', 'topup', 500_000, '2026-11-04T00:00:00.000Z'),
    ];
    for (const entry of entries) await local.db.send(new PutCommand(ledgerPut(table, entry).Put));
    expect(await stores().spend.since(accountId, '2026-11-01T00:00:00.000Z')).toEqual({
      spentUnits: 30_000,
      charges: 2,
    });
  });
});
