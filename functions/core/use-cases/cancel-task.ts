/**
 * POST /api/v1/video/tasks/{id}/cancel (DESIGN §3 row 18, beyond spec). Only a task whose upstream job has
 * not started may be cancelled: the job is cancelled upstream first, and the refund follows once the upstream
 * confirms (a started job is generated and billed whatever we do). The refund is one conditional transaction,
 * so a cancel racing the task's own end still refunds at most once.
 */
import { InternalError, InvalidRequestError } from '../api-error.js';
import type { TaskRepository } from '../ports/task-repository.js';
import type { CancelOutcome, VideoProvider } from '../ports/video-provider.js';
import type { TaskWorkflow } from '../ports/workflow-starter.js';
import { toTaskView } from '../task.js';
import type { TaskRecord, TaskView } from '../task.js';
import type { Caller } from './authenticate.js';
import { findOwnTask } from './get-task.js';

export const CANCELLED_MESSAGE = 'cancelled by the client';
export const GENERATION_STARTED_MESSAGE = 'generation has started and can no longer be cancelled';

export interface CancelTaskDeps {
  tasks: TaskRepository;
  workflow: Pick<TaskWorkflow, 'stop'>;
  providers: Readonly<Record<string, VideoProvider>>;
  now: () => Date;
  onCleanupError: (task: TaskRecord, step: string, error: unknown) => void;
}

/** `refunded`: this call refunded the task (a repeated cancel answers the task without refunding again). */
export interface CancelResult {
  task: TaskView;
  refunded: boolean;
}

export async function cancelTask(
  caller: Caller | Promise<Caller>,
  taskId: string | undefined,
  deps: CancelTaskDeps,
): Promise<CancelResult> {
  const task = await findOwnTask(caller, taskId, deps.tasks);
  if (task.status === 'refunded') return { task: toTaskView(task), refunded: false };
  // Transferring: the job has succeeded upstream, and Ark bills it.
  if (task.status === 'transferring') throw new InvalidRequestError(GENERATION_STARTED_MESSAGE);
  if (task.status !== 'pending' && task.status !== 'running') throw notCancellable(task);

  if (task.upstream_job_id) {
    const outcome = await cancelUpstream(task, task.upstream_job_id, deps);
    if (outcome.outcome === 'refused' && outcome.state !== 'failed') {
      throw new InvalidRequestError(GENERATION_STARTED_MESSAGE);
    }
  }
  // Cancelled upstream, unknown there (nothing generates), failed there, or no job yet: nothing will be billed.
  const refunded = await deps.tasks.refund(task, 'refunded', CANCELLED_MESSAGE, deps.now().toISOString());
  const current = (await deps.tasks.get(task.task_id)) ?? task;
  if (!refunded) {
    // Someone ended the task first: another cancel (answered alike), or the task's own end.
    if (current.status === 'refunded') return { task: toTaskView(current), refunded: false };
    throw notCancellable(current);
  }
  await stopExecution(current, deps);
  // StartUpstream recorded a job between our read and our refund: no task will collect it.
  if (!task.upstream_job_id && current.upstream_job_id) await cancelOrphan(current, current.upstream_job_id, deps);
  return { task: toTaskView(current), refunded: true };
}

/** The outcome is needed before any money moves: an upstream that cannot be asked leaves the task as it is. */
async function cancelUpstream(task: TaskRecord, jobId: string, deps: CancelTaskDeps): Promise<CancelOutcome> {
  const provider = deps.providers[task.upstream_provider];
  if (!provider) throw new InternalError(`no adapter for upstream provider ${task.upstream_provider}`);
  try {
    return await provider.cancelJob(jobId);
  } catch (error) {
    deps.onCleanupError(task, 'upstream', error);
    throw new InternalError('the generator could not be reached to cancel the task; nothing was refunded: try again');
  }
}

async function stopExecution(task: TaskRecord, deps: CancelTaskDeps): Promise<void> {
  const executionName = task.execution_name ?? task.task_id;
  await deps.workflow.stop(executionName, CANCELLED_MESSAGE).catch((error) => deps.onCleanupError(task, 'stop', error));
}

/** Best effort, as StartUpstream's own orphan cancel: a job already generating is reported (it will bill). */
async function cancelOrphan(task: TaskRecord, jobId: string, deps: CancelTaskDeps): Promise<void> {
  const provider = deps.providers[task.upstream_provider];
  try {
    const outcome = await provider?.cancelJob(jobId);
    if (outcome?.outcome === 'refused' && outcome.state !== 'failed') {
      throw new Error(`upstream job ${jobId} is ${outcome.state}: it could not be cancelled and may be billed`);
    }
  } catch (error) {
    deps.onCleanupError(task, 'upstream', error);
  }
}

function notCancellable(task: TaskRecord): InvalidRequestError {
  return new InvalidRequestError(`only pending or running tasks can be cancelled; this task is ${task.status}`);
}
