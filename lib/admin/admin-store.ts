/**
 * Operator actions behind the admin CLI and the local stack's seeding: accounts, keys, top-ups and the
 * model catalog. Money enters as yuan text and is stored as integer units, like everywhere else; no write
 * takes a balance past MAX_BALANCE_UNITS (checked first, and again by the write's own condition). Every
 * balance movement writes its ledger entry in its own transaction (docs/money-and-ledger.md, "Ledger").
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ForbiddenError } from '../../functions/core/api-error.js';
import { generateApiKey, hashApiKey, isWellFormedApiKey, newApiKeyRecord } from '../../functions/core/api-key.js';
import { KeyExistsError } from '../../functions/core/ports/console.js';
import {
  boundedYuanToUnits,
  MAX_BALANCE_UNITS,
  MAX_BALANCE_YUAN,
  unitsToYuan,
  unitsToYuanText,
} from '../../functions/core/money.js';
import type { AccountRecord, ApiKeyRecord } from '../../functions/core/ports/accounts.js';
import { accountIdOf } from '../../functions/core/ports/upstream-capacity.js';
import type { UpstreamAccount } from '../../functions/core/ports/upstream-capacity.js';
import type { VideoModelRecord } from '../../functions/core/video-model.js';
import { catalogVideoModel } from '../../functions/providers/registry.js';
import {
  AccountNotFoundError,
  ConcurrentRotationError,
  DynamoDbWebhookSecrets,
} from '../../functions/adapters/dynamodb-webhooks.js';
import type { TableId } from '../../functions/adapters/resources.js';
import { AdminError } from './errors.js';
import type { LedgerEntry } from '../../functions/core/ledger.js';
import { ledgerEntry, ledgerEntryId } from '../../functions/core/ledger.js';
import { inLedgerOrder, ledgerPut, listedAfterLast } from '../../functions/adapters/dynamodb-ledger.js';
import { backfillOpening, verifyLedger } from './ledger-check.js';
import { DynamoDbRedeemCodes } from '../../functions/adapters/dynamodb-redeem-codes.js';
import { DynamoDbConsoleKeys } from '../../functions/adapters/dynamodb-console-keys.js';
import {
  generateRedeemCode,
  hashRedeemCode,
  normaliseRedeemCode,
  redeemCodeId,
} from '../../functions/core/redeem-code.js';
import type { LedgerReport } from './ledger-check.js';

export { AdminError };

export interface CreateKeyOptions {
  accountId: string;
  quotaYuan?: string;
  ratePerSecond?: number;
  /** Use this plaintext instead of a random key (the local demo key, so scripts can rely on it). */
  plaintext?: string;
}

/**
 * The account item as the admin sees it. `status` is the admin's own mark (absent: active): authentication
 * never reads it (it reads only the key, in one round trip), so disabling an account disables its keys, and
 * the mark keeps new or re-enabled keys from bringing it back by accident.
 */
export interface AdminAccount extends Omit<AccountRecord, 'balance_units'> {
  /** A bigint when the stored number is past 2^53 (only data older than the balance bound can be). */
  balance_units: number | bigint;
  status?: 'active' | 'disabled';
}

export interface AccountSummary {
  account: AdminAccount;
  keys: { total: number; active: number };
}

/** Ark admits 120 queued tasks per master account (docs/providers/ark.md, "Capacity"): a new account's capacity unless told. */
export const UPSTREAM_ACCOUNT_CAPACITY = 120;

const KEY_ID_PATTERN = /^key_[A-Za-z0-9]{1,64}$/;
/** A top-up's or adjustment's request id (its ledger entry is `topup:<id>`): a UUID by default. */
export const TOPUP_REQUEST_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

function checkedRequestId(requestId: string): string {
  if (!TOPUP_REQUEST_ID.test(requestId)) {
    throw new AdminError('the request id must be 1–128 letters, digits, "_", ".", ":" or "-"');
  }
  return requestId;
}
const MAX_YUAN_TEXT = MAX_BALANCE_YUAN.toLocaleString('en-US');

