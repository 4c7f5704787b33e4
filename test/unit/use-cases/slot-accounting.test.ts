/**
 * Slot accounting across every way a task ends (docs/upstream-capacity.md): a task takes a queued slot and a place
 * in flight, gives the slot back when its job runs, and everything back when the job ends or is refused, once,
 * however it ends; keys of one master account share its slots. Checked after each step: the account's counts
 * equal what its tasks hold.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { TaskRecord } from '../../../functions/core/task.js';
import { UpstreamAccountError, UpstreamBusyError } from '../../../functions/core/upstream-errors.js';
import { cancelTask } from '../../../functions/core/use-cases/cancel-task.js';
import type { LifecycleDeps } from '../../../functions/core/use-cases/start-upstream-job.js';
import { failAndRefund } from '../../../functions/core/use-cases/fail-and-refund.js';
import { startUpstreamJob } from '../../../functions/core/use-cases/start-upstream-job.js';
import { repairSlots } from '../../../functions/core/use-cases/repair-slots.js';
import { checkUpstream } from '../../../functions/core/use-cases/upstream-completion.js';
import { releaseSlot, waitForSlot } from '../../../functions/core/use-cases/waiting-room.js';
import { TASK_ID, taskRecord } from '../../support/task-records.js';
import { CALLER, FakeProvider, FakeWorkflow, InMemoryTasks, NOW, waitingRoom } from '../fakes.js';
import type { InMemoryCapacity } from '../fakes.js';

const CHECK_SECONDS = { callback: 900, polling: 20 };

describe('slot accounting across every way a task ends', () => {
  let tasks: InMemoryTasks;
  let capacity: InMemoryCapacity;
  let provider: FakeProvider;
  let now: Date;
  let deps: LifecycleDeps;

  beforeEach(() => {
    tasks = new InMemoryTasks(taskRecord());
    const room = waitingRoom(tasks, [{ name: 'main', keys: ['k1', 'k2'], capacity: 2 }]);
    capacity = room.capacity;
    provider = new FakeProvider();
    now = NOW;
    deps = {
      tasks,
      providers: { ark: provider },
      ...room,
      now: () => now,
      jitter: () => 0,
      callbackUrl: () => undefined,
      checkSeconds: CHECK_SECONDS,
    };
  });

  const task = async () => (await tasks.get(TASK_ID)) as TaskRecord;
  /** The account's counts equal what the tasks hold: queued slots, and places in flight. */
  const expectCounts = (queued: number, inflight: number) => {
    const held = [...tasks.tasks.values()].filter((one) => one.upstream_slot === 'ark#main');
    const account = capacity.accountsById.get('ark#main');
    expect({ in_use: account?.in_use, inflight: account?.inflight ?? 0 }).toEqual({ in_use: queued, inflight });
    expect(held.filter((one) => one.upstream_slot_phase === 'queued')).toHaveLength(queued);
    expect(held).toHaveLength(inflight);
  };
  const started = async () => {
    await waitForSlot(TASK_ID, 'slot-1', deps);
    expectCounts(1, 1);
    expect(['k1', 'k2']).toContain((await task()).upstream_account);
    await startUpstreamJob(TASK_ID, deps);
    expect(await task()).toMatchObject({ status: 'pending', upstream_job_id: 'job-1' });
    provider.status = { state: 'queued' };
    expect(await checkUpstream(await task(), deps)).toBeUndefined();
    expectCounts(1, 1);
  };
  const running = async () => {
    provider.status = { state: 'running' };
    await checkUpstream(await task(), deps);
    expect((await task()).status).toBe('running');
    expectCounts(0, 1);
  };
  /** Whatever ends the task, a second release finds nothing to give back. */
  const expectAllBack = async () => {
    expectCounts(0, 0);
    expect(await releaseSlot({ ...(await task()), upstream_slot: 'ark#main' }, deps)).toBe(false);
    expectCounts(0, 0);
  };

  it('succeeds after running', async () => {
    await started();
    await running();
    provider.status = { state: 'succeeded', videoUrl: 'https://upstream.example/v.mp4' };
    expect(await checkUpstream(await task(), deps)).toMatchObject({ state: 'succeeded' });
    expect((await task()).status).toBe('transferring');
    await expectAllBack();
  });

  it('succeeds without ever being seen running', async () => {
    await started();
    provider.status = { state: 'succeeded', videoUrl: 'https://upstream.example/v.mp4' };
    await checkUpstream(await task(), deps);
    await expectAllBack();
  });

  it('fails upstream while queued, and while running (refunded)', async () => {
    await started();
    provider.status = { state: 'failed', message: 'boom' };
    await checkUpstream(await task(), deps);
    expect((await task()).status).toBe('failed');
    await expectAllBack();
    tasks = new InMemoryTasks(taskRecord());
    const room = waitingRoom(tasks, [{ name: 'main', keys: ['k1', 'k2'], capacity: 2 }]);
    provider = new FakeProvider();
    deps = { ...deps, tasks, ...room, providers: { ark: provider } };
    capacity = room.capacity;
    await started();
    await running();
    provider.status = { state: 'failed', message: 'boom' };
    await checkUpstream(await task(), deps);
    await expectAllBack();
  });

  it('cancelled by the customer while its job is queued (refunded)', async () => {
    await started();
    await cancelTask(CALLER, TASK_ID, { ...deps, workflow: new FakeWorkflow(), onCleanupError: () => undefined });
    expect((await task()).status).toBe('refunded');
    await expectAllBack();
  });

  it('times out while its job is queued, and after it ran (FailAndRefund)', async () => {
    await started();
    await failAndRefund(TASK_ID, { Error: 'GenerationTimedOutError', Cause: 'late' }, deps);
    expect((await task()).status).toBe('failed');
    await expectAllBack();
  });

  it('a step fails after the job ran (FailAndRefund of a running task)', async () => {
    await started();
    await running();
    await failAndRefund(TASK_ID, { Error: 'VideoTransferError', Cause: 'not a video' }, deps);
    await expectAllBack();
  });

  it('refused with 429 or 401: everything back at once, the task waits again; never refunded', async () => {
    await waitForSlot(TASK_ID, 'slot-1', deps);
    provider.createError = new UpstreamBusyError('QuotaExceeded');
    await expect(startUpstreamJob(TASK_ID, deps)).rejects.toThrow(/waiting room/);
    expectCounts(0, 0);
    now = new Date(NOW.getTime() + 1);
    await waitForSlot(TASK_ID, 'slot-2', deps);
    provider.createError = new UpstreamAccountError('AuthenticationError');
    await expect(startUpstreamJob(TASK_ID, deps)).rejects.toThrow(/waiting room/);
    expectCounts(0, 0);
    expect(tasks.refunds).toEqual([]);
  });

  it('ends while it still waits in the room: nothing was held', async () => {
    capacity.accountsById.get('ark#main')!.enabled = false;
    await waitForSlot(TASK_ID, 'slot-1', deps);
    expectCounts(0, 0);
    await failAndRefund(TASK_ID, { Error: 'GenerationTimedOutError', Cause: 'no capacity' }, deps);
    expect(capacity.queue.size).toBe(0);
    await expectAllBack();
  });

  it('two keys of one master account share its 2 slots: a third task waits until a job runs', async () => {
    const others = ['b', 'c'].map((suffix, i) =>
      taskRecord({ task_id: `task-${suffix}`, created_at: `2026-11-21T09:59:0${i + 1}.000Z` }),
    );
    for (const other of others) tasks.tasks.set(other.task_id, other);
    await waitForSlot(TASK_ID, 'slot-1', deps);
    await waitForSlot('task-b', 'slot-b', deps);
    await waitForSlot('task-c', 'slot-c', deps);
    expectCounts(2, 2);
    expect((await tasks.get('task-c'))?.upstream_slot).toBeUndefined();
    await startUpstreamJob(TASK_ID, deps);
    provider.status = { state: 'running' };
    await checkUpstream(await task(), deps);
    // The running job's slot went to the third task.
    expect((await tasks.get('task-c'))?.upstream_slot).toBe('ark#main');
    expectCounts(2, 3);
  });

  it('a crash between a move and its release: the reconciler gives back what the task no longer needs, once', async () => {
    await started();
    // Seen running, moved, but the function died before the queued slot went back.
    await tasks.moveTo(TASK_ID, 'running', {}, NOW.toISOString());
    now = new Date(NOW.getTime() + 60_000);
    expect(await repairSlots(['ark'], deps, 1000)).toMatchObject({ released: 1 });
    expectCounts(0, 1);
    expect(await repairSlots(['ark'], deps, 1000)).toMatchObject({ released: 0 });
    // Ended (refunded elsewhere) without giving back its place in flight.
    await tasks.refund(await task(), 'failed', 'x', NOW.toISOString());
    expect(await repairSlots(['ark'], deps, 1000)).toMatchObject({ released: 1 });
    await expectAllBack();
  });
});
