/** Tasks in DynamoDB. Every state change is conditional on the states allowed before it. */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TASKS_BY_STATUS_INDEX } from './resources.js';
import { AuthenticationError, InsufficientBalanceError, KeyQuotaExceededError } from '../core/api-error.js';
import { KeyChangedError } from '../core/ports/task-repository.js';
import type { Charge, TaskRepository } from '../core/ports/task-repository.js';
import type { TaskRecord } from '../core/task.js';
import { statesBefore } from '../core/task-status.js';
import type { TaskStatus } from '../core/task-status.js';
import { withTransactionConflictRetry } from './transaction-retry.js';

export interface TaskTables {
  tasks: string;
  accounts: string;
  apiKeys: string;
}

export class DynamoDbTaskRepository implements TaskRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: TaskTables,
  ) {}

  async get(taskId: string): Promise<TaskRecord | undefined> {
    // Consistent: a client polling right after submit must see its task.
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tables.tasks, Key: { task_id: taskId }, ConsistentRead: true }),
    );
    return Item as TaskRecord | undefined;
  }

  async createCharged(task: TaskRecord, charge: Charge): Promise<void> {
    const cost = charge.costUnits;
    const keyUpdate = charge.keyHasQuota
      ? {
          UpdateExpression: 'ADD spent_units :cost, quota_remaining_units :negative_cost',
          ConditionExpression: '#status = :active AND quota_remaining_units >= :cost',
          ExpressionAttributeValues: { ':cost': cost, ':negative_cost': -cost, ':active': 'active' },
        }
      : {
          UpdateExpression: 'ADD spent_units :cost',
          ConditionExpression: '#status = :active AND attribute_not_exists(quota_remaining_units)',
          ExpressionAttributeValues: { ':cost': cost, ':active': 'active' },
        };
    const command = new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: this.tables.accounts,
            Key: { account_id: charge.accountId },
            UpdateExpression: 'SET balance_units = balance_units - :cost',
            ConditionExpression: 'attribute_exists(account_id) AND balance_units >= :cost',
            ExpressionAttributeValues: { ':cost': cost },
          },
        },
        {
          Update: {
            TableName: this.tables.apiKeys,
            Key: { key_hash: charge.keyHash },
            ExpressionAttributeNames: { '#status': 'status' },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            ...keyUpdate,
          },
        },
        {
          Put: { TableName: this.tables.tasks, Item: task, ConditionExpression: 'attribute_not_exists(task_id)' },
        },
      ],
    });
    try {
      // The SDK gives the transaction an idempotency token (ClientRequestToken) once, before its own retries:
      // a retry after a commit whose answer was lost succeeds without charging twice.
      await withTransactionConflictRetry(() => this.db.send(command));
    } catch (error) {
      throw chargeError(error, charge) ?? error;
    }
  }

  async recordUpstreamJob(taskId: string, jobId: string, now: string): Promise<TaskRecord> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tables.tasks,
          Key: { task_id: taskId },
          UpdateExpression: 'SET upstream_job_id = :job, #status = :running, updated_at = :now',
          ConditionExpression: 'attribute_not_exists(upstream_job_id) AND #status IN (:pending, :running)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':job': jobId, ':running': 'running', ':pending': 'pending', ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes as TaskRecord;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const current = await this.get(taskId);
      if (!current) throw error;
      return current;
    }
  }

  async moveTo(taskId: string, to: TaskStatus, fields: Partial<TaskRecord>, now: string): Promise<boolean> {
    const update = conditionalMove(to, { ...fields, updated_at: now });
    try {
      await this.db.send(new UpdateCommand({ TableName: this.tables.tasks, Key: { task_id: taskId }, ...update }));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async refund(task: TaskRecord, to: 'failed' | 'refunded', errorMessage: string, now: string): Promise<boolean> {
    const cost = task.cost_units;
    const taskMove = conditionalMove(
      to,
      { error_message: errorMessage, finished_at: now, refunded_at: now, updated_at: now },
      'attribute_not_exists(refunded_at)',
    );
    const keyRefund = task.key_quota_charged
      ? 'ADD spent_units :negative_cost, quota_remaining_units :cost'
      : 'ADD spent_units :negative_cost';
    const command = new TransactWriteCommand({
      TransactItems: [
        { Update: { TableName: this.tables.tasks, Key: { task_id: task.task_id }, ...taskMove } },
        {
          Update: {
            TableName: this.tables.accounts,
            Key: { account_id: task.account_id },
            UpdateExpression: 'ADD balance_units :cost',
            ConditionExpression: 'attribute_exists(account_id)',
            ExpressionAttributeValues: { ':cost': cost },
          },
        },
        {
          Update: {
            TableName: this.tables.apiKeys,
            Key: { key_hash: task.key_hash },
            UpdateExpression: keyRefund,
            ConditionExpression: 'attribute_exists(key_hash)',
            ExpressionAttributeValues: task.key_quota_charged
              ? { ':cost': cost, ':negative_cost': -cost }
              : { ':negative_cost': -cost },
          },
        },
      ],
    });
    try {
      await withTransactionConflictRetry(() => this.db.send(command));
      return true;
    } catch (error) {
      if (
        error instanceof TransactionCanceledException &&
        error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed'
      ) {
        return false;
      }
      throw error;
    }
  }

  async *findStale(status: TaskStatus, updatedBefore: string): AsyncIterable<TaskRecord> {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tables.tasks,
          IndexName: TASKS_BY_STATUS_INDEX.name,
          KeyConditionExpression: '#status = :status AND updated_at < :before',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': status, ':before': updatedBefore },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) yield item as TaskRecord;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }

  async recordExecution(taskId: string, executionName: string, now: string): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tables.tasks,
          Key: { task_id: taskId },
          UpdateExpression: 'SET execution_name = :name, updated_at = :now ADD restarts :one',
          ConditionExpression: '#status IN (:pending, :running, :transferring)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':name': executionName,
            ':now': now,
            ':one': 1,
            ':pending': 'pending',
            ':running': 'running',
            ':transferring': 'transferring',
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async saveVideoUrl(taskId: string, url: string, expiresAt: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tables.tasks,
        Key: { task_id: taskId },
        UpdateExpression: 'SET video_url = :url, video_url_expires_at = :expires',
        ConditionExpression: '#status = :success',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':url': url, ':expires': expiresAt, ':success': 'success' },
      }),
    );
  }
}

