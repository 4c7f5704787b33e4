/**
 * Operator actions behind the admin CLI and the local stack's seeding: accounts, keys, top-ups and the
 * model catalog. Money enters as yuan text and is stored as integer units, like everywhere else.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from '../../functions/core/api-key.js';
import { unitsToYuan, yuanToUnits } from '../../functions/core/money.js';
import type { ApiKeyRecord } from '../../functions/core/ports/accounts.js';
import { toVideoModel } from '../../functions/core/video-model.js';
import {
  AccountNotFoundError,
  ConcurrentRotationError,
  DynamoDbWebhookSecrets,
} from '../../functions/adapters/dynamodb-webhooks.js';
import type { TableId } from '../../functions/adapters/resources.js';

export class AdminError extends Error {
  override readonly name = 'AdminError';
}

export interface CreateKeyOptions {
  accountId: string;
  quotaYuan?: string;
  ratePerSecond?: number;
  /** Use this plaintext instead of a random key (the local demo key, so scripts can rely on it). */
  plaintext?: string;
}

export class AdminStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: Record<TableId, string>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Creates the account; refuses to overwrite one that exists. Returns its balance in yuan. */
  async createAccount(accountId: string, balanceYuan: string): Promise<number> {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(accountId)) {
      throw new AdminError('account id must be 1–64 letters, digits, "_", "." or "-"');
    }
    const units = yuanToUnits(balanceYuan);
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tables.accounts,
          Item: { account_id: accountId, balance_units: units, created_at: this.now().toISOString() },
          ConditionExpression: 'attribute_not_exists(account_id)',
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new AdminError(`account ${accountId} already exists`);
      throw error;
    }
    return unitsToYuan(units);
  }

  async accountExists(accountId: string): Promise<boolean> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tables.accounts, Key: { account_id: accountId }, ConsistentRead: true }),
    );
    return Item !== undefined;
  }

  /** Creates a key for the account and returns its plaintext, which is never stored. */
  async createKey(options: CreateKeyOptions): Promise<{ key: string; record: ApiKeyRecord }> {
    if (!(await this.accountExists(options.accountId)))
      throw new AdminError(`account ${options.accountId} does not exist`);
    const key = options.plaintext ?? generateApiKey();
    if (!isWellFormedApiKey(key)) throw new AdminError('an API key is bc_ followed by 16–128 of [A-Za-z0-9_-]');
    if (
      options.ratePerSecond !== undefined &&
      (!Number.isInteger(options.ratePerSecond) || options.ratePerSecond < 1)
    ) {
      throw new AdminError('--rate must be a whole number of requests per second, at least 1');
    }
    const record: ApiKeyRecord = {
      key_hash: hashApiKey(key),
      key_id: `key_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
      account_id: options.accountId,
      status: 'active',
      spent_units: 0,
      created_at: this.now().toISOString(),
    };
    if (options.quotaYuan !== undefined) {
      record.quota_units = yuanToUnits(options.quotaYuan);
      record.quota_remaining_units = record.quota_units;
    }
    if (options.ratePerSecond !== undefined) record.rate_per_second = options.ratePerSecond;
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tables.apiKeys,
          Item: record,
          ConditionExpression: 'attribute_not_exists(key_hash)',
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new AdminError('this key already exists');
      throw error;
    }
    return { key, record };
  }

  async disableKey(key: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tables.apiKeys,
          Key: { key_hash: hashApiKey(key) },
          UpdateExpression: 'SET #status = :disabled',
          ConditionExpression: 'attribute_exists(key_hash)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':disabled': 'disabled' },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new AdminError('no such key');
      throw error;
    }
  }

  /** Adds to the balance in one conditional update; returns the new balance in yuan. */
  async topUp(accountId: string, amountYuan: string): Promise<number> {
    const units = yuanToUnits(amountYuan);
    if (units <= 0) throw new AdminError('the amount must be positive');
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tables.accounts,
          Key: { account_id: accountId },
          UpdateExpression: 'ADD balance_units :amount',
          ConditionExpression: 'attribute_exists(account_id)',
          ExpressionAttributeValues: { ':amount': units },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return unitsToYuan(Number(Attributes?.['balance_units']));
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new AdminError(`account ${accountId} does not exist`);
      throw error;
    }
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

  /** Writes every model of the catalog file (validated first: a bad catalog changes nothing). */
  async seedModels(catalog: { version: number; models: unknown[] }): Promise<number> {
    const records = catalog.models.map((model) => toVideoModel(model).record);
    for (const record of records) {
      await this.db.send(
        new PutCommand({ TableName: this.tables.models, Item: { ...record, catalog_version: catalog.version } }),
      );
    }
    return records.length;
  }
}
