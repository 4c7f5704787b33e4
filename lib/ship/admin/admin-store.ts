/**
 * Operator actions behind the admin CLI and the local stack's seeding: accounts, keys, top-ups and the
 * model catalog. Money enters as yuan text and is stored as integer units, like everywhere else; no write
 * takes a balance past MAX_BALANCE_UNITS (checked first, and again by the write's own condition). Every
 * balance movement writes its ledger entry in its own transaction (docs/money-and-ledger.md, "Ledger").
 */
import { getItem } from '../../../functions/adapters/dynamodb/consistent-read.js';
import type { TaskRecord } from '../../../functions/core/task.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ForbiddenError } from '../../../functions/core/api-error.js';
import { generateApiKey, hashApiKey, isWellFormedApiKey, newApiKeyRecord } from '../../../functions/core/api-key.js';
import { KeyExistsError } from '../../../functions/core/ports/console.js';
import {
  boundedYuanToUnits,
  MAX_BALANCE_UNITS,
  MAX_BALANCE_YUAN,
  unitsToYuan,
  unitsToYuanText,
} from '../../../functions/core/money.js';
import type { ApiKeyRecord } from '../../../functions/core/ports/accounts.js';
import type { UpstreamAccount } from '../../../functions/core/ports/upstream-capacity.js';
import type { VideoModelRecord } from '../../../functions/core/video-model.js';
import { catalogVideoModel, upstreamAccountDefaults } from '../../../functions/providers/registry.js';
import {
  AccountNotFoundError,
  ConcurrentRotationError,
  DynamoDbWebhookSecrets,
} from '../../../functions/adapters/dynamodb/webhooks.js';
import type { TableId } from '../../../functions/adapters/runtime/resources.js';
import { AdminError } from './errors.js';
import { TOPUP_REQUEST_ID } from './request-id.js';
import type { LedgerEntry } from '../../../functions/core/ledger.js';
import { ledgerEntry, ledgerEntryId } from '../../../functions/core/ledger.js';
import { DynamoDbOperatorAccounts } from '../../../functions/adapters/operator/accounts.js';
import type { OperatorAccount } from '../../../functions/adapters/operator/accounts.js';
import { DynamoDbOperatorCatalog } from '../../../functions/adapters/operator/catalog.js';
import type { UpstreamAccountChange } from '../../../functions/adapters/operator/catalog.js';
import { backfillOpening, verifyLedger } from './ledger-check.js';
import { DynamoDbRedeemCodes } from '../../../functions/adapters/dynamodb/redeem-codes.js';
import { DynamoDbConsoleKeys } from '../../../functions/adapters/dynamodb/console-keys.js';
import {
  generateRedeemCode,
  hashRedeemCode,
  normaliseRedeemCode,
  redeemCodeId,
} from '../../../functions/core/redeem-code.js';
import type { LedgerReport } from './ledger-check.js';

export { AdminError };

export interface CreateKeyOptions {
  accountId: string;
  quotaYuan?: string;
  ratePerSecond?: number;
  /** Use this plaintext instead of a random key (the local demo key, so scripts can rely on it). */
  plaintext?: string;
}

/** The account item as the operator sees it (its `status` is the operator's mark). */
export type AdminAccount = OperatorAccount;

export interface AccountSummary {
  account: AdminAccount;
  keys: { total: number; active: number };
}

