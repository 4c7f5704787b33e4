/**
 * cancelTask (docs/task-lifecycle.md, "Cancel"): a task whose upstream job has not started is cancelled upstream first, then
 * refunded once; a started job is refused (400) and not refunded; a second cancel answers the task again.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ForbiddenError, InternalError, InvalidRequestError } from '../../../functions/core/api-error.js';
import type { CancelOutcome } from '../../../functions/core/ports/video-provider.js';
import type { TaskRecord } from '../../../functions/core/task.js';
import { UpstreamTransientError } from '../../../functions/core/upstream-errors.js';
import type { Caller } from '../../../functions/core/use-cases/authenticate.js';
import {
  CANCELLED_MESSAGE,
  cancelTask,
  GENERATION_STARTED_MESSAGE,
} from '../../../functions/core/use-cases/cancel-task.js';
import type { CancelTaskDeps } from '../../../functions/core/use-cases/cancel-task.js';
import { queuePosition, waitForSlot } from '../../../functions/core/use-cases/waiting-room.js';
import { TASK_ID, taskRecord } from '../../support/task-records.js';
import { CALLER, FakeProvider, FakeWorkflow, InMemoryTasks, NOW, OTHER_ACCOUNT, waitingRoom } from '../fakes.js';
import { rejection } from '../support.js';

describe('cancelTask (docs/task-lifecycle.md, "Cancel")', () => {
  let tasks: InMemoryTasks;
  let workflow: FakeWorkflow;
  let provider: FakeProvider;
  let cleanupErrors: [string, unknown][];
  const run = (
    taskId: string | undefined,
    caller: Caller = CALLER,
    room = waitingRoom(tasks),
    more: Partial<CancelTaskDeps> = {},
  ) =>
    cancelTask(caller, taskId, {
      tasks,
      workflow,
      providers: { ark: provider },
      ...room,
      now: () => NOW,
      onCleanupError: (_task, step, error) => cleanupErrors.push([step, error]),
      ...more,
    });
  const queuedJob = () => taskRecord({ status: 'running', upstream_job_id: 'job-3' });

  beforeEach(() => {
    tasks = new InMemoryTasks(queuedJob());
    workflow = new FakeWorkflow();
    provider = new FakeProvider();
    cleanupErrors = [];
  });

  it('a job still queued upstream: cancelled there first, then refunded in full and the execution stopped', async () => {
    const cancelledAtRefund: string[][] = [];
    const refund = tasks.refund.bind(tasks);
    tasks.refund = async (...args) => {
      cancelledAtRefund.push([...provider.cancelled]);
      return refund(...args);
    };
    const result = await run(TASK_ID);
    expect(result).toMatchObject({
      refunded: true,
      task: { task_id: TASK_ID, status: 'refunded', error_message: null },
    });
    expect(cancelledAtRefund).toEqual([['job-3']]);
    expect(tasks.refunds).toEqual([{ taskId: TASK_ID, to: 'refunded', errorMessage: CANCELLED_MESSAGE }]);
    expect(workflow.stopped).toEqual([{ executionName: TASK_ID, cause: CANCELLED_MESSAGE }]);
  });

  it('no upstream job yet (pending, maybe waiting for room upstream): refunded at once, nothing to cancel there', async () => {
    tasks = new InMemoryTasks(taskRecord({ status: 'pending' }));
    expect((await run(TASK_ID)).task.status).toBe('refunded');
    expect(provider.cancelled).toEqual([]);
    expect(tasks.refunds).toHaveLength(1);
    expect(workflow.stopped).toHaveLength(1);
  });

  it.each<[string, CancelOutcome]>([
    ['unknown upstream', { outcome: 'not-found' }],
    ['failed upstream', { outcome: 'refused', state: 'failed' }],
  ])('a job %s generates nothing: refunded', async (_, outcome) => {
    provider.cancelOutcome = outcome;
    expect(await run(TASK_ID)).toMatchObject({ refunded: true, task: { status: 'refunded' } });
  });

  it.each(['running', 'succeeded'] as const)(
    'a job %s upstream has started generating: 400, nothing refunded, the task goes on',
    async (state) => {
      provider.cancelOutcome = { outcome: 'refused', state };
      const error = await rejection(run(TASK_ID));
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error.message).toBe(GENERATION_STARTED_MESSAGE);
      expect(tasks.refunds).toEqual([]);
      expect(workflow.stopped).toEqual([]);
      expect((await tasks.get(TASK_ID))?.status).toBe('running');
    },
  );

  it('a transferring task (its job succeeded upstream): 400 "generation has started", no upstream call', async () => {
    tasks = new InMemoryTasks(taskRecord({ status: 'transferring', upstream_job_id: 'job-3' }));
    const error = await rejection(run(TASK_ID));
    expect([error.constructor, error.message]).toEqual([InvalidRequestError, GENERATION_STARTED_MESSAGE]);
    expect([provider.cancelled, tasks.refunds]).toEqual([[], []]);
  });

  it.each(['success', 'failed'] as const)('a %s task → 400, nothing refunded', async (status) => {
    tasks = new InMemoryTasks(taskRecord({ status, upstream_job_id: 'job-3' }));
    const error = await rejection(run(TASK_ID));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toContain(`this task is ${status}`);
    expect([provider.cancelled, tasks.refunds, workflow.stopped]).toEqual([[], [], []]);
  });

  it('a second cancel answers the refunded task again (code 0), refunding nothing more', async () => {
    expect((await run(TASK_ID)).refunded).toBe(true);
    const again = await run(TASK_ID);
    expect(again).toMatchObject({ refunded: false, task: { task_id: TASK_ID, status: 'refunded' } });
    expect(tasks.refunds).toHaveLength(1);
    expect(provider.cancelled).toEqual(['job-3']);
    expect(workflow.stopped).toHaveLength(1);
  });

  it('an upstream that cannot be asked: 500 "try again", nothing refunded, the task left as it is', async () => {
    provider.cancelError = new UpstreamTransientError('503');
    const error = await rejection(run(TASK_ID));
    expect(error).toBeInstanceOf(InternalError);
    expect(error.message).toMatch(/could not be reached .* nothing was refunded: try again/);
    expect(tasks.refunds).toEqual([]);
    expect(cleanupErrors).toEqual([['upstream', provider.cancelError]]);
  });

  it('an execution that cannot be stopped is reported, not thrown: the refund stands', async () => {
    workflow.stopError = new Error('sfn down');
    expect((await run(TASK_ID)).task.status).toBe('refunded');
    expect(cleanupErrors).toEqual([['stop', workflow.stopError]]);
  });

  it('a store too busy for the clean-up after the refund: the refunded task is answered, each failure reported', async () => {
    tasks = new InMemoryTasks(
      taskRecord({ status: 'running', upstream_job_id: 'job-3', upstream_slot: 'ark#default' }),
    );
    const room = waitingRoom(tasks, [{ capacity: 1, in_use: 1 }]);
    const busy = new Error('TransactionConflict');
    room.capacity.release = async () => {
      throw busy;
    };
    const refund = tasks.refund.bind(tasks);
    tasks.refund = async (...args) => {
      const done = await refund(...args);
      tasks.get = async () => {
        throw busy;
      };
      return done;
    };
    const result = await run(TASK_ID, CALLER, room);
    expect(result).toMatchObject({ refunded: true, task: { task_id: TASK_ID, status: 'refunded' } });
    expect(tasks.refunds).toHaveLength(1);
    expect(workflow.stopped).toHaveLength(1);
    expect(cleanupErrors).toEqual([
      ['read', busy],
      ['slot', busy],
    ]);
  });

  it('a clean-up that outlasts the time to answer: the refunded task is answered, the clean-up left to finish', async () => {
    tasks = new InMemoryTasks(
      taskRecord({ status: 'running', upstream_job_id: 'job-3', upstream_slot: 'ark#default' }),
    );
    const room = waitingRoom(tasks, [{ capacity: 1, in_use: 1 }]);
    let releaseNow = () => {};
    let releaseAsked = () => {};
    const asked = new Promise<void>((resolve) => (releaseAsked = resolve));
    const release = room.capacity.release.bind(room.capacity);
    room.capacity.release = async (...args) => {
      releaseAsked();
      await new Promise<void>((resolve) => (releaseNow = resolve));
      return release(...args);
    };
    let cleanup: Promise<void> | undefined;
    const result = await run(TASK_ID, CALLER, room, {
      // The caller's time is up at once.
      awaitCleanup: async (work) => {
        cleanup = work;
      },
    });
    expect(result).toMatchObject({ refunded: true, task: { task_id: TASK_ID, status: 'refunded' } });
    await asked;
    expect(room.capacity.accountsById.get('ark#default')?.in_use).toBe(1);
    releaseNow();
    await cleanup;
    expect(room.capacity.accountsById.get('ark#default')?.in_use).toBe(0);
    expect(cleanupErrors).toEqual([]);
  });

  it('stops the execution by its recorded name after a restart', async () => {
    tasks = new InMemoryTasks(taskRecord({ status: 'pending', execution_name: `${TASK_ID}-r1` }));
    await run(TASK_ID);
    expect(workflow.stopped).toEqual([{ executionName: `${TASK_ID}-r1`, cause: CANCELLED_MESSAGE }]);
  });

  describe('upstream capacity (docs/upstream-capacity.md)', () => {
    const next = () => taskRecord({ task_id: 'task-next', created_at: '2026-11-21T09:59:30.000Z' });

    it('a task waiting for a slot leaves the waiting room: the tasks behind it move up', async () => {
      tasks = new InMemoryTasks(taskRecord(), next());
      const room = waitingRoom(tasks, [{ capacity: 0 }]);
      const roomDeps = { ...room, tasks, now: () => NOW };
      await waitForSlot(TASK_ID, 'wait-1', roomDeps);
      await waitForSlot('task-next', 'wait-next', roomDeps);
      expect((await run(TASK_ID, CALLER, room)).refunded).toBe(true);
      expect([...room.capacity.queue.values()].map((entry) => entry.task_id)).toEqual(['task-next']);
      expect(await queuePosition((await tasks.get('task-next')) as TaskRecord, room)).toBe(1);
    });

    it('a task holding a slot (its job still queued) gives it back: the next waiting task takes it at once', async () => {
      tasks = new InMemoryTasks(
        taskRecord({ status: 'running', upstream_job_id: 'job-3', upstream_slot: 'ark#default' }),
        next(),
      );
      const room = waitingRoom(tasks, [{ capacity: 1, in_use: 1 }]);
      await waitForSlot('task-next', 'wait-next', { ...room, tasks, now: () => NOW });
      expect(room.waker.answers).toEqual([]);
      expect((await run(TASK_ID, CALLER, room)).refunded).toBe(true);
      expect((await tasks.get(TASK_ID))?.upstream_slot).toBeUndefined();
      expect((await tasks.get('task-next'))?.upstream_slot).toBe('ark#default');
      expect(room.waker.answers.map((answer) => answer.token)).toEqual(['wait-next']);
      expect(room.capacity.accountsById.get('ark#default')?.in_use).toBe(1);
    });

    it('a cancel refused (generation started) keeps the slot', async () => {
      tasks = new InMemoryTasks(
        taskRecord({ status: 'running', upstream_job_id: 'job-3', upstream_slot: 'ark#default' }),
      );
      const room = waitingRoom(tasks, [{ capacity: 1, in_use: 1 }]);
      provider.cancelOutcome = { outcome: 'refused', state: 'running' };
      await rejection(run(TASK_ID, CALLER, room));
      expect((await tasks.get(TASK_ID))?.upstream_slot).toBe('ark#default');
      expect(room.capacity.accountsById.get('ark#default')?.in_use).toBe(1);
    });
  });

  describe('races', () => {
    /** Runs `meanwhile` (given the unwrapped refund) just before the cancel's refund transaction. */
    const beforeRefund = (meanwhile: (refund: InMemoryTasks['refund']) => Promise<unknown>) => {
      const refund = tasks.refund.bind(tasks);
      tasks.refund = async (...args) => {
        await meanwhile(refund);
        return refund(...args);
      };
    };

    it('StartUpstream records a job between our read and our refund: refunded once, and that job cancelled', async () => {
      tasks = new InMemoryTasks(taskRecord({ status: 'pending' }));
      beforeRefund(() => tasks.recordUpstreamJob(TASK_ID, 'job-9', NOW.toISOString()));
      expect((await run(TASK_ID)).task).toMatchObject({ status: 'refunded' });
      expect(tasks.refunds).toHaveLength(1);
      expect(provider.cancelled).toEqual(['job-9']);
    });

    it('…and that job already generating: 400 "generation has started", nothing refunded (Ark bills it)', async () => {
      tasks = new InMemoryTasks(taskRecord({ status: 'pending' }));
      provider.cancelOutcome = { outcome: 'refused', state: 'running' };
      beforeRefund(() => tasks.recordUpstreamJob(TASK_ID, 'job-9', NOW.toISOString()));
      expect((await rejection(run(TASK_ID))).message).toBe(GENERATION_STARTED_MESSAGE);
      expect(tasks.refunds).toEqual([]);
      expect(provider.cancelled).toEqual(['job-9']);
    });

    it('the task failed (its deadline) between the upstream cancel and our refund: 400, refunded once', async () => {
      beforeRefund(async (refund) =>
        refund((await tasks.get(TASK_ID)) as TaskRecord, 'failed', 'generation timed out', NOW.toISOString()),
      );
      const error = await rejection(run(TASK_ID));
      expect(error.message).toContain('this task is failed');
      expect(tasks.refunds.map((refund) => refund.to)).toEqual(['failed']);
    });

    it('two cancels at once: both answer the refunded task, one refund', async () => {
      beforeRefund(async (refund) =>
        refund((await tasks.get(TASK_ID)) as TaskRecord, 'refunded', CANCELLED_MESSAGE, NOW.toISOString()),
      );
      expect(await run(TASK_ID)).toMatchObject({ refunded: false, task: { status: 'refunded' } });
      expect(tasks.refunds).toHaveLength(1);
    });
  });

  it("another account's task → 403; a malformed id → 400", async () => {
    expect(await rejection(run(TASK_ID, { ...CALLER, accountId: OTHER_ACCOUNT }))).toBeInstanceOf(ForbiddenError);
    expect(await rejection(run('nope'))).toBeInstanceOf(InvalidRequestError);
    expect(tasks.refunds).toEqual([]);
  });
});
