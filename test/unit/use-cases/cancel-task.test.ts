/** cancelTask: refund a pending or running task, then stop its execution and upstream job. */
import { beforeEach, describe, expect, it } from 'vitest';
import { ForbiddenError, InvalidRequestError } from '../../../functions/core/api-error.js';
import { UpstreamTransientError } from '../../../functions/core/upstream-errors.js';
import type { Caller } from '../../../functions/core/use-cases/authenticate.js';
import { CANCELLED_MESSAGE, cancelTask } from '../../../functions/core/use-cases/cancel-task.js';
import { TASK_ID, taskRecord } from '../../support/task-records.js';
import { CALLER, FakeProvider, FakeWorkflow, InMemoryTasks, NOW, OTHER_ACCOUNT } from '../fakes.js';
import { rejection } from '../support.js';

describe('cancelTask (DESIGN §3 row 18)', () => {
  let tasks: InMemoryTasks;
  let workflow: FakeWorkflow;
  let provider: FakeProvider;
  let cleanupErrors: [string, unknown][];
  const run = (taskId: string | undefined, caller: Caller = CALLER) =>
    cancelTask(caller, taskId, {
      tasks,
      workflow,
      providers: { ark: provider },
      now: () => NOW,
      onCleanupError: (_task, step, error) => cleanupErrors.push([step, error]),
    });

  beforeEach(() => {
    tasks = new InMemoryTasks(taskRecord({ status: 'running', upstream_job_id: 'job-3' }));
    workflow = new FakeWorkflow();
    provider = new FakeProvider();
    cleanupErrors = [];
  });

  it.each(['pending', 'running'] as const)(
    'a %s task → refunded, execution and upstream job stopped',
    async (status) => {
      tasks = new InMemoryTasks(taskRecord({ status, upstream_job_id: 'job-3' }));
      const view = await run(TASK_ID);
      expect(view).toMatchObject({ task_id: TASK_ID, status: 'refunded' });
      expect(tasks.refunds).toEqual([{ taskId: TASK_ID, to: 'refunded', errorMessage: CANCELLED_MESSAGE }]);
      expect(workflow.stopped).toEqual([{ executionName: TASK_ID, cause: CANCELLED_MESSAGE }]);
      expect(provider.cancelled).toEqual(['job-3']);
    },
  );

  it('stops the execution by its recorded name after a restart', async () => {
    tasks = new InMemoryTasks(taskRecord({ status: 'running', execution_name: `${TASK_ID}-r1` }));
    await run(TASK_ID);
    expect(workflow.stopped).toEqual([{ executionName: `${TASK_ID}-r1`, cause: CANCELLED_MESSAGE }]);
    expect(provider.cancelled).toEqual([]);
  });

  it.each(['transferring', 'success', 'failed', 'refunded'] as const)(
    'a %s task → 400, nothing refunded',
    async (status) => {
      tasks = new InMemoryTasks(taskRecord({ status }));
      const error = await rejection(run(TASK_ID));
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error.message).toContain(`this task is ${status}`);
      expect(tasks.refunds).toEqual([]);
      expect(workflow.stopped).toEqual([]);
    },
  );

  it('a second cancel → 400, refunded once', async () => {
    await run(TASK_ID);
    expect(await rejection(run(TASK_ID))).toBeInstanceOf(InvalidRequestError);
    expect(tasks.refunds).toHaveLength(1);
  });

  it("another account's task → 403; a malformed id → 400", async () => {
    expect(await rejection(run(TASK_ID, { ...CALLER, accountId: OTHER_ACCOUNT }))).toBeInstanceOf(ForbiddenError);
    expect(await rejection(run('nope'))).toBeInstanceOf(InvalidRequestError);
    expect(tasks.refunds).toEqual([]);
  });

  it('failures to stop are reported, not thrown: the refund stands', async () => {
    workflow.stopError = new Error('sfn down');
    provider.cancelError = new UpstreamTransientError('503');
    expect((await run(TASK_ID)).status).toBe('refunded');
    expect(cleanupErrors).toEqual([
      ['stop', workflow.stopError],
      ['upstream', provider.cancelError],
    ]);
  });
});
