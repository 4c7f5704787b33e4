/**
 * Upstream slots in DynamoDB Local (docs/upstream-capacity.md): many tasks entering the waiting room at once never
 * take more slots than the accounts have; the slots go in submit order; a slot is given back once, however
 * often its release runs; and `in_use` always equals the tasks that carry the account in `upstream_slot`.
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoDbUpstreamCapacity } from '../../functions/adapters/dynamodb/upstream-capacity.js';
import { TASKS_SLOT_HOLDERS_INDEX } from '../../functions/adapters/runtime/resources.js';
import { DynamoDbTaskRepository } from '../../functions/adapters/dynamodb/task-repository.js';
import {
  dispatch,
  jobAccepted,
  releaseQueuedSlot,
  releaseSlot,
  waitForSlot,
} from '../../functions/core/use-cases/waiting-room.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { AdminStore } from '../../lib/ship/admin/admin-store.js';
import { PROVIDERS } from '../../functions/providers/registry.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { taskRecordFor } from '../support/task-records.js';
import { RecordingWaker } from '../unit/fakes.js';

const local = useDynamoDbLocal('capacity');

function room() {
  const tasks = new DynamoDbTaskRepository(local.db, local.names.tables);
  return {
    capacity: new DynamoDbUpstreamCapacity(local.db, local.names.tables),
    tasks,
    waker: new RecordingWaker(),
    now: () => new Date(),
    newToken: () => randomUUID(),
    pause: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  };
}

/** `count` pending tasks of a fresh provider name, created a millisecond apart (their submit order). */
async function pendingTasks(provider: string, count: number): Promise<TaskRecord[]> {
  const owner = { accountId: `acct-${randomUUID().slice(0, 8)}`, keyHash: 'h' };
  const start = Date.now();
  const tasks: TaskRecord[] = [];
  for (let i = 0; i < count; i += 1) {
    const task = taskRecordFor(owner, {
      upstream_provider: provider,
      created_at: new Date(start + i).toISOString(),
      deadline_at: new Date(start + 3_600_000).toISOString(),
    });
    await local.db.send(new PutCommand({ TableName: local.names.tables.tasks, Item: task }));
    tasks.push(task);
  }
  return tasks;
}

async function holders(accountId: string): Promise<string[]> {
  const { Items = [] } = await local.db.send(
    new QueryCommand({
      TableName: local.names.tables.tasks,
      IndexName: TASKS_SLOT_HOLDERS_INDEX.name,
      KeyConditionExpression: 'upstream_slot = :slot',
      ExpressionAttributeValues: { ':slot': accountId },
    }),
  );
  return Items.map((item) => String(item['task_id']));
}

