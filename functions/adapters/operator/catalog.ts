/**
 * The operator's side of the model catalog and the upstream accounts (docs/operations.md, docs/upstream-capacity.md):
 * catalog items written whole, upstream accounts created or changed (never their counts) and listed with how
 * many tasks wait per provider. Reads are consistent: an operator sees what was just written.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { accountIdOf } from '../../core/ports/upstream-capacity.js';
import type { UpstreamAccount } from '../../core/ports/upstream-capacity.js';
import { getItem } from '../dynamodb/consistent-read.js';

export interface UpstreamAccountChange {
  capacity?: number;
  enabled?: boolean;
  keys?: string[];
  /** null: removed (and the learned limit with it). */
  inflightCeiling?: number | null;
}

export class DynamoDbOperatorCatalog {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: { models: string; upstreamAccounts: string; upstreamQueue: string },
  ) {}

  async putModel(item: Record<string, unknown>): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.tables.models, Item: item }));
  }

  async models(): Promise<Record<string, unknown>[]> {
    const { Items = [] } = await this.db.send(new ScanCommand({ TableName: this.tables.models, ConsistentRead: true }));
    return Items;
  }

  /**
   * Creates the account (with `defaultCapacity` unless told) or changes it. Enabling clears what disabled or
   * cooled it; a ceiling also brings the learned limit down to it at once.
   */
  async setUpstreamAccount(
    provider: string,
    name: string,
    change: UpstreamAccountChange,
    defaultCapacity: number,
    now: string,
  ): Promise<UpstreamAccount> {
    const values: Record<string, unknown> = { ':provider': provider, ':name': name, ':now': now, ':zero': 0 };
    const sets = [
      '#provider = :provider',
      '#name = :name',
      'updated_at = :now',
      'in_use = if_not_exists(in_use, :zero)',
    ];
    sets.push('#capacity = ' + (change.capacity === undefined ? 'if_not_exists(#capacity, :capacity)' : ':capacity'));
    values[':capacity'] = change.capacity ?? defaultCapacity;
    sets.push('#enabled = ' + (change.enabled === undefined ? 'if_not_exists(#enabled, :enabled)' : ':enabled'));
    values[':enabled'] = change.enabled ?? true;
    if (change.keys) {
      sets.push('#keys = :keys');
      values[':keys'] = change.keys;
    }
    const removed = change.enabled === true ? ['disabled_reason', 'cool_until', 'cool_streak', 'probe_until'] : [];
    if (change.inflightCeiling === null) removed.push('inflight_ceiling', 'inflight_limit');
    else if (change.inflightCeiling !== undefined) {
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

  upstreamAccount(provider: string, name: string): Promise<UpstreamAccount | undefined> {
    return getItem<UpstreamAccount>(this.db, this.tables.upstreamAccounts, { id: accountIdOf(provider, name) });
  }

  async upstreamAccounts(): Promise<UpstreamAccount[]> {
    const { Items = [] } = await this.db.send(
      new ScanCommand({ TableName: this.tables.upstreamAccounts, ConsistentRead: true }),
    );
    return Items as UpstreamAccount[];
  }

  /** How many tasks wait in the provider's waiting room. */
  async waiting(provider: string): Promise<number> {
    const { Count = 0 } = await this.db.send(
      new QueryCommand({
        TableName: this.tables.upstreamQueue,
        KeyConditionExpression: '#provider = :provider',
        ExpressionAttributeNames: { '#provider': 'provider' },
        ExpressionAttributeValues: { ':provider': provider },
        Select: 'COUNT',
      }),
    );
    return Count;
  }
}
