/**
 * docs/task-lifecycle.md, "Live status", "Completion": a query of a `pending`/`running` task first asks the upstream, briefly. A job
 * found final is settled as a callback would (recorded with conditional writes, slot given back, execution
 * woken at once); one that started moves the task to running. Money moves only through the refund's
 * once-only transaction. On any upstream error it answers from what it has.
 */
import type { TaskRecord } from '../task.js';
import type { CompletionDeps } from './upstream-completion.js';
import { checkUpstream, wakeExecution } from './upstream-completion.js';

export type RefreshDeps = CompletionDeps;

export async function refreshFromUpstream(task: TaskRecord, deps: RefreshDeps): Promise<TaskRecord> {
  if ((task.status !== 'pending' && task.status !== 'running') || !task.upstream_job_id) return task;
  let progress;
  try {
    progress = await checkUpstream(task, deps);
  } catch (error) {
    deps.onUpstreamError?.(task, error);
    return task;
  }
  if (!progress) return (await deps.tasks.get(task.task_id)) ?? task;
  await wakeExecution(task.task_id, progress, deps);
  return (await deps.tasks.get(task.task_id)) ?? task;
}