/** SET status and fields, on condition that the task is in a state allowed before `to`. */
function conditionalMove(to: TaskStatus, fields: Record<string, unknown>, extraCondition?: string) {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':to': to };
  const sets = ['#status = :to'];
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
  }
  const from = statesBefore(to).map((status, index) => {
    values[`:from${index}`] = status;
    return `:from${index}`;
  });
  const condition = `#status IN (${from.join(', ')})`;
  return {
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: extraCondition ? `${condition} AND ${extraCondition}` : condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** Which condition of the submit transaction failed, as the error the client should see. */
function chargeError(error: unknown, charge: Charge): Error | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  const [balance, key] = error.CancellationReasons ?? [];
  // The key's conditions first: a disabled key is a 401, and a quota refusal must name the quota
  // (DESIGN §3 row 15) even when the balance is short too.
  if (key?.Code === 'ConditionalCheckFailed') {
    // The key's stored image (ReturnValuesOnConditionCheckFailure) tells which of its conditions failed.
    const stored = key.Item;
    if (!stored) return new AuthenticationError('invalid API key');
    if (stored['status']?.S !== 'active') return new AuthenticationError('API key is disabled');
    if ((stored['quota_remaining_units'] !== undefined) !== charge.keyHasQuota) return new KeyChangedError();
    return new KeyQuotaExceededError();
  }
  if (balance?.Code === 'ConditionalCheckFailed') return new InsufficientBalanceError();
  return undefined;
}
