/**
 * Nothing stays stuck: a task in flight whose execution never started (its stream record dropped, or written
 * while the local stack was down) or has died is started again; the workflow resumes from the task record.
 * Only tasks untouched for a while are looked at (a live execution's poll touches its task), at most `limit` a
 * run, and a throttled call skips its task until the next run: the reconciler can neither storm nor page.
 */
import type { StaleTask, TaskRepository } from '../ports/task-repository.js';
import type { TaskWorkflow } from '../ports/workflow-starter.js';

const CONCURRENCY = 10;
/**
 * DescribeExecution calls at most per run: well inside Step Functions' API token buckets ("Step Functions
 * service quotas", API action throttling), and inside the run's time limit. Tasks found running are touched,
 * so the next run looks at the next oldest.
 */
export const RECONCILE_LIMIT = 100;

/** Names AWS gives throttling (the SDKs' throttling error codes); the SDK has already retried them. */
const THROTTLING = new Set([
  'ThrottlingException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'Throttling',
]);

export interface ReconcileDeps {
  tasks: Pick<TaskRepository, 'findStale' | 'touch' | 'recordExecution'>;
  workflow: Pick<TaskWorkflow, 'status' | 'start'>;
  now: () => Date;
  onRestart?: (taskId: string, executionName: string, reason: 'missing' | 'ended') => void;
  /** A task that could not be looked at for a reason other than throttling. */
  onError?: (taskId: string, error: unknown) => void;
}

export interface ReconcileReport {
  /** Tasks looked at (their execution described). */
  checked: number;
  restarted: number;
  /** Skipped this run: a call was throttled. */
  throttled: number;
  /** Skipped this run: any other error (reported through onError). */
  failed: number;
}

/** Looks at the oldest tasks in flight untouched for `minAgeMs`; restarts those whose execution is not running. */
export async function reconcileTasks(
  deps: ReconcileDeps,
  minAgeMs: number,
  limit = RECONCILE_LIMIT,
): Promise<ReconcileReport> {
  const now = deps.now();
  const before = new Date(now.getTime() - minAgeMs).toISOString();
  const report: ReconcileReport = { checked: 0, restarted: 0, throttled: 0, failed: 0 };
  const stale = await deps.tasks.findStale(before, limit);
  // A few at a time: the calls stay within Step Functions' rates and the run within its time limit.
  for (let start = 0; start < stale.length; start += CONCURRENCY) {
    const batch = stale.slice(start, start + CONCURRENCY);
    const outcomes = await Promise.allSettled(batch.map((task) => reconcileOne(task, deps, now)));
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled') {
        report.checked += 1;
        if (outcome.value) report.restarted += 1;
      } else if (isThrottling(outcome.reason)) {
        report.throttled += 1;
      } else {
        report.failed += 1;
        deps.onError?.((batch[index] as StaleTask).task_id, outcome.reason);
      }
    });
  }
  return report;
}

/** True when the task's execution was started again. */
async function reconcileOne(task: StaleTask, deps: ReconcileDeps, now: Date): Promise<boolean> {
  const current = task.execution_name ?? task.task_id;
  const state = await deps.workflow.status(current);
  if (state === 'running') {
    // Alive after all (a long transfer, a start in backoff): not looked at again for a while.
    await deps.tasks.touch(task.task_id, now.toISOString());
    return false;
  }
  // A name that never ran can be used as is; one that ran (and ended) cannot be reused.
  const next = state === 'missing' ? current : `${task.task_id}-r${(task.restarts ?? 0) + 1}`;
  if (!(await deps.tasks.recordExecution(task.task_id, next, now.toISOString()))) return false;
  await deps.workflow.start(task.task_id, next);
  deps.onRestart?.(task.task_id, next, state);
  return true;
}

function isThrottling(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const retryable = (error as { $retryable?: { throttling?: boolean } }).$retryable;
  return THROTTLING.has(error.name) || retryable?.throttling === true;
}
