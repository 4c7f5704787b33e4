/**
 * Upstream accounts, their slots and the waiting room in DynamoDB (functions/core/ports/upstream-capacity.ts).
 * Every count change is one transaction with the task's own record, so `inflight` equals the tasks carrying
 * the account in `upstream_slot` (the slot-holders index) and `in_use` those of them still `queued`.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type {
  AccountId,
  AccountPenalty,
  AssignOptions,
  AssignOutcome,
  SlotPhase,
  UpstreamAccount,
  UpstreamCapacity,
  WaitingEntry,
} from '../../core/ports/upstream-capacity.js';
import { accountIdOf } from '../../core/ports/upstream-capacity.js';
import { raisedLimit } from '../../core/upstream-account-rules.js';
import { TASKS_SLOT_HOLDERS_INDEX } from '../runtime/resources.js';
import { conditionalUpdate, sendConditional } from './conditional-write.js';
import { getItem } from './consistent-read.js';
import { allItems, queryPages, scanPages } from './paged-query.js';
import { cancellationReasons } from './transaction-cancellation.js';
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

  accounts(provider: string): Promise<UpstreamAccount[]> {
    // A handful of items: a consistent scan, filtered by provider.
    return allItems(
      scanPages(this.db, {
        TableName: this.tables.upstreamAccounts,
        ConsistentRead: true,
        FilterExpression: '#provider = :provider',
        ExpressionAttributeNames: { '#provider': 'provider' },
        ExpressionAttributeValues: { ':provider': provider },
      }),
    );
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
    const pages = queryPages(this.db, {
      TableName: this.tables.upstreamQueue,
      KeyConditionExpression: '#provider = :provider AND #position < :position',
      ExpressionAttributeNames: { '#provider': 'provider', '#position': 'position' },
      ExpressionAttributeValues: { ':provider': provider, ':position': position },
      Select: 'COUNT',
    });
    for await (const page of pages) count += page.Count ?? 0;
    return count;
  }

  async leave(provider: string, position: string, token?: string): Promise<void> {
    await sendConditional(() =>
      this.db.send(
        new DeleteCommand({
          TableName: this.tables.upstreamQueue,
          Key: { provider, position },
          ...(token && { ConditionExpression: '#token = :token', ExpressionAttributeNames: { '#token': 'token' } }),
          ...(token && { ExpressionAttributeValues: { ':token': token } }),
        }),
      ),
    );
  }

  async assign(
    entry: WaitingEntry,
    account: UpstreamAccount,
    callbackToken: string,
    now: string,
    options: AssignOptions,
  ) {
    const accountId = accountIdOf(account.provider, account.name);
    const command = new TransactWriteCommand({
      TransactItems: [
        { Update: { TableName: this.tables.upstreamAccounts, Key: { id: accountId }, ...admission(now, options) } },
        {
          Update: {
            TableName: this.tables.tasks,
            Key: { task_id: entry.task_id },
            UpdateExpression:
              'SET upstream_slot = :slot, upstream_slot_phase = :queued, upstream_account = :account, ' +
              'callback_token = :callback, updated_at = :now',
            ConditionExpression:
              '#status = :pending AND attribute_not_exists(upstream_slot) AND attribute_not_exists(upstream_job_id)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':slot': accountId,
              ':queued': 'queued',
              ':account': options.key,
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
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      const codes = reasons.map((r) => r.Code);
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
    // The decrements depend on the task's phase, read first; the transaction checks it still holds, so a
    // phase changed meanwhile (the job started) fails it, and it is tried again with the new one.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const phase = await this.phaseOf(taskId, accountId);
      if (!phase) return false;
      const command = new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: this.tables.tasks,
              Key: { task_id: taskId },
              UpdateExpression: 'REMOVE upstream_slot, upstream_slot_phase',
              ConditionExpression: 'upstream_slot = :slot AND upstream_slot_phase = :phase',
              ExpressionAttributeValues: { ':slot': accountId, ':phase': phase },
            },
          },
          {
            Update: {
              TableName: this.tables.upstreamAccounts,
              Key: { id: accountId },
              ConditionExpression: 'attribute_exists(id)',
              ...penaltyUpdate(penalty, now, phase),
            },
          },
        ],
      });
      if (await sendGuardedTransaction(() => this.db.send(command))) return true;
    }
    return false;
  }

  async started(taskId: string, accountId: AccountId, now: string): Promise<boolean> {
    const taskUpdate = {
      UpdateExpression: 'SET upstream_slot_phase = :running',
      ConditionExpression: 'upstream_slot = :slot AND upstream_slot_phase = :phase',
      ExpressionAttributeValues: { ':slot': accountId, ':phase': 'queued', ':running': 'running' },
    };
    const command = new TransactWriteCommand({
      TransactItems: [
        { Update: { TableName: this.tables.tasks, Key: { task_id: taskId }, ...taskUpdate } },
        {
          Update: {
            TableName: this.tables.upstreamAccounts,
            Key: { id: accountId },
            ConditionExpression: 'attribute_exists(id)',
            UpdateExpression: 'ADD in_use :minus SET updated_at = :now',
            ExpressionAttributeValues: { ':minus': -1, ':now': now },
          },
        },
      ],
    });
    return sendGuardedTransaction(() => this.db.send(command));
  }

  async accepted(accountId: AccountId, now: string): Promise<boolean> {
    const account = await getItem<UpstreamAccount>(this.db, this.tables.upstreamAccounts, { id: accountId });
    if (!account) return false;
    let coolingEnded = false;
    if ((account.cool_streak ?? 0) > 0) {
      // Only the streak read ends: a 429 of another probe in between started a new one.
      coolingEnded = await this.conditional({
        UpdateExpression: 'SET cool_streak = :zero, updated_at = :now REMOVE probe_until, cool_until',
        ConditionExpression: 'cool_streak = :streak',
        ExpressionAttributeValues: { ':zero': 0, ':now': now, ':streak': account.cool_streak },
        accountId,
      });
    }
    const limit = account.inflight_limit;
    if (limit === undefined || (account.inflight_ceiling !== undefined && limit >= account.inflight_ceiling)) {
      return coolingEnded;
    }
    const raised = raisedLimit(account, (account.inflight_accepted ?? 0) + 1);
    // Both only while the limit is the one read: a cut in between wins, and its count starts again.
    await this.conditional(
      raised === undefined
        ? {
            UpdateExpression: 'ADD inflight_accepted :one',
            ConditionExpression: 'inflight_limit = :limit',
            ExpressionAttributeValues: { ':one': 1, ':limit': limit },
            accountId,
          }
        : {
            UpdateExpression: 'SET inflight_limit = :raised, inflight_accepted = :zero',
            ConditionExpression: 'inflight_limit = :limit',
            ExpressionAttributeValues: { ':raised': raised, ':zero': 0, ':limit': limit },
            accountId,
          },
    );
    return coolingEnded;
  }

  private async conditional(update: {
    UpdateExpression: string;
    ConditionExpression: string;
    ExpressionAttributeValues: Record<string, unknown>;
    accountId: AccountId;
  }): Promise<boolean> {
    const { accountId, ...expression } = update;
    return conditionalUpdate(this.db, {
      TableName: this.tables.upstreamAccounts,
      Key: { id: accountId },
      ...expression,
    });
  }

  /** What the task holds in the account: its phase, or nothing. */
  private async phaseOf(taskId: string, accountId: AccountId): Promise<SlotPhase | undefined> {
    const item = await getItem<{ upstream_slot?: string; upstream_slot_phase?: SlotPhase }>(
      this.db,
      this.tables.tasks,
      { task_id: taskId },
      'upstream_slot, upstream_slot_phase',
    );
    if (item?.upstream_slot !== accountId) return undefined;
    return item.upstream_slot_phase;
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

/**
 * The account's side of a slot taken: under capacity and the in-flight limit and ceiling, enabled; not
 * cooling, or (a probe) cooling with the streak read, past its cool-down and with no live probe.
 */
function admission(now: string, options: AssignOptions) {
  const room =
    'in_use < #capacity AND #enabled = :true AND (attribute_not_exists(cool_until) OR cool_until < :now) AND ' +
    '(attribute_not_exists(inflight) OR attribute_not_exists(inflight_limit) OR inflight < inflight_limit) AND ' +
    '(attribute_not_exists(inflight) OR attribute_not_exists(inflight_ceiling) OR inflight < inflight_ceiling)';
  const names = { '#capacity': 'capacity', '#enabled': 'enabled' };
  const values = { ':one': 1, ':true': true, ':now': now };
  if (!options.probe) {
    return {
      UpdateExpression: 'ADD in_use :one, inflight :one SET updated_at = :now',
      ConditionExpression: `${room} AND (attribute_not_exists(cool_streak) OR cool_streak = :zero)`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ...values, ':zero': 0 },
    };
  }
  return {
    UpdateExpression: 'ADD in_use :one, inflight :one SET updated_at = :now, probe_until = :lease',
    ConditionExpression: `${room} AND cool_streak = :streak AND (attribute_not_exists(probe_until) OR probe_until < :now)`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ...values, ':streak': options.probe.streak, ':lease': options.probe.until },
  };
}

