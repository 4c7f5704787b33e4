/**
 * API keys as their owner manages them (docs/console.md): listed through API_KEYS_BY_ACCOUNT_INDEX (consistent
 * reads are not possible on a GSI, so a key made a moment ago may show on the next read), created and
 * enabled together with a check that the account is not disabled, changed by conditional updates. A quota
 * keeps `quota_remaining_units = quota_units - Σ spent_units` (over the spend shards, key-spend.ts). A
 * deleted key is never changed again: every update is conditional on it not being deleted.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ForbiddenError } from '../../core/api-error.js';
import type { ApiKeyRecord } from '../../core/ports/accounts.js';
import { KeyExistsError } from '../../core/ports/console.js';
import type { ConsoleKeyStore, KeyChange } from '../../core/ports/console.js';
import { API_KEYS_BY_ACCOUNT_INDEX } from '../runtime/resources.js';
import { isConditionFailed } from './conditional-write.js';
import { getItem } from './consistent-read.js';
import { allItems, queryPages } from './paged-query.js';
import { quotaShardWrites, withSpend } from './key-spend.js';
import {
  cancellationReasons,
  conditionFailed,
  conditionFailedAt,
  failedConditions,
} from './transaction-cancellation.js';

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** A transaction's check that the account exists and no operator disabled it (admin account:disable). */
export function usableAccountCheck(accountsTable: string, accountId: string): TransactItem {
  return {
    ConditionCheck: {
      TableName: accountsTable,
      Key: { account_id: accountId },
      ConditionExpression: 'attribute_exists(account_id) AND (attribute_not_exists(#status) OR #status <> :off)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':off': 'disabled' },
    },
  };
}

export class DynamoDbConsoleKeys implements ConsoleKeyStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: { apiKeys: string; accounts: string },
  ) {}

  async listByAccount(accountId: string): Promise<ApiKeyRecord[]> {
    const keys = await allItems<ApiKeyRecord>(
      queryPages(this.db, {
        TableName: this.tables.apiKeys,
        IndexName: API_KEYS_BY_ACCOUNT_INDEX.name,
        KeyConditionExpression: 'account_id = :account',
        ExpressionAttributeValues: { ':account': accountId },
      }),
    );
    return Promise.all(keys.map((key) => withSpend(this.db, this.tables.apiKeys, key)));
  }

  async create(record: ApiKeyRecord): Promise<void> {
    const put = { TableName: this.tables.apiKeys, Item: record, ConditionExpression: 'attribute_not_exists(key_hash)' };
    try {
      await this.withUsableAccount(record.account_id, { Put: put });
    } catch (error) {
      // The key's own condition first: the admin CLI's fixed local key, made again, is no error there.
      if (conditionFailedAt(error, 0)) throw new KeyExistsError('this key already exists');
      throw error;
    }
  }

  async update(record: ApiKeyRecord, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    // A quota set while a shard's spend moved is refused by that shard's condition: read and try again.
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.updateOnce(record, change);
      } catch (error) {
        const refused = cancellationReasons(error)?.slice(1).some(conditionFailed);
        if (!refused || attempt >= 10) throw error;
      }
    }
  }

  private async updateOnce(record: ApiKeyRecord, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    const shards =
      change.quotaUnits === undefined
        ? []
        : await quotaShardWrites(this.db, this.tables.apiKeys, record.key_hash, change.quotaUnits);
    const others = shards.reduce((sum, shard) => sum + shard.spent, 0n);
    const sets: string[] = [];
    const removes: string[] = [];
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = { ':account': record.account_id, ':deleted': 'deleted' };
    if (change.name !== undefined) {
      sets.push('#name = :name');
      names['#name'] = 'name';
      values[':name'] = change.name;
    }
    if (change.status !== undefined) {
      sets.push('#status = :status');
      values[':status'] = change.status;
    }
    if (change.quotaUnits === null) removes.push('quota_units', 'quota_remaining_units');
    else if (change.quotaUnits !== undefined) {
      // The spend of every shard counts against the quota (money-shards.ts).
      sets.push('quota_units = :quota', 'quota_remaining_units = :quota_less_others - spent_units');
      values[':quota'] = change.quotaUnits;
      values[':quota_less_others'] = change.quotaUnits - Number(others);
    }
    const update: TransactItem = {
      Update: {
        TableName: this.tables.apiKeys,
        Key: { key_hash: record.key_hash },
        UpdateExpression: [sets.length && `SET ${sets.join(', ')}`, removes.length && `REMOVE ${removes.join(', ')}`]
          .filter(Boolean)
          .join(' '),
        ConditionExpression: 'account_id = :account AND #status <> :deleted',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValuesOnConditionCheckFailure: 'NONE',
      },
    };
    try {
      const shardItems = shards.map((shard) => shard.item);
      if (change.status === 'active') await this.withUsableAccount(record.account_id, update, shardItems);
      else await this.db.send(new TransactWriteCommand({ TransactItems: [update, ...shardItems] }));
    } catch (error) {
      // Gone, or deleted meanwhile: the stored record tells which.
      if (!conditionFailedAt(error, 0)) throw error;
    }
    return this.stored(record);
  }

  async remove(record: ApiKeyRecord, now: Date): Promise<ApiKeyRecord | undefined> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tables.apiKeys,
          Key: { key_hash: record.key_hash },
          UpdateExpression: 'SET #status = :deleted, deleted_at = :now',
          ConditionExpression: 'account_id = :account AND #status <> :deleted',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':account': record.account_id,
            ':deleted': 'deleted',
            ':now': now.toISOString(),
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
    return this.stored(record);
  }

  /** The key as stored now, when it is still this account's. */
  private async stored(record: ApiKeyRecord): Promise<ApiKeyRecord | undefined> {
    const stored = await getItem<ApiKeyRecord>(this.db, this.tables.apiKeys, { key_hash: record.key_hash });
    // Its spend is the sum of its shards (key-spend.ts).
    return stored?.account_id === record.account_id ? withSpend(this.db, this.tables.apiKeys, stored) : undefined;
  }

  /**
   * One key write together with a check that its account exists and is not disabled by an operator. A
   * failed key condition is rethrown as it is, before the account's: the caller knows what it means.
   */
  private async withUsableAccount(accountId: string, keyWrite: TransactItem, more: TransactItem[] = []): Promise<void> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [keyWrite, usableAccountCheck(this.tables.accounts, accountId), ...more],
        }),
      );
    } catch (error) {
      const [keyRefused, accountRefused] = failedConditions(error);
      if (!keyRefused && accountRefused) {
        throw new ForbiddenError('this account is disabled: contact support');
      }
      throw error;
    }
  }
}
