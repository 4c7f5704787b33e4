/** The reconciler restarts exactly the in-flight tasks whose execution is not running. */
import { describe, expect, it } from 'vitest';
import { reconcileTasks } from '../../../functions/core/use-cases/reconcile-tasks.js';
import { taskRecord } from '../../support/task-records.js';
import { FakeWorkflow, InMemoryTasks } from '../fakes.js';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const OLD = '2026-11-21T11:00:00.000Z';

describe('reconcileTasks', () => {
  it('starts a never-started task under its own name and a dead one under a new name; leaves the rest', async () => {
    const tasks = new InMemoryTasks(
      taskRecord({ task_id: 'a0000000-0000-4000-8000-000000000001', status: 'pending', updated_at: OLD }),
      taskRecord({ task_id: 'a0000000-0000-4000-8000-000000000002', status: 'running', updated_at: OLD }),
      taskRecord({ task_id: 'a0000000-0000-4000-8000-000000000003', status: 'transferring', updated_at: OLD }),
      taskRecord({ task_id: 'a0000000-0000-4000-8000-000000000004', status: 'success', updated_at: OLD }),
      taskRecord({ task_id: 'a0000000-0000-4000-8000-000000000005', status: 'running', updated_at: NOW.toISOString() }),
    );
    const workflow = new FakeWorkflow();
    workflow.states.set('a0000000-0000-4000-8000-000000000002', 'ended');
    workflow.states.set('a0000000-0000-4000-8000-000000000003', 'running');
    workflow.states.set('a0000000-0000-4000-8000-000000000005', 'running');

    const report = await reconcileTasks({ tasks, workflow, now: () => NOW }, 60_000);

    expect(report).toEqual({ checked: 3, restarted: 2 });
    expect(workflow.startedNames.sort()).toEqual([
      'a0000000-0000-4000-8000-000000000001',
      'a0000000-0000-4000-8000-000000000002-r1',
    ]);
    expect((await tasks.get('a0000000-0000-4000-8000-000000000002'))?.execution_name).toBe(
      'a0000000-0000-4000-8000-000000000002-r1',
    );
    // Run again: everything now runs, nothing is started twice.
    expect(await reconcileTasks({ tasks, workflow, now: () => new Date(NOW.getTime() + 3_600_000) }, 60_000)).toEqual({
      checked: 4,
      restarted: 0,
    });
  });

  it('numbers successive restarts', async () => {
    const tasks = new InMemoryTasks(
      taskRecord({
        task_id: 'b0000000-0000-4000-8000-000000000001',
        status: 'running',
        updated_at: OLD,
        execution_name: 'b0000000-0000-4000-8000-000000000001-r2',
        restarts: 2,
      }),
    );
    const workflow = new FakeWorkflow();
    workflow.states.set('b0000000-0000-4000-8000-000000000001-r2', 'ended');
    await reconcileTasks({ tasks, workflow, now: () => NOW }, 0);
    expect(workflow.startedNames).toEqual(['b0000000-0000-4000-8000-000000000001-r3']);
  });
});
