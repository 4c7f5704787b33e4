/**
 * Tasks in DynamoDB. Every state change is conditional on the states allowed before it. A task in flight
 * carries its shard of the in-flight index (TASKS_IN_FLIGHT_INDEX): every write of a task in flight sets it,
 * a final move removes it. The charge and the refund each write their ledger entry in their transaction.
 */
import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TASKS_IN_FLIGHT_INDEX } from '../runtime/resources.js';
import {
  ApiError,
  AuthenticationError,
  insufficientBalance,
  KeyQuotaExceededError,
  RateLimitedError,
} from '../../core/api-error.js';
import { KeyChangedError } from '../../core/ports/task-repository.js';
import type { Charge, StaleTask, TaskRepository, UpstreamClaim } from '../../core/ports/task-repository.js';
import type { TaskRecord } from '../../core/task.js';
import { isFinal, statesBefore } from '../../core/task-status.js';
import type { TaskStatus } from '../../core/task-status.js';
import { isConflict, withTransactionConflictRetry } from './transaction-retry.js';
import { getItem } from './consistent-read.js';
import type { ApiKeyRecord } from '../../core/ports/accounts.js';
import { ledgerEntry, ledgerEntryId } from '../../core/ledger.js';
import { DISABLED_API_KEY_MESSAGE, INVALID_API_KEY_MESSAGE } from '../../core/api-key.js';
import { ledgerPut } from './ledger.js';
import { sendDebit, TRY_BUDGET_MS } from './balance-debit.js';
import { notVoided, voidUnlessCharged } from './charge-void.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DebitRetries, TransactItem } from './balance-debit.js';
import { randomShard, readShards, SHARD_OF, shardKey, snapshotShards, sumOf } from './money-shards.js';
import { idempotencyKeyTaken, idempotencyPut } from './idempotency.js';
import { conditionalUpdate, isConditionFailed } from './conditional-write.js';
import { cancellationReasons, conditionFailedAt } from './transaction-cancellation.js';

const SHARD = TASKS_IN_FLIGHT_INDEX.partitionKey;
const IN_FLIGHT_VALUES = { ':pending': 'pending', ':running': 'running', ':transferring': 'transferring' };
const IS_IN_FLIGHT = '#status IN (:pending, :running, :transferring)';

/** The task's shard of the in-flight index: a hash of its id, so tasks spread evenly over the shards. */
export function inFlightShard(taskId: string): string {
  return String(createHash('sha256').update(taskId).digest().readUInt32BE(0) % TASKS_IN_FLIGHT_INDEX.shards);
}

/** The stored item without the index's bookkeeping. */
function toTask(item: Record<string, unknown>): TaskRecord {
  const { [SHARD]: _shard, ...task } = item;
  return task as unknown as TaskRecord;
}

export interface TaskTables {
  tasks: string;
  accounts: string;
  apiKeys: string;
  ledger: string;
  idempotency: string;
}

/**
 * The submit transaction's items: the key's, the task, the ledger entry, the idempotency record (when sent), the
 * void mark's check (charge-void.ts), then the balance's.
 */
const KEY_ITEM = 0;
const IDEMPOTENCY_ITEM = 3;
/** How long conflicts are tried again when the caller gives no deadline of its own. */
const RETRY_FOR_MS = 6_000;

