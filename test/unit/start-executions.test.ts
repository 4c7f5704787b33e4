/** The stream's starter: one execution per new task, named by it; failures are reported by stream position. */
import { describe, expect, it } from 'vitest';
import { startExecutions } from '../../functions/core/use-cases/start-executions.js';
import type { NewTask } from '../../functions/core/use-cases/start-executions.js';
import { FakeWorkflow } from './fakes.js';

const newTasks = (count: number): NewTask[] =>
  Array.from({ length: count }, (_, i) => ({ taskId: `task-${i}`, position: String(1000 + i) }));

describe('startExecutions', () => {
  it('starts every task of a batch under its own id and reports no failure', async () => {
    const workflow = new FakeWorkflow();
    const failures: unknown[] = [];
    const failed = await startExecutions(newTasks(25), {
      workflow,
      onStartFailure: (taskId, error) => failures.push([taskId, error]),
    });
    expect(failed).toEqual([]);
    expect(failures).toEqual([]);
    expect(workflow.startedNames.sort()).toEqual(
      newTasks(25)
        .map((task) => task.taskId)
        .sort(),
    );
  });

  it('a start that fails is reported by its position, and the others still start', async () => {
    const workflow = new FakeWorkflow();
    const throttled = new Error('ThrottlingException');
    const flaky = {
      start: async (taskId: string) => {
        if (taskId === 'task-3' || taskId === 'task-17') throw throttled;
        await workflow.start(taskId);
      },
    };
    const failures: unknown[] = [];
    const failed = await startExecutions(newTasks(20), {
      workflow: flaky,
      onStartFailure: (taskId, error) => failures.push([taskId, error]),
    });
    expect(failed.sort()).toEqual(['1003', '1017']);
    expect(failures).toEqual(
      expect.arrayContaining([
        ['task-3', throttled],
        ['task-17', throttled],
      ]),
    );
    expect(workflow.started).toHaveLength(18);
  });

  it('never has more than 10 starts in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = {
      start: async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight -= 1;
      },
    };
    await startExecutions(newTasks(100), { workflow: slow, onStartFailure: () => undefined });
    expect(most).toBe(10);
  });
});
