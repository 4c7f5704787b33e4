/**
 * Cancel twice (docs/task-lifecycle.md, "Cancel"): a cancel of a task already cancelled answers 0 with the refunded task, as the
 * first did, whether it comes after the first or races it; it refunds nothing more. Other final states: 400.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../functions/core/api-error.js';
import { cancelTask } from '../../../functions/core/use-cases/cancel-task.js';
import { TASK_ID, taskRecord } from '../../support/task-records.js';
import { CALLER, FakeProvider, FakeWorkflow, InMemoryTasks, NOW, waitingRoom } from '../fakes.js';
import { rejection } from '../support.js';

describe('cancel twice', () => {
  let tasks: InMemoryTasks;
  let provider: FakeProvider;
  const run = () =>
    cancelTask(CALLER, TASK_ID, {
      tasks,
      workflow: new FakeWorkflow(),
      providers: { ark: provider },
      ...waitingRoom(tasks),
      now: () => NOW,
      onCleanupError: () => undefined,
    });

  beforeEach(() => {
    tasks = new InMemoryTasks(taskRecord({ status: 'running', upstream_job_id: 'job-3' }));
    provider = new FakeProvider();
  });

  it('one after the other: the same refunded task both times, one refund', async () => {
    const first = await run();
    // The upstream now reports the job cancelled, as Ark does for a second DELETE.
    provider.cancelOutcome = { outcome: 'cancelled' };
    const second = await run();
    expect(first).toMatchObject({ refunded: true, task: { status: 'refunded' } });
    expect(second).toEqual({ refunded: false, task: first.task });
    expect(tasks.refunds).toHaveLength(1);
  });

  it('at once: both answer the refunded task, one of them refunded it', async () => {
    const results = await Promise.all([run(), run(), run()]);
    expect(results.map((result) => result.task.status)).toEqual(['refunded', 'refunded', 'refunded']);
    expect(results.filter((result) => result.refunded)).toHaveLength(1);
    expect(tasks.refunds).toHaveLength(1);
  });

  it('a task that failed (refunded by the service, not cancelled) keeps its 400', async () => {
    tasks = new InMemoryTasks(taskRecord({ status: 'failed', refunded_at: NOW.toISOString() }));
    expect(await rejection(run())).toBeInstanceOf(InvalidRequestError);
  });
});