export class DynamoDbTaskRepository implements TaskRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: TaskTables,
  ) {}

  async get(taskId: string): Promise<TaskRecord | undefined> {
    // Consistent: a client polling right after submit must see its task.
    const item = await getItem<Record<string, unknown>>(this.db, this.tables.tasks, { task_id: taskId });
    return item && toTask(item);
  }

  async createCharged(task: TaskRecord, charge: Charge): Promise<void> {
    const cost = charge.costUnits;
    // The key as stored now: a disabled key or a changed quota is refused before anything is sent (the key's
    // spend shards cannot all carry its status).
    const before = await this.keyRefusalNow(charge);
    if (before) throw before;
    const entry = ledgerEntry(
      charge.accountId,
      ledgerEntryId.charge(task.task_id),
      'charge',
      -cost,
      task.created_at,
      task.task_id,
    );
    const send = (balanceItems: TransactItem[], retries: DebitRetries) => {
      const tried = retries.conflict + retries.shard_short > 0 ? { charge_retries: { ...retries } } : {};
      const stored = { ...task, ...tried };
      return this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: keySpendUpdate(this.tables.apiKeys, charge, task.created_at) },
            {
              Put: {
                TableName: this.tables.tasks,
                Item: isFinal(task.status) ? stored : { ...stored, [SHARD]: inFlightShard(task.task_id) },
                ConditionExpression: 'attribute_not_exists(task_id)',
              },
            },
            ledgerPut(this.tables.ledger, entry),
            ...(charge.idempotency ? [idempotencyPut(this.tables.idempotency, charge.idempotency)] : []),
            notVoided(this.tables.idempotency, task.task_id),
            ...balanceItems,
          ],
        }),
      );
    };
    const settleBy = charge.settleBy ?? Date.now() + RETRY_FOR_MS + TRY_BUDGET_MS;
    // The SDK gives each transaction an idempotency token (ClientRequestToken) once, before its own retries:
    // a retry after a commit whose answer was lost succeeds without charging twice.
    const charging = sendDebit(
      this.db,
      this.tables.accounts,
      charge.accountId,
      cost,
      charge.idempotency ? 5 : 4,
      send,
      {
        settleBy,
        outOfTime: (conflicted) => (conflicted ? busyLedgerError() : outOfTimeError()),
        short: (balance) => insufficientBalance(cost, Number(balance)),
        // Between tries: once the balance or quota no longer covers it, the answer is that, not another try.
        beforeRetry: async () => {
          const refusal = await this.chargeRefusal(charge);
          if (refusal) throw refusal;
        },
      },
    );
    charging.catch(() => undefined);
    const stopWaiting = new AbortController();
    const late = sleep(Math.max(0, settleBy - Date.now()), 'late' as const, { signal: stopWaiting.signal });
    late.catch(() => undefined);
    try {
      const outcome = await Promise.race([charging.then(() => 'charged' as const), late]);
      // A try still in flight at the deadline (a slow store): settled now, one way or the other.
      if (outcome === 'late' && !(await voidUnlessCharged(this.db, this.tables, task.task_id))) throw outOfTimeError();
    } catch (error) {
      if (idempotencyKeyTaken(error, IDEMPOTENCY_ITEM)) throw idempotencyKeyTaken(error, IDEMPOTENCY_ITEM);
      if (conditionFailedAt(error, KEY_ITEM)) throw (await this.keyRefusalNow(charge)) ?? new KeyChangedError();
      // No answer from the store (a dropped connection, a timeout): the try may have committed. Settled as at
      // the deadline, so the answer tells the truth either way.
      if (outcomeUnknown(error) && (await voidUnlessCharged(this.db, this.tables, task.task_id))) return;
      throw busyError(error) ?? error;
    } finally {
      stopWaiting.abort();
    }
  }

  /** Why the stored key refuses the charge now (a consistent read), or undefined. */
  private async keyRefusalNow(charge: Charge): Promise<Error | undefined> {
    const key = await getItem<ApiKeyRecord>(this.db, this.tables.apiKeys, { key_hash: charge.keyHash });
    const quota = key?.quota_remaining_units;
    const stored = key && { status: key.status, hasQuota: quota !== undefined };
    return keyRefusal(stored, charge, quota !== undefined && quota < charge.costUnits);
  }

  /** The refusal the charge would meet now: the key's, else a balance short at one instant; or undefined. */
  private async chargeRefusal(charge: Charge): Promise<Error | undefined> {
    const refusal = await this.keyRefusalNow(charge);
    if (refusal) return refusal;
    const counter = { table: this.tables.accounts, keyName: 'account_id' as const, id: charge.accountId };
    const read = sumOf(await readShards(this.db, counter), 'balance_units');
    if (read >= BigInt(charge.costUnits)) return undefined;
    const balance = sumOf(await snapshotShards(this.db, counter), 'balance_units');
    return balance < BigInt(charge.costUnits) ? insufficientBalance(charge.costUnits, Number(balance)) : undefined;
  }

  async recordUpstreamJob(taskId: string, jobId: string, now: string, expiresAt?: string): Promise<TaskRecord> {
    const expiry = expiresAt ? ', upstream_expires_at = :expires' : '';
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tables.tasks,
          Key: { task_id: taskId },
          // The status stays: a new job is queued upstream, and only the upstream saying it runs moves the task.
          UpdateExpression: `SET upstream_job_id = :job, updated_at = :now, #shard = :shard${expiry}`,
          ConditionExpression: 'attribute_not_exists(upstream_job_id) AND #status IN (:pending, :running)',
          ExpressionAttributeNames: { '#status': 'status', '#shard': SHARD },
          ExpressionAttributeValues: {
            ':job': jobId,
            ':running': 'running',
            ':pending': 'pending',
            ':now': now,
            ':shard': inFlightShard(taskId),
            ...(expiresAt ? { ':expires': expiresAt } : {}),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toTask(Attributes ?? {});
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      const current = await this.get(taskId);
      if (!current) throw error;
      return current;
    }
  }

  async claimUpstream(taskId: string, claim: UpstreamClaim, previous?: string): Promise<boolean> {
    const free = previous
      ? 'upstream_claim_id = :previous AND upstream_claim_until <= :at'
      : 'attribute_not_exists(upstream_claim_id)';
    return conditionalUpdate(this.db, {
      TableName: this.tables.tasks,
      Key: { task_id: taskId },
      UpdateExpression:
        'SET upstream_claim_id = :id, upstream_claim_at = :at, upstream_claim_until = :until, upstream_seed = :seed',
      ConditionExpression: `#status IN (:pending, :running) AND attribute_not_exists(upstream_job_id) AND ${free}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':id': claim.id,
        ':at': claim.at,
        ':until': claim.until,
        ':seed': claim.seed,
        ':pending': 'pending',
        ':running': 'running',
        ...(previous ? { ':previous': previous } : {}),
      },
    });
  }

  async releaseUpstreamClaim(taskId: string, claimId: string): Promise<void> {
    // Refused: another claim, or a job recorded: not ours to drop.
    await conditionalUpdate(this.db, {
      TableName: this.tables.tasks,
      Key: { task_id: taskId },
      UpdateExpression: 'REMOVE upstream_claim_id, upstream_claim_at, upstream_claim_until, upstream_seed',
      ConditionExpression: 'upstream_claim_id = :id AND attribute_not_exists(upstream_job_id)',
      ExpressionAttributeValues: { ':id': claimId },
    });
  }

  async moveTo(taskId: string, to: TaskStatus, fields: Partial<TaskRecord>, now: string): Promise<boolean> {
    const update = conditionalMove(taskId, to, { ...fields, updated_at: now });
    return conditionalUpdate(this.db, { TableName: this.tables.tasks, Key: { task_id: taskId }, ...update });
  }

  async refund(
    task: TaskRecord,
    to: 'failed' | 'refunded',
    errorMessage: string,
    now: string,
    options: { withoutJob?: boolean; expiredClaim?: string } = {},
  ): Promise<boolean> {
    const cost = task.cost_units;
    // Never while a claim without a job may still make one: with no claim, with a job recorded, or with the
    // expired claim whose job the caller looked for upstream and did not find.
    const claimSettled = options.expiredClaim
      ? '(attribute_not_exists(upstream_claim_id) OR attribute_exists(upstream_job_id) OR (upstream_claim_id = :claim AND upstream_claim_until <= :claim_now))'
      : '(attribute_not_exists(upstream_claim_id) OR attribute_exists(upstream_job_id))';
    const taskMove = conditionalMove(
      task.task_id,
      to,
      { error_message: errorMessage, finished_at: now, refunded_at: now, updated_at: now },
      options.withoutJob
        ? `attribute_not_exists(refunded_at) AND attribute_not_exists(upstream_job_id) AND ${claimSettled}`
        : `attribute_not_exists(refunded_at) AND ${claimSettled}`,
    );
    if (options.expiredClaim) {
      Object.assign(taskMove.ExpressionAttributeValues, { ':claim': options.expiredClaim, ':claim_now': now });
    }
    const keyRefund = task.key_quota_charged
      ? 'ADD spent_units :negative_cost, quota_remaining_units :cost'
      : 'ADD spent_units :negative_cost';
    const entry = ledgerEntry(task.account_id, ledgerEntryId.refund(task.task_id), 'refund', cost, now, task.task_id);
    const keyShard = task.key_quota_charged ? 0 : randomShard();
    const balanceShard = randomShard();
    const account = { table: this.tables.accounts, keyName: 'account_id' as const, id: task.account_id };
    const key = { table: this.tables.apiKeys, keyName: 'key_hash' as const, id: task.key_hash };
    const command = new TransactWriteCommand({
      TransactItems: [
        { Update: { TableName: this.tables.tasks, Key: { task_id: task.task_id }, ...taskMove } },
        // Back to any shard: a credit needs no condition but the account's (the bound is the credits' own).
        {
          Update: {
            TableName: this.tables.accounts,
            Key: shardKey(account, balanceShard),
            ...(balanceShard === 0
              ? { UpdateExpression: 'ADD balance_units :cost', ConditionExpression: 'attribute_exists(account_id)' }
              : {
                  UpdateExpression: 'SET #of = :of ADD balance_units :cost',
                  ExpressionAttributeNames: { '#of': SHARD_OF },
                }),
            ExpressionAttributeValues: { ':cost': cost, ...(balanceShard !== 0 && { ':of': task.account_id }) },
          },
        },
        {
          Update: {
            TableName: this.tables.apiKeys,
            Key: shardKey(key, keyShard),
            ...(keyShard === 0
              ? { UpdateExpression: keyRefund, ConditionExpression: 'attribute_exists(key_hash)' }
              : { UpdateExpression: `SET #of = :of ${keyRefund}`, ExpressionAttributeNames: { '#of': SHARD_OF } }),
            ExpressionAttributeValues: {
              ':negative_cost': -cost,
              ...(task.key_quota_charged && { ':cost': cost }),
              ...(keyShard !== 0 && { ':of': task.key_hash }),
            },
          },
        },
        // Its condition can fail only with the task's own (refunded_at is set in the same transaction).
        ledgerPut(this.tables.ledger, entry),
      ],
    });
    try {
      await withTransactionConflictRetry(() => this.db.send(command));
      return true;
    } catch (error) {
      // The task's own condition decides: it was refunded (or moved) already.
      if (conditionFailedAt(error, 0)) return false;
      throw error;
    }
  }

  /** One page per shard, at most `limit` each, oldest first; then the oldest `limit` of them all. */
  async findStale(updatedBefore: string, limit: number): Promise<StaleTask[]> {
    const shards = Array.from({ length: TASKS_IN_FLIGHT_INDEX.shards }, (_, shard) => String(shard));
    const pages = await Promise.all(
      shards.map((shard) =>
        this.db.send(
          new QueryCommand({
            TableName: this.tables.tasks,
            IndexName: TASKS_IN_FLIGHT_INDEX.name,
            KeyConditionExpression: '#shard = :shard AND updated_at < :before',
            ExpressionAttributeNames: { '#shard': SHARD },
            ExpressionAttributeValues: { ':shard': shard, ':before': updatedBefore },
            Limit: limit,
          }),
        ),
      ),
    );
    return pages
      .flatMap((page) => (page.Items ?? []).map((item) => toTask(item) as StaleTask))
      .sort((a, b) => a.updated_at.localeCompare(b.updated_at))
      .slice(0, limit);
  }

  touch(taskId: string, now: string): Promise<boolean> {
    return this.updateInFlight(taskId, now, {});
  }

  registerWake(taskId: string, token: string, now: string): Promise<boolean> {
    return this.updateInFlight(taskId, now, { wake_token: token });
  }

  recordExecution(taskId: string, executionName: string, now: string): Promise<boolean> {
    return this.updateInFlight(taskId, now, { execution_name: executionName }, { restarts: 1 });
  }

  /** SETs `fields` (and ADDs `add`) on a task still in flight, marking it alive; false when it is final. */
  private async updateInFlight(
    taskId: string,
    now: string,
    fields: Record<string, unknown>,
    add: Record<string, number> = {},
  ): Promise<boolean> {
    const names: Record<string, string> = { '#status': 'status', '#shard': SHARD };
    const values: Record<string, unknown> = { ':now': now, ':shard': inFlightShard(taskId), ...IN_FLIGHT_VALUES };
    const sets = ['updated_at = :now', '#shard = :shard'];
    for (const [field, value] of Object.entries(fields)) {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    }
    const adds = Object.entries(add).map(([field, value]) => {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      return `#${field} :${field}`;
    });
    return conditionalUpdate(this.db, {
      TableName: this.tables.tasks,
      Key: { task_id: taskId },
      UpdateExpression: `SET ${sets.join(', ')}${adds.length > 0 ? ` ADD ${adds.join(', ')}` : ''}`,
      ConditionExpression: IS_IN_FLIGHT,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
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

/**
 * SET status and fields, on condition that the task is in a state allowed before `to`. A move to a final state
 * takes the task out of the in-flight index; any other move keeps it there.
 */
function conditionalMove(taskId: string, to: TaskStatus, fields: Record<string, unknown>, extraCondition?: string) {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':to': to };
  const sets = ['#status = :to'];
  const inFlight = isFinal(to) ? {} : { [SHARD]: inFlightShard(taskId) };
  for (const [field, value] of Object.entries({ ...fields, ...inFlight })) {
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
  if (isFinal(to)) names['#in_flight'] = SHARD;
  return {
    UpdateExpression: `SET ${sets.join(', ')}${isFinal(to) ? ' REMOVE #in_flight' : ''}`,
    ConditionExpression: extraCondition ? `${condition} AND ${extraCondition}` : condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** Why the key refuses a charge: unknown or disabled (401), its quota changed kind (submit reads it again), or short. */
function keyRefusal(
  key: { status: string | undefined; hasQuota: boolean } | undefined,
  charge: Charge,
  quotaShort: boolean,
): Error | undefined {
  if (!key) return new AuthenticationError(INVALID_API_KEY_MESSAGE);
  if (key.status !== 'active') return new AuthenticationError(DISABLED_API_KEY_MESSAGE);
  if (key.hasQuota !== charge.keyHasQuota) return new KeyChangedError();
  return quotaShort ? new KeyQuotaExceededError() : undefined;
}

/**
 * Still losing to other writers of the account after the retries: a 429 the client may retry (nothing was
 * charged), not a 500.
 */
function busyError(error: unknown): Error | undefined {
  return isConflict(error) ? busyLedgerError() : undefined;
}

function busyLedgerError(): Error {
  return new RateLimitedError(1, 'too many submits at once on this account: nothing was charged; retry after 1 s');
}

/** An error after which a sent transaction may or may not have committed: not a refusal, not one of ours. */
function outcomeUnknown(error: unknown): boolean {
  return (
    !(error instanceof ApiError) && !(error instanceof KeyChangedError) && cancellationReasons(error) === undefined
  );
}

/** The function's time could not cover another try of the charge: nothing was charged (docs/money-and-ledger.md). */
function outOfTimeError(): Error {
  return new RateLimitedError(
    1,
    "the charge could not be made in this request's time: nothing was charged; retry after 1 s",
  );
}

/**
 * The key's part of a charge. A key with a quota: its own item, which holds the quota (conditions: active,
 * within quota). Without: a random spend shard (conditions: still no quota; shard 0 also active).
 */
function keySpendUpdate(table: string, charge: Charge, usedAt: string): NonNullable<TransactItem['Update']> {
  const cost = charge.costUnits;
  const base = { TableName: table, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
  if (charge.keyHasQuota) {
    return {
      ...base,
      Key: { key_hash: charge.keyHash },
      UpdateExpression: 'SET last_used_at = :used ADD spent_units :cost, quota_remaining_units :negative_cost',
      ConditionExpression: '#status = :active AND quota_remaining_units >= :cost',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':cost': cost, ':negative_cost': -cost, ':active': 'active', ':used': usedAt },
    };
  }
  const shard = randomShard();
  const key = shardKey({ table, keyName: 'key_hash', id: charge.keyHash }, shard);
  if (shard === 0) {
    return {
      ...base,
      Key: key,
      UpdateExpression: 'SET last_used_at = :used ADD spent_units :cost',
      ConditionExpression: '#status = :active AND attribute_not_exists(quota_remaining_units)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':cost': cost, ':active': 'active', ':used': usedAt },
    };
  }
  // A quota set since marks every shard (console-keys.ts), so a charge here cannot pass it.
  return {
    ...base,
    Key: key,
    UpdateExpression: 'SET last_used_at = :used, #of = :of ADD spent_units :cost',
    ConditionExpression: 'attribute_not_exists(quota_units)',
    ExpressionAttributeNames: { '#of': SHARD_OF },
    ExpressionAttributeValues: { ':cost': cost, ':used': usedAt, ':of': charge.keyHash },
  };
}
