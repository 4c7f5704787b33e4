/**
 * A failed task is refunded exactly once, however often (and however concurrently) the refund step runs:
 * the refund is one transaction conditioned on the task not being final yet. Its upstream job is cancelled
 * once too, by the run that refunded.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../functions/core/api-key.js';
import type { VideoProvider } from '../../functions/core/ports/video-provider.js';
import { failAndRefund } from '../../functions/core/use-cases/fail-and-refund.js';
import { DynamoDbTaskRepository } from '../../functions/adapters/dynamodb/task-repository.js';
import { DynamoDbUpstreamCapacity } from '../../functions/adapters/dynamodb/upstream-capacity.js';
import { RecordingWaker } from '../unit/fakes.js';
import { AdminStore } from '../../lib/ship/admin/admin-store.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { storedBalance } from '../support/stored-money.js';
import { taskRecordFor } from '../support/task-records.js';

const local = useDynamoDbLocal('refund');

/** Records the upstream cancels; the tasks here have no job unless a test records one. */
class CancelRecorder implements Pick<VideoProvider, 'cancelJob'> {
  readonly cancelled: string[] = [];
  async cancelJob(jobId: string) {
    this.cancelled.push(jobId);
    return { outcome: 'cancelled' } as const;
  }
}
const refundDeps = (repository: DynamoDbTaskRepository, upstream = new CancelRecorder()) => ({
  tasks: repository,
  providers: { ark: upstream as unknown as VideoProvider },
  now: () => new Date(),
  capacity: new DynamoDbUpstreamCapacity(local.db, local.names.tables),
  waker: new RecordingWaker(),
  newToken: () => randomUUID(),
  pause: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
});

async function chargedTask(quotaYuan?: string) {
  const admin = new AdminStore(local.db, local.names.tables);
  const accountId = `acct-${randomUUID().slice(0, 8)}`;
  await admin.createAccount(accountId, '10');
  const { key } = await admin.createKey({ accountId, ...(quotaYuan ? { quotaYuan } : {}) });
  const repository = new DynamoDbTaskRepository(local.db, local.names.tables);
  const task = taskRecordFor(
    { accountId, keyHash: hashApiKey(key) },
    { status: 'running', cost_units: 42_000, key_quota_charged: quotaYuan !== undefined },
  );
  await repository.createCharged(task, {
    accountId,
    keyHash: task.key_hash,
    keyHasQuota: task.key_quota_charged,
    costUnits: task.cost_units,
  });
  return { accountId, keyHash: task.key_hash, task, repository };
}

async function read(table: string, key: Record<string, string>) {
  const { Item } = await local.db.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
  return Item as Record<string, unknown>;
}

describe('fail and refund', () => {
  it('refunds once when the step runs twice in a row', async () => {
    const { accountId, task, repository } = await chargedTask();
    expect(await storedBalance(local.db, local.names.tables.accounts, accountId)).toBe(58_000);
    const deps = refundDeps(repository);
    const error = { Error: 'UpstreamJobFailedError', Cause: 'content rejected' };
    expect(await failAndRefund(task.task_id, error, deps)).toEqual({ status: 'failed', refunded: true });
    expect(await failAndRefund(task.task_id, error, deps)).toMatchObject({ refunded: false });
    expect(await storedBalance(local.db, local.names.tables.accounts, accountId)).toBe(100_000);
    expect(await read(local.names.tables.tasks, { task_id: task.task_id })).toMatchObject({
      status: 'failed',
      error_message: 'generation failed: content rejected',
    });
  });

  it('refunds once when 20 copies of the step race, and gives the key its spend and quota back', async () => {
    const { accountId, keyHash, task, repository } = await chargedTask('20');
    expect(await read(local.names.tables.apiKeys, { key_hash: keyHash })).toMatchObject({
      spent_units: 42_000,
      quota_remaining_units: 158_000,
    });
    await repository.recordUpstreamJob(task.task_id, 'job-20', new Date().toISOString());
    const upstream = new CancelRecorder();
    const deps = refundDeps(repository, upstream);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => failAndRefund(task.task_id, { Error: 'GenerationTimedOutError' }, deps)),
    );
    expect(results.filter((result) => result.refunded)).toHaveLength(1);
    expect(upstream.cancelled).toEqual(['job-20']);
    expect(await storedBalance(local.db, local.names.tables.accounts, accountId)).toBe(100_000);
    expect(await read(local.names.tables.apiKeys, { key_hash: keyHash })).toMatchObject({
      spent_units: 0,
      quota_remaining_units: 200_000,
    });
  });

  it('never refunds a task that already succeeded', async () => {
    const { accountId, task, repository } = await chargedTask();
    await repository.moveTo(task.task_id, 'transferring', {}, new Date().toISOString());
    await repository.moveTo(
      task.task_id,
      'success',
      { finished_at: new Date().toISOString() },
      new Date().toISOString(),
    );
    const result = await failAndRefund(task.task_id, { Error: 'States.Timeout' }, refundDeps(repository));
    expect(result.refunded).toBe(false);
    expect(await storedBalance(local.db, local.names.tables.accounts, accountId)).toBe(58_000);
    // Even the raw repository call, bypassing the use case's check, is refused by the transaction's condition.
    const again = await repository.refund({ ...task, status: 'running' }, 'failed', 'x', new Date().toISOString());
    expect(again).toBe(false);
    expect(await storedBalance(local.db, local.names.tables.accounts, accountId)).toBe(58_000);
  });
});
