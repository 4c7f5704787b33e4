/**
 * Nothing stays stuck: a task still in flight whose execution never started (its stream record dropped
 * after the event source's retries, or written while the local stack was down) or has died is started again. The workflow resumes from the task
 * record: a stored upstream job id means no second upstream job, and a charged task is never charged
 * again (charging happens only at submit).
 */
import type { TaskRepository } from '../ports/task-repository.js';
import type { TaskWorkflow } from '../ports/workflow-starter.js';
import type { TaskRecord } from '../task.js';
import type { TaskStatus } from '../task-status.js';

const IN_FLIGHT: readonly TaskStatus[] = ['pending', 'running', 'transferring'];
const CONCURRENCY = 10;

export interface ReconcileDeps {
  tasks: TaskRepository;
  workflow: TaskWorkflow;
  now: () => Date;
  onRestart?: (taskId: string, executionName: string, reason: 'missing' | 'ended') => void;
}

export interface ReconcileReport {
  checked: number;
  restarted: number;
}

/** Looks at tasks in flight and untouched for `minAgeMs`; restarts those whose execution is not running. */
export async function reconcileTasks(deps: ReconcileDeps, minAgeMs: number): Promise<ReconcileReport> {
  const now = deps.now();
  const before = new Date(now.getTime() - minAgeMs).toISOString();
  const report: ReconcileReport = { checked: 0, restarted: 0 };
  // A few at a time: after a long outage there may be many, and the scheduled run has a time limit.
  let batch: Promise<void>[] = [];
  for (const status of IN_FLIGHT) {
    for await (const task of deps.tasks.findStale(status, before)) {
      report.checked += 1;
      batch.push(
        restartIfStopped(task, deps, now).then((restarted) => {
          if (restarted) report.restarted += 1;
        }),
      );
      if (batch.length >= CONCURRENCY) {
        await Promise.all(batch);
        batch = [];
      }
    }
  }
  await Promise.all(batch);
  return report;
}

async function restartIfStopped(task: TaskRecord, deps: ReconcileDeps, now: Date): Promise<boolean> {
  const current = task.execution_name ?? task.task_id;
  const state = await deps.workflow.status(current);
  if (state === 'running') return false;
  // A name that never ran can be used as is; one that ran (and ended) cannot be reused.
  const next = state === 'missing' ? current : `${task.task_id}-r${(task.restarts ?? 0) + 1}`;
  if (!(await deps.tasks.recordExecution(task.task_id, next, now.toISOString()))) return false;
  await deps.workflow.start(task.task_id, next);
  deps.onRestart?.(task.task_id, next, state);
  return true;
}
