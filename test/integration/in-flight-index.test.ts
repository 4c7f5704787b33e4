/**
 * The in-flight index on DynamoDB Local: a task is in it from its submit to its final move, spread over the
 * shards, and the reconciler's query across shards finds the oldest untouched tasks first, at most `limit`.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoDbTaskRepository, inFlightShard } from '../../functions/adapters/dynamodb/task-repository.js';
import { TASKS_IN_FLIGHT_INDEX } from '../../functions/adapters/runtime/resources.js';
import type { StaleTask } from '../../functions/core/ports/task-repository.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { AdminStore } from '../../lib/ship/admin/admin-store.js';
import { hashApiKey } from '../../functions/core/api-key.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { taskRecordFor } from '../support/task-records.js';

const local = useDynamoDbLocal('inflight');
const HOUR_AGO = Date.now() - 3_600_000;
/** An ISO time `minutes` after an hour ago. */
const at = (minutes: number) => new Date(HOUR_AGO + minutes * 60_000).toISOString();

async function setup() {
  const admin = new AdminStore(local.db, local.names.tables);
  const accountId = `acct-${randomUUID().slice(0, 8)}`;
  await admin.createAccount(accountId, '1000');
  const { key } = await admin.createKey({ accountId });
  const repository = new DynamoDbTaskRepository(local.db, local.names.tables);
  const submit = async (fields: Partial<TaskRecord>) => {
    const task = taskRecordFor({ accountId, keyHash: hashApiKey(key) }, fields);
    await repository.createCharged(task, {
      accountId,
      keyHash: task.key_hash,
      keyHasQuota: false,
      costUnits: task.cost_units,
    });
    return task;
  };
  return { repository, submit };
}

async function stored(taskId: string): Promise<Record<string, unknown>> {
  const { Item } = await local.db.send(
    new GetCommand({ TableName: local.names.tables.tasks, Key: { task_id: taskId }, ConsistentRead: true }),
  );
  return Item as Record<string, unknown>;
}

describe('the in-flight index', () => {
  it('spreads tasks over every shard, evenly enough', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 1600; i++) {
      const shard = inFlightShard(randomUUID());
      counts.set(shard, (counts.get(shard) ?? 0) + 1);
    }
    expect([...counts.keys()].sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: TASKS_IN_FLIGHT_INDEX.shards }, (_, i) => String(i)),
    );
    for (const count of counts.values()) expect(count).toBeGreaterThan(50); // 100 each on average
  });

  it('holds a task from submit to its final move; reads never show the shard', async () => {
    const { repository, submit } = await setup();
    const task = await submit({ status: 'pending', updated_at: at(0) });
    expect(await stored(task.task_id)).toMatchObject({ in_flight_shard: inFlightShard(task.task_id) });
    expect(await repository.get(task.task_id)).not.toHaveProperty('in_flight_shard');

    await repository.recordUpstreamJob(task.task_id, 'job-1', at(1));
    await repository.moveTo(task.task_id, 'transferring', {}, at(2));
    expect(await stored(task.task_id)).toHaveProperty('in_flight_shard');
    await repository.moveTo(task.task_id, 'success', { finished_at: at(3) }, at(3));
    expect(await stored(task.task_id)).not.toHaveProperty('in_flight_shard');

    const failed = await submit({ status: 'pending', updated_at: at(0) });
    expect(await repository.refund(failed, 'failed', 'generation failed', at(1))).toBe(true);
    expect(await stored(failed.task_id)).not.toHaveProperty('in_flight_shard');
  });

  it('findStale: the oldest untouched tasks in flight across the shards, at most `limit`, oldest first', async () => {
    const { repository, submit } = await setup();
    // Minutes 10..49: forty tasks, so several shards hold more than one. One after another, as the index is what
    // is tested: forty charges of one account at once collide on its balance and may answer "retry" (429).
    const tasks: TaskRecord[] = [];
    for (let i = 0; i < 40; i++) tasks.push(await submit({ status: 'running', updated_at: at(10 + i) }));
    const finished = await submit({ status: 'pending', updated_at: at(5) });
    await repository.moveTo(finished.task_id, 'refunded', {}, at(6));

    const oldest = await repository.findStale(at(30), 8);
    const ours = (found: StaleTask[]) => found.filter((t) => tasks.some((own) => own.task_id === t.task_id));
    expect(ours(oldest).map((t) => t.updated_at)).toEqual(Array.from({ length: 8 }, (_, i) => at(10 + i)));
    expect(oldest[0]).toMatchObject({ status: 'running', task_id: tasks[0]?.task_id });
    // Only those untouched before the given time; a final task is not there at all.
    const all = ours(await repository.findStale(at(30), 1000));
    expect(all).toHaveLength(20);
    expect(all.some((t) => t.task_id === finished.task_id)).toBe(false);
  });

  it('touch marks a task in flight alive (no longer stale), and refuses a final one', async () => {
    const { repository, submit } = await setup();
    const task = await submit({ status: 'running', updated_at: at(0) });
    expect(await repository.touch(task.task_id, at(50))).toBe(true);
    expect((await repository.get(task.task_id))?.updated_at).toBe(at(50));
    expect((await repository.findStale(at(40), 1000)).some((t) => t.task_id === task.task_id)).toBe(false);

    await repository.moveTo(task.task_id, 'refunded', {}, at(51));
    expect(await repository.touch(task.task_id, at(52))).toBe(false);
    expect(await stored(task.task_id)).not.toHaveProperty('in_flight_shard');
  });

  it('recordExecution keeps the task in the index, with its new touch time', async () => {
    const { repository, submit } = await setup();
    const task = await submit({ status: 'pending', updated_at: at(0) });
    expect(await repository.recordExecution(task.task_id, `${task.task_id}-r1`, at(20))).toBe(true);
    const found = (await repository.findStale(at(21), 1000)).find((t) => t.task_id === task.task_id);
    expect(found).toMatchObject({ execution_name: `${task.task_id}-r1`, restarts: 1, updated_at: at(20) });
  });
});