describe('upstream slots in DynamoDB', () => {
  it('30 tasks entering at once on 2 accounts of 3 slots: exactly 6 hold one, the 6 oldest, each woken once', async () => {
    const provider = `p${randomUUID().slice(0, 6)}`;
    const admin = new AdminStore(local.db, local.names.tables);
    await admin.setUpstreamAccount(provider, 'a', { capacity: 3, enabled: false });
    await admin.setUpstreamAccount(provider, 'b', { capacity: 3, enabled: false });
    const tasks = await pendingTasks(provider, 30);
    const deps = room();
    // All 30 enter at once while no slot is free (a task that enters while one is free takes it, whoever is
    // older but not yet in the room); then the slots free, and 30 dispatchers (30 releases) race for them.
    await Promise.all(tasks.map((task) => waitForSlot(task.task_id, `token-${task.task_id}`, deps)));
    expect(deps.waker.answers).toEqual([]);
    await admin.setUpstreamAccount(provider, 'a', { enabled: true });
    await admin.setUpstreamAccount(provider, 'b', { enabled: true });
    await Promise.all(tasks.map(() => dispatch(provider, deps, 1)));

    const { accounts } = await admin.upstreamAccounts();
    const mine = accounts.filter((account) => account.provider === provider);
    expect(mine.map((account) => account.in_use)).toEqual([3, 3]);
    const held = [...(await holders(`${provider}#a`)), ...(await holders(`${provider}#b`))];
    expect(held.sort()).toEqual(
      tasks
        .slice(0, 6)
        .map((task) => task.task_id)
        .sort(),
    );
    expect(deps.waker.answers.map((answer) => answer.token).sort()).toEqual(held.map((id) => `token-${id}`).sort());

    // Each release gives its slot to the next oldest, in submit order; a second release of the same slot is a no-op.
    const first = await deps.tasks.get(tasks[0]!.task_id);
    expect(await releaseSlot(first!, deps)).toBe(true);
    expect(await releaseSlot(first!, deps)).toBe(false);
    expect(deps.waker.answers.at(-1)?.token).toBe(`token-${tasks[6]!.task_id}`);
    expect((await admin.upstreamAccounts()).waiting[provider]).toBe(23);
    const total = (await admin.upstreamAccounts()).accounts
      .filter((account) => account.provider === provider)
      .reduce((sum, account) => sum + account.in_use, 0);
    expect(total).toBe(6);
  });

  it('a disabled account and a cooling one get nothing; enabling it again lets the next dispatch serve', async () => {
    const provider = `p${randomUUID().slice(0, 6)}`;
    const admin = new AdminStore(local.db, local.names.tables);
    await admin.setUpstreamAccount(provider, 'off', { capacity: 2, enabled: false });
    const tasks = await pendingTasks(provider, 2);
    const deps = room();
    for (const task of tasks) await waitForSlot(task.task_id, `t-${task.task_id}`, deps);
    expect(deps.waker.answers).toEqual([]);
    await admin.setUpstreamAccount(provider, 'off', { enabled: true });
    expect(await dispatch(provider, deps)).toBe(2);
    expect(deps.waker.answers).toHaveLength(2);
  });

  it('a master account with two keys: its slots are shared; a slot frees when the job runs, in flight until it ends', async () => {
    const provider = `p${randomUUID().slice(0, 6)}`;
    const admin = new AdminStore(local.db, local.names.tables);
    await admin.setUpstreamAccount(provider, 'main', { capacity: 2, keys: ['k1', 'k2'] });
    const tasks = await pendingTasks(provider, 4);
    const deps = room();
    for (const task of tasks) await waitForSlot(task.task_id, `t-${task.task_id}`, deps);
    const account = async () =>
      (await admin.upstreamAccounts()).accounts.find((one) => one.provider === provider && one.name === 'main');
    expect(await account()).toMatchObject({ in_use: 2, inflight: 2 });
    const [first, second, third] = await Promise.all(tasks.slice(0, 3).map((task) => deps.tasks.get(task.task_id)));
    // Both hold the master account's slot, each with one of its keys.
    for (const task of [first, second]) {
      expect(task).toMatchObject({ upstream_slot: `${provider}#main`, upstream_slot_phase: 'queued' });
      expect(['k1', 'k2']).toContain(task?.upstream_account);
    }
    expect(third?.upstream_slot).toBeUndefined();
    // The first job runs: its queued slot goes to the third task at once; it stays in flight.
    expect(await releaseQueuedSlot(first!, deps)).toBe(true);
    expect(await releaseQueuedSlot(first!, deps)).toBe(false);
    expect(await account()).toMatchObject({ in_use: 2, inflight: 3 });
    expect((await deps.tasks.get(third!.task_id))?.upstream_slot).toBe(`${provider}#main`);
    // It ends: out of flight, no queued slot given back twice. A queued one ends: both counts drop.
    expect(await releaseSlot(first!, deps)).toBe(true);
    expect(await releaseSlot(first!, deps)).toBe(false);
    expect(await account()).toMatchObject({ in_use: 2, inflight: 2 });
    expect(await releaseSlot(second!, deps)).toBe(true);
    expect(await account()).toMatchObject({ in_use: 2, inflight: 2 }); // the fourth took it
    expect(await holders(`${provider}#main`)).toHaveLength(2);
  });

  it('a cooling account lets one probe through after its cool-down; accepted, the room goes on', async () => {
    const provider = `p${randomUUID().slice(0, 6)}`;
    const admin = new AdminStore(local.db, local.names.tables);
    await admin.setUpstreamAccount(provider, 'a', { capacity: 5, inflightCeiling: 4 });
    const tasks = await pendingTasks(provider, 4);
    const deps = room();
    await waitForSlot(tasks[0]!.task_id, 't-0', deps);
    const refused = await deps.tasks.get(tasks[0]!.task_id);
    // The upstream refused for concurrency: the account cools, its limit is cut to 1.
    const past = new Date(Date.now() - 1000).toISOString();
    expect(await releaseSlot(refused!, deps, { coolUntil: past, inflightLimit: 1 })).toBe(true);
    const account = async () => (await admin.upstreamAccounts()).accounts.find((one) => one.provider === provider);
    expect(await account()).toMatchObject({ cool_streak: 1, inflight_limit: 1, in_use: 0, inflight: 0 });
    // Every task enters (the first again): only one takes the probe.
    for (const task of tasks) await waitForSlot(task.task_id, `again-${task.task_id}`, deps);
    expect(await dispatch(provider, deps)).toBe(0);
    expect(await account()).toMatchObject({ in_use: 1, inflight: 1 });
    const probe = await deps.tasks.get(tasks[0]!.task_id);
    expect(probe?.upstream_slot).toBe(`${provider}#a`);
    expect((await account())?.probe_until).toBeDefined();
    // The probe was accepted: the cooling ends, and a limit's worth of accepted jobs (1) raises it by one: the
    // room goes on at once with a second job in flight.
    await jobAccepted(probe!, deps);
    expect(await account()).toMatchObject({ cool_streak: 0, inflight_limit: 2, inflight_accepted: 0 });
    expect((await account())?.probe_until).toBeUndefined();
    expect(await account()).toMatchObject({ in_use: 2, inflight: 2 });
    // The next accepted job counts toward the next raise (2 needed).
    await jobAccepted((await deps.tasks.get(tasks[1]!.task_id))!, deps);
    expect(await account()).toMatchObject({ inflight_limit: 2, inflight_accepted: 1 });
    // A job runs and ends: the next one may go (2 in flight at most).
    await releaseQueuedSlot(probe!, deps);
    await releaseSlot(probe!, deps);
    expect(await account()).toMatchObject({ in_use: 2, inflight: 2 });
  });

  it("a new account starts with its provider's defaults; a ceiling removed stays removed", async () => {
    const admin = new AdminStore(local.db, local.names.tables);
    const name = `n${randomUUID().slice(0, 6)}`;
    const ark = await admin.setUpstreamAccount('ark', name, { enabled: false });
    expect(ark).toMatchObject({ capacity: PROVIDERS.ark.accountDefaults.capacity, enabled: false, in_use: 0 });
    expect(ark.inflight_ceiling).toBeUndefined();
    const defaults = PROVIDERS['model-studio'].accountDefaults;
    const studio = await admin.setUpstreamAccount('model-studio', name, { enabled: false });
    expect(studio).toMatchObject({
      capacity: defaults.capacity,
      inflight_ceiling: defaults.inflightCeiling,
      inflight_limit: defaults.inflightCeiling,
    });
    await admin.setUpstreamAccount('model-studio', name, { inflightCeiling: null });
    const later = await admin.setUpstreamAccount('model-studio', name, { capacity: 4 });
    expect(later.capacity).toBe(4);
    expect(later.inflight_ceiling).toBeUndefined();
  });
});