export class AdminStore {
  /** Keys are made and switched through the console's own adapter (the account checked in the same write). */
  private readonly keys: DynamoDbConsoleKeys;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: Record<TableId, string>,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.keys = new DynamoDbConsoleKeys(db, tables);
  }

  /**
   * Creates the account; refuses to overwrite one that exists. A balance to start with is its ledger's
   * `opening` entry (a top-up), in the same transaction. Returns its balance in yuan.
   */
  async createAccount(accountId: string, balanceYuan: string): Promise<number> {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(accountId)) {
      throw new AdminError('account id must be 1–64 letters, digits, "_", "." or "-"');
    }
    const units = boundedYuanToUnits(balanceYuan, 'the balance');
    const createdAt = this.now().toISOString();
    const opening = ledgerEntry(accountId, ledgerEntryId.opening(), 'topup', units, createdAt);
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tables.accounts,
                Item: {
                  account_id: accountId,
                  balance_units: units,
                  created_at: createdAt,
                  // The first entry, the account's last listed one (listedAfterLast).
                  ...(units > 0 && { ledger_listed_at: opening.listed_at }),
                },
                ConditionExpression: 'attribute_not_exists(account_id)',
              },
            },
            ...(units > 0 ? [ledgerPut(this.tables.ledger, opening)] : []),
          ],
        }),
      );
    } catch (error) {
      if (
        error instanceof TransactionCanceledException &&
        error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed'
      ) {
        throw new AdminError(`account ${accountId} already exists`);
      }
      // Entries outlive their account only if one was deleted by hand: the new account must not inherit them.
      if (
        error instanceof TransactionCanceledException &&
        error.CancellationReasons?.[1]?.Code === 'ConditionalCheckFailed'
      ) {
        throw new AdminError(`account ${accountId} has ledger entries from an earlier account: choose another id`);
      }
      throw error;
    }
    return unitsToYuan(units);
  }

  async accountExists(accountId: string): Promise<boolean> {
    return (await this.account(accountId)) !== undefined;
  }

  /** The account with how many keys it has (the keys table is scanned: an admin action, not a request's). */
  async showAccount(accountId: string): Promise<AccountSummary> {
    const account = await this.account(accountId);
    if (!account) throw new AdminError(`account ${accountId} does not exist`);
    const keys = await this.listKeys(accountId);
    return { account, keys: { total: keys.length, active: keys.filter((key) => key.status === 'active').length } };
  }

  /**
   * Marks the account disabled, then disables every key it has: its requests get 401 at once, in every
   * function instance (each request reads its key). Marked first, so a key created meanwhile is refused.
   * Returns how many keys this disabled.
   */
  async disableAccount(accountId: string): Promise<number> {
    await this.setAccountStatus(accountId, 'disabled');
    let disabled = 0;
    for (const key of await this.listKeys(accountId)) {
      if (key.status === 'active' && (await this.keys.update(key, { status: 'disabled' }))) disabled += 1;
    }
    return disabled;
  }

  /** Lifts the account's mark; its keys stay as they are (key:enable brings back the ones meant to work). */
  async enableAccount(accountId: string): Promise<void> {
    await this.setAccountStatus(accountId, 'active');
  }

  /**
   * Creates a key for the account and returns its plaintext, which is never stored. One transaction with a
   * check of the account, so no key is made for an account that is missing or disabled, even concurrently.
   */
  async createKey(options: CreateKeyOptions): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = options.plaintext ?? generateApiKey();
    if (!isWellFormedApiKey(key)) throw new AdminError('an API key is bc_ followed by 16–128 of [A-Za-z0-9_-]');
    if (
      options.ratePerSecond !== undefined &&
      (!Number.isInteger(options.ratePerSecond) || options.ratePerSecond < 1)
    ) {
      throw new AdminError('--rate must be a whole number of requests per second, at least 1');
    }
    const record = newApiKeyRecord(key, {
      accountId: options.accountId,
      createdAt: this.now().toISOString(),
      ...(options.quotaYuan !== undefined && { quotaUnits: boundedYuanToUnits(options.quotaYuan, 'the quota') }),
      ...(options.ratePerSecond !== undefined && { ratePerSecond: options.ratePerSecond }),
    });
    await this.keyWrite(options.accountId, () => this.keys.create(record));
    return { key, record };
  }

  /** `keyOrId` is the key itself (`bc_…`) or its id (`key_…`). */
  async disableKey(keyOrId: string): Promise<ApiKeyRecord> {
    const record = await this.findKey(keyOrId);
    if (!(await this.keys.update(record, { status: 'disabled' }))) throw new AdminError('no such key');
    return record;
  }

  /** Enables the key again, unless its account is disabled (account:enable first). */
  async enableKey(keyOrId: string): Promise<ApiKeyRecord> {
    const record = await this.findKey(keyOrId);
    const enabled = await this.keyWrite(record.account_id, () => this.keys.update(record, { status: 'active' }));
    if (!enabled) throw new AdminError('no such key');
    return record;
  }

  /** Every key of the account, oldest first (a consistent scan of the keys table). */
  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const keys = await this.scanKeys('account_id = :account', { ':account': accountId });
    return keys.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.key_id.localeCompare(b.key_id));
  }

  /**
   * Adds to the balance, conditional on the account existing and the new balance staying within
   * MAX_BALANCE_UNITS (so concurrent top-ups cannot pass the bound together), with its ledger entry
   * `topup:<requestId>` in the same transaction: a request id adds once, however often it is retried.
   * Returns the balance in yuan (read after the write) and whether this call added (false: done before).
   */
  async topUp(accountId: string, amountYuan: string, requestId: string): Promise<{ balance: number; added: boolean }> {
    const units = boundedYuanToUnits(amountYuan, 'the amount');
    if (units <= 0) throw new AdminError('the amount must be positive');
    return this.moveBalance(accountId, units, ledgerEntryId.topup(checkedRequestId(requestId)), 'topup');
  }

  /**
   * An operator's correction (docs/money-and-ledger.md, "Ledger", type `adjustment`): adds `amountYuan` (a leading "-" takes
   * away, never below zero), with its entry `adjustment:<requestId>` and the reason, at most once per request id.
   */
  async adjust(
    accountId: string,
    amountYuan: string,
    reason: string,
    requestId: string,
  ): Promise<{ balance: number; added: boolean }> {
    const negative = amountYuan.trim().startsWith('-');
    const units = boundedYuanToUnits(negative ? amountYuan.trim().slice(1) : amountYuan, 'the amount');
    if (units === 0) throw new AdminError('the amount must not be zero');
    if (reason.trim() === '' || reason.length > 500) throw new AdminError('the reason must be 1–500 characters');
    const entryId = ledgerEntryId.adjustment(checkedRequestId(requestId));
    return this.moveBalance(accountId, negative ? -units : units, entryId, 'adjustment', reason.trim());
  }

  /**
   * One balance movement and its ledger entry in one transaction, conditional on the account existing and the
   * balance staying within 0..MAX_BALANCE_UNITS; the entry's id makes a retry a no-op (`added` false).
   */
  private async moveBalance(
    accountId: string,
    units: number,
    entryId: string,
    type: 'topup' | 'adjustment',
    reason?: string,
  ): Promise<{ balance: number; added: boolean }> {
    const entry = {
      ...ledgerEntry(accountId, entryId, type, units, this.now().toISOString()),
      ...(reason !== undefined && { reason }),
    };
    const bound =
      units >= 0
        ? {
            ConditionExpression: 'attribute_exists(account_id) AND balance_units <= :room',
            room: MAX_BALANCE_UNITS - units,
          }
        : { ConditionExpression: 'attribute_exists(account_id) AND balance_units >= :room', room: -units };
    const writeFor = (listed: LedgerEntry) => {
      const order = listedAfterLast(listed);
      return new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: this.tables.accounts,
              Key: { account_id: accountId },
              UpdateExpression: `SET ${order.set} ADD balance_units :amount`,
              ConditionExpression: `${bound.ConditionExpression} AND ${order.condition}`,
              ExpressionAttributeValues: { ':amount': units, ':room': bound.room, ...order.values },
            },
          },
          ledgerPut(this.tables.ledger, listed),
        ],
      });
    };
    try {
      // Concurrent movements of one account collide, or one listed later commits first: each is tried again.
      await inLedgerOrder(this.db, this.tables.accounts, entry, 0, (listed) => this.db.send(writeFor(listed)));
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const [accountReason, entryReason] = error.CancellationReasons ?? [];
      if (entryReason?.Code === 'ConditionalCheckFailed') return this.movedBefore(accountId, entry);
      if (accountReason?.Code !== 'ConditionalCheckFailed') throw error;
      const account = await this.account(accountId);
      if (!account) throw new AdminError(`account ${accountId} does not exist`);
      const balance = Number(account.balance_units);
      if (units >= 0 ? balance <= bound.room : balance >= bound.room) {
        // Within bounds, yet refused: later entries kept committing first for the whole retry time.
        throw new AdminError('the account kept changing: run the same command again (with the same --request-id)');
      }
      throw new AdminError(
        units >= 0
          ? `refused: the balance (${unitsToYuanText(account.balance_units)} CNY) plus ${unitsToYuan(units)} CNY ` +
              `would pass the maximum of ${MAX_YUAN_TEXT} CNY`
          : `refused: the balance (${unitsToYuanText(account.balance_units)} CNY) less ${unitsToYuan(-units)} CNY ` +
              'would fall below zero',
      );
    }
    return { balance: await this.balanceYuan(accountId), added: true };
  }

  /** A retried movement: done before with this request id, so nothing moves; another amount is refused. */
  private async movedBefore(accountId: string, entry: LedgerEntry): Promise<{ balance: number; added: boolean }> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tables.ledger,
        Key: { account_id: accountId, entry_id: entry.entry_id },
        ConsistentRead: true,
      }),
    );
    const earlier = Item as LedgerEntry | undefined;
    if (earlier && earlier.amount_units !== entry.amount_units) {
      const requestId = entry.entry_id.slice(entry.entry_id.indexOf(':') + 1);
      throw new AdminError(
        `request id ${requestId} already moved ${unitsToYuan(earlier.amount_units)} CNY (${earlier.type}) at ` +
          `${earlier.created_at}, not ${unitsToYuan(entry.amount_units)}: nothing changed (use a new request id)`,
      );
    }
    return { balance: await this.balanceYuan(accountId), added: false };
  }

  private async balanceYuan(accountId: string): Promise<number> {
    const account = await this.account(accountId);
    if (!account) throw new AdminError(`account ${accountId} does not exist`);
    return unitsToYuan(Number(account.balance_units));
  }

  /** Every account's balance against the sum of its ledger entries. */
  /** Every account, or only `accountId`. */
  verifyLedger(accountId?: string): Promise<LedgerReport> {
    return verifyLedger(this.db, this.tables, accountId);
  }

  /** The `opening` entry of an account from before the ledger; undefined when it already balances. */
  backfillOpening(accountId: string): Promise<bigint | undefined> {
    return backfillOpening(this.db, this.tables, accountId, this.now());
  }

  /** The account's current webhook signing secret (`whsec_…`), created if it has none yet. */
  async webhookSecret(accountId: string): Promise<string> {
    return this.webhookSecrets(() =>
      new DynamoDbWebhookSecrets(this.db, this.tables.accounts).currentSecret(accountId),
    );
  }

  /** A new webhook secret; the previous one keeps signing too until `previousUntil` (24 h). */
  async rotateWebhookSecret(accountId: string): Promise<{ secret: string; previousUntil: string | null }> {
    return this.webhookSecrets(() =>
      new DynamoDbWebhookSecrets(this.db, this.tables.accounts).rotate(accountId, this.now()),
    );
  }

  private async webhookSecrets<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      if (error instanceof AccountNotFoundError || error instanceof ConcurrentRotationError) {
        throw new AdminError(error.message);
      }
      throw error;
    }
  }

  /**
   * `count` new top-up codes of `amountYuan` each (docs/console.md), valid for `validDays` days: only their hashes are
   * stored, so the codes returned here are the only copy. Each is redeemed once, in the console.
   */
  async createRedeemCodes(
    amountYuan: string,
    count: number,
    validDays: number,
  ): Promise<{ codes: string[]; expiresAt: string }> {
    const units = boundedYuanToUnits(amountYuan, 'the amount');
    if (units <= 0) throw new AdminError('the amount must be positive');
    if (!Number.isInteger(count) || count < 1 || count > 1000) throw new AdminError('--count must be 1 to 1000');
    if (!Number.isInteger(validDays) || validDays < 1 || validDays > 3650) {
      throw new AdminError('--days must be a whole number of days from 1 to 3650');
    }
    const now = this.now();
    const expiresAt = new Date(now.getTime() + validDays * 86_400_000).toISOString();
    const store = new DynamoDbRedeemCodes(this.db, this.tables);
    const codes: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const code = generateRedeemCode();
      const codeHash = hashRedeemCode(normaliseRedeemCode(code)!);
      await store.create({
        code_hash: codeHash,
        code_id: redeemCodeId(codeHash),
        amount_units: units,
        created_at: now.toISOString(),
        expires_at: expiresAt,
      });
      codes.push(code);
    }
    return { codes, expiresAt };
  }

  /** Writes every model of the catalog file (validated first: a bad catalog changes nothing). */
  async seedModels(catalog: { version: number; models: unknown[] }): Promise<number> {
    const records = catalog.models.map((model) => catalogVideoModel(model).record);
    for (const record of records) {
      await this.db.send(
        new PutCommand({ TableName: this.tables.models, Item: { ...record, catalog_version: catalog.version } }),
      );
    }
    return records.length;
  }

  /**
   * A model's lifecycle (functions/core/model-lifecycle.ts): dates set or (null) cleared, the record checked again
   * against its provider's contract before it is written. Warm functions see it within their catalog cache (30 s).
   */
  async setModelLifecycle(
    name: string,
    change: Partial<Record<'deprecated_at' | 'sunset_at' | 'retired_at' | 'replacement', string | null>>,
  ): Promise<VideoModelRecord> {
    const models = await this.db.send(new ScanCommand({ TableName: this.tables.models, ConsistentRead: true }));
    const item = (models.Items ?? []).find((model) => model['name'] === name);
    if (!item) throw new AdminError(`no model named ${name} in the catalog`);
    const next: Record<string, unknown> = { ...item };
    for (const [field, value] of Object.entries(change)) {
      if (value === null) delete next[field];
      else if (value !== undefined) next[field] = value;
    }
    const { record } = catalogVideoModel(next);
    await this.db.send(new PutCommand({ TableName: this.tables.models, Item: next }));
    return record;
  }

  /**
   * Creates an upstream (master) account (docs/upstream-capacity.md) or changes its capacity, keys, in-flight
   * ceiling or whether it is used; its counts are never written here. Its keys live in the provider's secret
   * (functions/adapters/upstream-keys.ts). A ceiling also brings the learned limit down to it at once.
   */
  async setUpstreamAccount(
    provider: string,
    name: string,
    change: { capacity?: number; enabled?: boolean; keys?: string[]; inflightCeiling?: number | null },
  ): Promise<UpstreamAccount> {
    const values: Record<string, unknown> = { ':provider': provider, ':name': name, ':now': this.now().toISOString() };
    const sets = [
      '#provider = :provider',
      '#name = :name',
      'updated_at = :now',
      'in_use = if_not_exists(in_use, :zero)',
    ];
    values[':zero'] = 0;
    sets.push('#capacity = ' + (change.capacity === undefined ? 'if_not_exists(#capacity, :capacity)' : ':capacity'));
    values[':capacity'] = change.capacity ?? UPSTREAM_ACCOUNT_CAPACITY;
    sets.push('#enabled = ' + (change.enabled === undefined ? 'if_not_exists(#enabled, :enabled)' : ':enabled'));
    values[':enabled'] = change.enabled ?? true;
    if (change.keys) {
      sets.push('#keys = :keys');
      values[':keys'] = change.keys;
    }
    const removed = change.enabled === true ? ['disabled_reason', 'cool_until', 'cool_streak', 'probe_until'] : [];
    if (change.inflightCeiling === null) removed.push('inflight_ceiling', 'inflight_limit');
    else if (change.inflightCeiling !== undefined) {
      // The learned limit starts at the ceiling, or comes down to it.
      sets.push('inflight_ceiling = :ceiling', 'inflight_limit = :ceiling');
      values[':ceiling'] = change.inflightCeiling;
    }
    const removes = removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : '';
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.tables.upstreamAccounts,
        Key: { id: accountIdOf(provider, name) },
        UpdateExpression: `SET ${sets.join(', ')}${removes}`,
        // Reserved words in DynamoDB expressions (name, capacity, enabled...): always by placeholder.
        ExpressionAttributeNames: {
          '#provider': 'provider',
          '#name': 'name',
          '#capacity': 'capacity',
          '#enabled': 'enabled',
          ...(change.keys && { '#keys': 'keys' }),
        },
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes as UpstreamAccount;
  }

  /** Every upstream account, with what waits for them: provider, then name. */
  async upstreamAccounts(): Promise<{ accounts: UpstreamAccount[]; waiting: Record<string, number> }> {
    const { Items = [] } = await this.db.send(
      new ScanCommand({ TableName: this.tables.upstreamAccounts, ConsistentRead: true }),
    );
    const accounts = (Items as UpstreamAccount[]).sort((a, b) =>
      `${a.provider}#${a.name}`.localeCompare(`${b.provider}#${b.name}`),
    );
    const waiting: Record<string, number> = {};
    for (const provider of new Set(accounts.map((account) => account.provider))) {
      const { Count = 0 } = await this.db.send(
        new QueryCommand({
          TableName: this.tables.upstreamQueue,
          KeyConditionExpression: '#provider = :provider',
          ExpressionAttributeNames: { '#provider': 'provider' },
          ExpressionAttributeValues: { ':provider': provider },
          Select: 'COUNT',
        }),
      );
      waiting[provider] = Count;
    }
    return { accounts, waiting };
  }

  private async account(accountId: string): Promise<AdminAccount | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tables.accounts, Key: { account_id: accountId }, ConsistentRead: true }),
    );
    return Item as AdminAccount | undefined;
  }

  private async setAccountStatus(accountId: string, status: 'active' | 'disabled'): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tables.accounts,
          Key: { account_id: accountId },
          UpdateExpression: 'SET #status = :status',
          ConditionExpression: 'attribute_exists(account_id)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': status },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new AdminError(`account ${accountId} does not exist`);
      throw error;
    }
  }

  /** A key write the adapter checked against its account: the refusal in the operator's words. */
  private async keyWrite<T>(accountId: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof KeyExistsError) throw new AdminError(error.message);
      if (!(error instanceof ForbiddenError)) throw error;
      throw new AdminError(
        (await this.accountExists(accountId))
          ? `account ${accountId} is disabled (account:enable first)`
          : `account ${accountId} does not exist`,
      );
    }
  }

  private async findKey(keyOrId: string): Promise<ApiKeyRecord> {
    let record: ApiKeyRecord | undefined;
    if (KEY_ID_PATTERN.test(keyOrId)) {
      [record] = await this.scanKeys('key_id = :id', { ':id': keyOrId });
    } else if (isWellFormedApiKey(keyOrId)) {
      const { Item } = await this.db.send(
        new GetCommand({
          TableName: this.tables.apiKeys,
          Key: { key_hash: hashApiKey(keyOrId) },
          ConsistentRead: true,
        }),
      );
      record = Item as ApiKeyRecord | undefined;
    } else {
      throw new AdminError('--key must be a key id (key_…) or the key itself (bc_…)');
    }
    if (!record) throw new AdminError('no such key');
    return record;
  }

  /** Keys are found by hash only; by id or account the table is scanned (few keys, rare admin actions). */
  private async scanKeys(filter: string, values: Record<string, string>): Promise<ApiKeyRecord[]> {
    const keys: ApiKeyRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new ScanCommand({
          TableName: this.tables.apiKeys,
          FilterExpression: filter,
          ExpressionAttributeValues: values,
          ExclusiveStartKey: startKey,
          ConsistentRead: true,
        }),
      );
      keys.push(...((page.Items ?? []) as ApiKeyRecord[]));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return keys;
  }
}
