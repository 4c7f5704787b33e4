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
import { isConflict } from './transaction-retry.js';
import { getItem } from './consistent-read.js';
import type { AccountRecord, ApiKeyRecord } from '../../core/ports/accounts.js';
import { ledgerEntry, ledgerEntryId } from '../../core/ledger.js';
import type { LedgerEntry } from '../../core/ledger.js';
import { DISABLED_API_KEY_MESSAGE, INVALID_API_KEY_MESSAGE } from '../../core/api-key.js';
import { inLedgerOrder, ledgerPut, listedAfterLast } from './ledger.js';
import { idempotencyKeyTaken, idempotencyPut } from './idempotency.js';
import { conditionalUpdate, isConditionFailed } from './conditional-write.js';
import { cancellationReasons, conditionFailed, conditionFailedAt } from './transaction-cancellation.js';

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

/** Where the submit transaction's idempotency record is (after account, key, task and ledger entry). */
const IDEMPOTENCY_ITEM = 4;

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
    const keyUpdate = charge.keyHasQuota
      ? {
          UpdateExpression: 'SET last_used_at = :used ADD spent_units :cost, quota_remaining_units :negative_cost',
          ConditionExpression: '#status = :active AND quota_remaining_units >= :cost',
          ExpressionAttributeValues: {
            ':cost': cost,
            ':negative_cost': -cost,
            ':active': 'active',
            ':used': task.created_at,
          },
        }
      : {
          UpdateExpression: 'SET last_used_at = :used ADD spent_units :cost',
          ConditionExpression: '#status = :active AND attribute_not_exists(quota_remaining_units)',
          ExpressionAttributeValues: { ':cost': cost, ':active': 'active', ':used': task.created_at },
        };
    const entry = ledgerEntry(
      charge.accountId,
      ledgerEntryId.charge(task.task_id),
      'charge',
      -cost,
      task.created_at,
      task.task_id,
    );
    const commandFor = (listed: LedgerEntry) => {
      const order = listedAfterLast(listed);
      return new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: this.tables.accounts,
              Key: { account_id: charge.accountId },
              UpdateExpression: `SET balance_units = balance_units - :cost, ${order.set}`,
              ConditionExpression: `attribute_exists(account_id) AND balance_units >= :cost AND ${order.condition}`,
              ExpressionAttributeValues: { ':cost': cost, ...order.values },
              // The stored balance tells a short balance from an entry listed before the account's last one.
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
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
            Put: {
              TableName: this.tables.tasks,
              Item: isFinal(task.status) ? task : { ...task, [SHARD]: inFlightShard(task.task_id) },
              ConditionExpression: 'attribute_not_exists(task_id)',
            },
          },
          ledgerPut(this.tables.ledger, listed),
          ...(charge.idempotency ? [idempotencyPut(this.tables.idempotency, charge.idempotency)] : []),
        ],
      });
    };
    try {
      // The SDK gives each transaction an idempotency token (ClientRequestToken) once, before its own retries:
      // a retry after a commit whose answer was lost succeeds without charging twice.
      await inLedgerOrder(
        this.db,
        this.tables.accounts,
        entry,
        0,
        (listed) => this.db.send(commandFor(listed)),
        // Between tries: once the balance or quota no longer covers it, the answer is that, not another try.
        async () => {
          const refusal = await this.chargeRefusal(charge);
          if (refusal) throw refusal;
        },
      );
    } catch (error) {
      throw idempotencyKeyTaken(error, IDEMPOTENCY_ITEM) ?? chargeError(error, charge) ?? busyError(error) ?? error;
    }
  }

  /** The refusal the charge's transaction would meet now (consistent reads), or undefined. */
  private async chargeRefusal(charge: Charge): Promise<Error | undefined> {
    const [account, key] = await Promise.all([
      getItem<AccountRecord>(this.db, this.tables.accounts, { account_id: charge.accountId }),
      getItem<ApiKeyRecord>(this.db, this.tables.apiKeys, { key_hash: charge.keyHash }),
    ]);
    const quota = key?.quota_remaining_units;
    const stored = key && { status: key.status, hasQuota: quota !== undefined };
    const refusal = keyRefusal(stored, charge, quota !== undefined && quota < charge.costUnits);
    if (refusal) return refusal;
    const balance = account ? Number(account.balance_units) : 0;
    return balance < charge.costUnits ? insufficientBalance(charge.costUnits, balance) : undefined;
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
    const commandFor = (listed: LedgerEntry) => {
      const order = listedAfterLast(listed);
      return new TransactWriteCommand({
        TransactItems: [
          { Update: { TableName: this.tables.tasks, Key: { task_id: task.task_id }, ...taskMove } },
          {
            Update: {
              TableName: this.tables.accounts,
              Key: { account_id: task.account_id },
              UpdateExpression: `SET ${order.set} ADD balance_units :cost`,
              ConditionExpression: `attribute_exists(account_id) AND ${order.condition}`,
              ExpressionAttributeValues: { ':cost': cost, ...order.values },
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
          // Its condition can fail only with the task's own (refunded_at is set in the same transaction).
          ledgerPut(this.tables.ledger, listed),
        ],
      });
    };
    try {
      await inLedgerOrder(this.db, this.tables.accounts, entry, 1, (listed) => this.db.send(commandFor(listed)));
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

/** Which condition of the submit transaction failed, as the error the client should see. */
function chargeError(error: unknown, charge: Charge): Error | undefined {
  const reasons = cancellationReasons(error);
  if (!reasons) return undefined;
  const [balance, key] = reasons;
  // The key's conditions first: a disabled key is a 401, and a quota refusal must name the quota
  // (docs/money-and-ledger.md, "Key quotas") even when the balance is short too.
  if (conditionFailed(key)) {
    // The key's stored image (ReturnValuesOnConditionCheckFailure) tells which of its conditions failed.
    const stored = key.Item;
    const image = stored && { status: stored['status']?.S, hasQuota: stored['quota_remaining_units'] !== undefined };
    return keyRefusal(image, charge, true);
  }
  if (conditionFailed(balance)) {
    const stored = balance.Item?.['balance_units']?.N;
    // Covered, yet refused: the account's ledger kept moving under it (busyError's case).
    if (stored !== undefined && Number(stored) >= charge.costUnits) return busyLedgerError();
    return insufficientBalance(charge.costUnits, Number(stored ?? 0));
  }
  return undefined;
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