const KEY_ID_PATTERN = /^key_[A-Za-z0-9]{1,64}$/;

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
  private readonly accounts: DynamoDbOperatorAccounts;
  private readonly catalog: DynamoDbOperatorCatalog;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: Record<TableId, string>,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.keys = new DynamoDbConsoleKeys(db, tables);
    this.accounts = new DynamoDbOperatorAccounts(db, tables);
    this.catalog = new DynamoDbOperatorCatalog(db, tables);
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
    const account = { account_id: accountId, balance_units: units, created_at: createdAt };
    const outcome = await this.accounts.create(account, units > 0 ? opening : undefined);
    if (outcome === 'exists') throw new AdminError(`account ${accountId} already exists`);
    if (outcome === 'ledger-taken') {
      throw new AdminError(`account ${accountId} has ledger entries from an earlier account: choose another id`);
    }
    return unitsToYuan(units);
  }

  async accountExists(accountId: string): Promise<boolean> {
    return (await this.account(accountId)) !== undefined;
  }

  /** A task as stored (aigc:inspect reads its label). */
  async taskRecord(taskId: string): Promise<TaskRecord | undefined> {
    return getItem<TaskRecord>(this.db, this.tables.tasks, { task_id: taskId });
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
    // Deleted by its owner: revoked for good (docs/console.md, "Keys").
    if (enabled.status === 'deleted') throw new AdminError('this key was deleted by its owner: make a new key');
    return record;
  }

  /** Every key of the account, oldest first (a consistent scan of the keys table). */
  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const keys = await this.accounts.keysWhere('account_id', accountId);
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
        ? ({ comparison: '<=', room: MAX_BALANCE_UNITS - units } as const)
        : ({ comparison: '>=', room: -units } as const);
    const outcome = await this.accounts.move(entry, bound);
    if (outcome === 'duplicate') return this.movedBefore(accountId, entry);
    if (outcome === 'refused') {
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
    const earlier = await this.accounts.ledgerEntry(accountId, entry.entry_id);
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
      await this.catalog.putModel({ ...record, catalog_version: catalog.version });
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
    platform?: string,
  ): Promise<VideoModelRecord> {
    const item = (await this.catalog.models()).find((model) => model['name'] === name);
    if (!item) throw new AdminError(`no model named ${name} in the catalog`);
    const next: Record<string, unknown> = { ...item };
    // With a platform, the dates of that platform alone (`platform_lifecycle`, functions/core/model-lifecycle.ts).
    const platforms = { ...(item['platform_lifecycle'] as Record<string, Record<string, unknown>> | undefined) };
    const target: Record<string, unknown> = platform === undefined ? next : { ...platforms[platform] };
    for (const [field, value] of Object.entries(change)) {
      if (value === null) delete target[field];
      else if (value !== undefined) target[field] = value;
    }
    if (platform !== undefined) {
      if (Object.keys(target).length > 0) platforms[platform] = target;
      else delete platforms[platform];
      if (Object.keys(platforms).length > 0) next['platform_lifecycle'] = platforms;
      else delete next['platform_lifecycle'];
    }
    const { record } = catalogVideoModel(next);
    await this.catalog.putModel(next);
    return record;
  }

  /**
   * Creates an upstream (master) account (docs/upstream-capacity.md) or changes its capacity, keys, in-flight
   * ceiling or whether it is used; its counts are never written here. Its keys live in the provider's secret
   * (functions/adapters/upstream/upstream-keys.ts). A ceiling also brings the learned limit down to it at once.
   */
  async setUpstreamAccount(provider: string, name: string, change: UpstreamAccountChange): Promise<UpstreamAccount> {
    // An account of a provider not registered (tests name their own) starts with no slots.
    const defaults = upstreamAccountDefaults(provider) ?? { capacity: 0 };
    // A new account also starts with its provider's in-flight ceiling, unless told (none: no ceiling).
    const ceiling = change.inflightCeiling === undefined ? defaults.inflightCeiling : undefined;
    const starting = ceiling !== undefined && !(await this.catalog.upstreamAccount(provider, name));
    const changed = starting ? { ...change, inflightCeiling: ceiling } : change;
    return this.catalog.setUpstreamAccount(provider, name, changed, defaults.capacity, this.now().toISOString());
  }

  /** Every upstream account, with what waits for them: provider, then name. */
  async upstreamAccounts(): Promise<{ accounts: UpstreamAccount[]; waiting: Record<string, number> }> {
    const accounts = (await this.catalog.upstreamAccounts()).sort((a, b) =>
      `${a.provider}#${a.name}`.localeCompare(`${b.provider}#${b.name}`),
    );
    const waiting: Record<string, number> = {};
    for (const provider of new Set(accounts.map((account) => account.provider))) {
      waiting[provider] = await this.catalog.waiting(provider);
    }
    return { accounts, waiting };
  }

  private account(accountId: string): Promise<AdminAccount | undefined> {
    return this.accounts.account(accountId);
  }

  private async setAccountStatus(accountId: string, status: 'active' | 'disabled'): Promise<void> {
    if (!(await this.accounts.setStatus(accountId, status)))
      throw new AdminError(`account ${accountId} does not exist`);
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
      [record] = await this.accounts.keysWhere('key_id', keyOrId);
    } else if (isWellFormedApiKey(keyOrId)) {
      record = await this.accounts.keyByHash(hashApiKey(keyOrId));
    } else {
      throw new AdminError('--key must be a key id (key_…) or the key itself (bc_…)');
    }
    if (!record) throw new AdminError('no such key');
    return record;
  }
}
