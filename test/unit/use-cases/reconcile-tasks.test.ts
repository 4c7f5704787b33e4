/**
 * The reconciler restarts exactly the in-flight tasks whose execution is not running, looks only at tasks
 * untouched for a while and at most `limit` a run, and lets a throttled call skip its task, not end the run.
 */
import { describe, expect, it } from 'vitest';
import { reconcileTasks } from '../../../functions/core/use-cases/reconcile-tasks.js';
import { taskRecord } from '../../support/task-records.js';
import { FakeWorkflow, InMemoryTasks } from '../fakes.js';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const OLD = '2026-11-21T11:00:00.000Z';
const id = (n: number) => `a0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const throttled = () => Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });

describe('reconcileTasks', () => {
  it('starts a never-started task under its own name and a dead one under a new name; leaves the rest', async () => {
    const tasks = new InMemoryTasks(
      taskRecord({ task_id: id(1), status: 'pending', updated_at: OLD }),
      taskRecord({ task_id: id(2), status: 'running', updated_at: OLD }),
      taskRecord({ task_id: id(3), status: 'transferring', updated_at: OLD }),
      taskRecord({ task_id: id(4), status: 'success', updated_at: OLD }),
      taskRecord({ task_id: id(5), status: 'running', updated_at: NOW.toISOString() }),
    );
    const workflow = new FakeWorkflow();
    workflow.states.set(id(2), 'ended');
    workflow.states.set(id(3), 'running');
    workflow.states.set(id(5), 'running');

    const report = await reconcileTasks({ tasks, workflow, now: () => NOW }, 60_000);

    expect(report).toEqual({ checked: 3, restarted: 2, throttled: 0, failed: 0 });
    expect(workflow.startedNames.sort()).toEqual([id(1), `${id(2)}-r1`]);
    expect((await tasks.get(id(2)))?.execution_name).toBe(`${id(2)}-r1`);
    // The one found running is marked alive, so the next run does not look at it again at once.
    expect(tasks.touched).toEqual([id(3)]);
    expect((await tasks.get(id(3)))?.updated_at).toBe(NOW.toISOString());
    // An hour later: everything runs, nothing is started twice.
    expect(await reconcileTasks({ tasks, workflow, now: () => new Date(NOW.getTime() + 3_600_000) }, 60_000)).toEqual({
      checked: 4,
      restarted: 0,
      throttled: 0,
      failed: 0,
    });
  });

  it('numbers successive restarts', async () => {
    const tasks = new InMemoryTasks(
      taskRecord({ task_id: id(1), status: 'running', updated_at: OLD, execution_name: `${id(1)}-r2`, restarts: 2 }),
    );
    const workflow = new FakeWorkflow();
    workflow.states.set(`${id(1)}-r2`, 'ended');
    await reconcileTasks({ tasks, workflow, now: () => NOW }, 0);
    expect(workflow.startedNames).toEqual([`${id(1)}-r3`]);
  });

  it('describes at most `limit` executions a run, the oldest first; the ones found running wait their turn', async () => {
    const tasks = new InMemoryTasks(
      ...Array.from({ length: 5 }, (_, i) =>
        taskRecord({ task_id: id(i + 1), status: 'running', updated_at: `2026-11-21T11:0${i}:00.000Z` }),
      ),
    );
    const workflow = new FakeWorkflow();
    for (let i = 1; i <= 5; i++) workflow.states.set(id(i), 'running');
    const described: string[] = [];
    const status = workflow.status.bind(workflow);
    workflow.status = async (name) => {
      described.push(name);
      return status(name);
    };

    expect((await reconcileTasks({ tasks, workflow, now: () => NOW }, 60_000, 2)).checked).toBe(2);
    expect(described).toEqual([id(1), id(2)]);
    await reconcileTasks({ tasks, workflow, now: () => new Date(NOW.getTime() + 1) }, 60_000, 2);
    expect(described).toEqual([id(1), id(2), id(3), id(4)]);
  });

  it('a throttled call skips its task this run, the run goes on and counts it; the next run takes it', async () => {
    const tasks = new InMemoryTasks(
      taskRecord({ task_id: id(1), status: 'pending', updated_at: OLD }),
      taskRecord({ task_id: id(2), status: 'pending', updated_at: OLD }),
      taskRecord({ task_id: id(3), status: 'pending', updated_at: OLD }),
    );
    const workflow = new FakeWorkflow();
    const status = workflow.status.bind(workflow);
    let throttle = true;
    workflow.status = async (name) => {
      if (throttle && name === id(2)) throw throttled();
      return status(name);
    };

    expect(await reconcileTasks({ tasks, workflow, now: () => NOW }, 60_000)).toEqual({
      checked: 2,
      restarted: 2,
      throttled: 1,
      failed: 0,
    });
    expect(workflow.startedNames.sort()).toEqual([id(1), id(3)]);
    throttle = false;
    expect((await reconcileTasks({ tasks, workflow, now: () => NOW }, 60_000)).restarted).toBe(1);
    expect(workflow.startedNames.sort()).toEqual([id(1), id(2), id(3)]);
  });

  it('a start the SDK reports throttled by its retry metadata counts as throttled too', async () => {
    const tasks = new InMemoryTasks(taskRecord({ task_id: id(1), status: 'pending', updated_at: OLD }));
    const workflow = new FakeWorkflow();
    workflow.start = async () => {
      throw Object.assign(new Error('slow down'), { name: 'SomethingElse', $retryable: { throttling: true } });
    };
    expect(await reconcileTasks({ tasks, workflow, now: () => NOW }, 60_000)).toMatchObject({ throttled: 1 });
  });

  it('any other error is reported and counted, and the other tasks are still looked at', async () => {
    const tasks = new InMemoryTasks(
      taskRecord({ task_id: id(1), status: 'pending', updated_at: OLD }),
      taskRecord({ task_id: id(2), status: 'pending', updated_at: OLD }),
    );
    const workflow = new FakeWorkflow();
    const status = workflow.status.bind(workflow);
    const denied = Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' });
    workflow.status = async (name) => {
      if (name === id(1)) throw denied;
      return status(name);
    };
    const errors: [string, unknown][] = [];
    const report = await reconcileTasks(
      { tasks, workflow, now: () => NOW, onError: (taskId, error) => errors.push([taskId, error]) },
      60_000,
    );
    expect(report).toEqual({ checked: 1, restarted: 1, throttled: 0, failed: 1 });
    expect(errors).toEqual([[id(1), denied]]);
  });
});