function penaltyUpdate(penalty: AccountPenalty | undefined, now: string, phase: SlotPhase) {
  const values: Record<string, unknown> = { ':minus': -1, ':now': now };
  const adds = [phase === 'running' ? '' : 'in_use :minus', 'inflight :minus'];
  let sets = 'updated_at = :now';
  let removes = '';
  if (penalty && 'coolUntil' in penalty) {
    // A 429: the streak grows and the probe (if this was it) ends; the next one goes after the cool-down.
    sets += ', cool_until = :cool';
    values[':cool'] = penalty.coolUntil;
    adds.push('cool_streak :one');
    values[':one'] = 1;
    removes = ' REMOVE probe_until';
    if (penalty.inflightLimit !== undefined) {
      sets += ', inflight_limit = :limit, inflight_accepted = :zero';
      values[':limit'] = penalty.inflightLimit;
      values[':zero'] = 0;
    }
  } else if (penalty) {
    sets += ', #enabled = :false, disabled_reason = :reason';
    values[':false'] = false;
    values[':reason'] = penalty.disable;
  }
  return {
    UpdateExpression: `ADD ${adds.filter(Boolean).join(', ')} SET ${sets}${removes}`,
    ...(penalty && 'disable' in penalty && { ExpressionAttributeNames: { '#enabled': 'enabled' } }),
    ExpressionAttributeValues: values,
  };
}
