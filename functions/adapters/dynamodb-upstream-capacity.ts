/**
 * Upstream accounts, their slots and the waiting room in DynamoDB (functions/core/ports/upstream-capacity.ts).
 * A slot is taken and given back in one transaction with the task's own record, so `in_use` always equals
 * the number of tasks carrying that account in `upstream_slot` (the slot-holders index).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, PutCommand, QueryCommand, ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type {
  AccountId,
  AccountPenalty,
  AssignOutcome,
  UpstreamAccount,
  UpstreamCapacity,
  WaitingEntry,
} from '../core/ports/upstream-capacity.js';
import { accountIdOf } from '../core/ports/upstream-capacity.js';
import { TASKS_SLOT_HOLDERS_INDEX } from './resources.js';
import { sendGuardedTransaction } from './transaction-retry.js';

export interface CapacityTables {
  tasks: string;
  upstreamAccounts: string;
  upstreamQueue: string;
}

export class DynamoDbUpstreamCapacity implements UpstreamCapacity {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: CapacityTables,
  ) {}

  async accounts(provider: string): Promise<UpstreamAccount[]> {
    // A handful of items: a consistent scan, filtered by provider.
    const items: UpstreamAccount[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new ScanCommand({
          TableName: this.tables.upstreamAccounts,
          ConsistentRead: true,
          FilterExpression: '#provider = :provider',
          ExpressionAttributeNames: { '#provider': 'provider' },
          ExpressionAttributeValues: { ':provider': provider },
          ExclusiveStartKey: start,
        }),
      );
      items.push(...((page.Items ?? []) as UpstreamAccount[]));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }

  async enqueue(entry: WaitingEntry): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.tables.upstreamQueue, Item: entry }));
  }

  async oldest(provider: string, limit: number): Promise<WaitingEntry[]> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tables.upstreamQueue,
        KeyConditionExpression: '#provider = :provider',
        ExpressionAttributeNames: { '#provider': 'provider' },
        ExpressionAttributeValues: { ':provider': provider },
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    return Items as WaitingEntry[];
  }

  async countBefore(provider: string, position: string): Promise<number> {
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tables.upstreamQueue,
          KeyConditionExpression: '#provider = :provider AND #position < :position',
          ExpressionAttributeNames: { '#provider': 'provider', '#position': 'position' },
          ExpressionAttributeValues: { ':provider': provider, ':position': position },
          Select: 'COUNT',
          ExclusiveStartKey: start,
        }),
      );
      count += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    return count;
  }

  async leave(provider: string, position: string, token?: string): Promise<void> {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.tables.upstreamQueue,
          Key: { provider, position },
          ...(token && { ConditionExpression: '#token = :token', ExpressionAttributeNames: { '#token': 'token' } }),
          ...(token && { ExpressionAttributeValues: { ':token': token } }),
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  }

  async assign(entry: WaitingEntry, account: UpstreamAccount, callbackToken: string, now: string) {
    const accountId = accountIdOf(account.provider, account.name);
    const command = new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: this.tables.upstreamAccounts,
            Key: { id: accountId },
            UpdateExpression: 'ADD in_use :one SET updated_at = :now',
            ConditionExpression:
              'in_use < #capacity AND #enabled = :true AND (attribute_not_exists(cool_until) OR cool_until < :now)',
            ExpressionAttributeNames: { '#capacity': 'capacity', '#enabled': 'enabled' },
            ExpressionAttributeValues: { ':one': 1, ':true': true, ':now': now },
          },
        },
        {
          Update: {
            TableName: this.tables.tasks,
            Key: { task_id: entry.task_id },
            UpdateExpression:
              'SET upstream_slot = :slot, upstream_account = :account, callback_token = :callback, updated_at = :now',
            ConditionExpression:
              '#status = :pending AND attribute_not_exists(upstream_slot) AND attribute_not_exists(upstream_job_id)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':slot': accountId,
              ':account': account.name,
              ':callback': callbackToken,
              ':now': now,
              ':pending': 'pending',
            },
          },
        },
        {
          Delete: {
            TableName: this.tables.upstreamQueue,
            Key: { provider: entry.provider, position: entry.position },
            ConditionExpression: '#token = :token',
            ExpressionAttributeNames: { '#token': 'token' },
            ExpressionAttributeValues: { ':token': entry.token },
          },
        },
      ],
    });
    try {
      // Not retried on a conflict: concurrent dispatchers all write the account's counter, and one of them
      // wins each round; the loser tries another entry after a fresh read instead of waiting its turn.
      await this.db.send(command);
      return 'assigned' as AssignOutcome;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const codes = (error.CancellationReasons ?? []).map((r) => r.Code);
      if (codes.includes('TransactionConflict') && !codes.includes('ConditionalCheckFailed')) return 'conflict';
      const [accountItem, task, queued] = codes;
      // The entry first: a changed entry says nothing about the task; a stale task is dropped by the caller.
      if (queued === 'ConditionalCheckFailed') return 'entry-changed';
      if (task === 'ConditionalCheckFailed') return 'task-not-waiting';
      if (accountItem === 'ConditionalCheckFailed') return 'account-full';
      throw error;
    }
  }

  async release(taskId: string, accountId: AccountId, now: string, penalty?: AccountPenalty): Promise<boolean> {
    const accountUpdate = penaltyUpdate(penalty, now);
    const command = new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: this.tables.tasks,
            Key: { task_id: taskId },
            UpdateExpression: 'REMOVE upstream_slot',
            ConditionExpression: 'upstream_slot = :slot',
            ExpressionAttributeValues: { ':slot': accountId },
          },
        },
        {
          Update: {
            TableName: this.tables.upstreamAccounts,
            Key: { id: accountId },
            ConditionExpression: 'attribute_exists(id)',
            ...accountUpdate,
          },
        },
      ],
    });
    return sendGuardedTransaction(() => this.db.send(command));
  }

  async holders(accountId: AccountId, updatedBefore: string, limit: number) {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tables.tasks,
        IndexName: TASKS_SLOT_HOLDERS_INDEX.name,
        KeyConditionExpression: 'upstream_slot = :slot AND updated_at < :before',
        ExpressionAttributeValues: { ':slot': accountId, ':before': updatedBefore },
        Limit: limit,
      }),
    );
    return Items.map((item) => ({ task_id: String(item['task_id']), status: String(item['status']) }));
  }
}

function penaltyUpdate(penalty: AccountPenalty | undefined, now: string) {
  const values: Record<string, unknown> = { ':minus': -1, ':now': now };
  let sets = 'updated_at = :now';
  if (penalty && 'coolUntil' in penalty) {
    sets += ', cool_until = :cool';
    values[':cool'] = penalty.coolUntil;
  } else if (penalty) {
    sets += ', #enabled = :false, disabled_reason = :reason';
    values[':false'] = false;
    values[':reason'] = penalty.disable;
  }
  return {
    UpdateExpression: `ADD in_use :minus SET ${sets}`,
    ...(penalty && 'disable' in penalty && { ExpressionAttributeNames: { '#enabled': 'enabled' } }),
    ExpressionAttributeValues: values,
  };
}
