/**
 * POST /api/v1/video/tasks/{id}/cancel (DESIGN §3 row 18, beyond spec). The refund transaction decides:
 * it moves pending/running → refunded only once, so a cancel racing a success or a failure ends in
 * exactly one final state and at most one refund. Stopping the execution and the upstream job follow,
 * best effort.
 */
import { InvalidRequestError } from '../api-error.js';
import type { TaskRepository } from '../ports/task-repository.js';
import type { VideoProvider } from '../ports/video-provider.js';
import type { TaskWorkflow } from '../ports/workflow-starter.js';
import { toTaskView } from '../task.js';
import type { TaskRecord, TaskView } from '../task.js';
import { statesBefore } from '../task-status.js';
import type { Caller } from './authenticate.js';
import { findOwnTask } from './get-task.js';

export const CANCELLED_MESSAGE = 'cancelled by the client';
const CANCELLABLE = statesBefore('refunded');

export interface CancelTaskDeps {
  tasks: TaskRepository;
  workflow: Pick<TaskWorkflow, 'stop'>;
  providers: Readonly<Record<string, VideoProvider>>;
  now: () => Date;
  onCleanupError: (task: TaskRecord, step: string, error: unknown) => void;
}

export async function cancelTask(
  caller: Caller | Promise<Caller>,
  taskId: string | undefined,
  deps: CancelTaskDeps,
): Promise<TaskView> {
  const task = await findOwnTask(caller, taskId, deps.tasks);
  if (!CANCELLABLE.includes(task.status)) throw notCancellable(task);
  const refunded = await deps.tasks.refund(task, 'refunded', CANCELLED_MESSAGE, deps.now().toISOString());
  const current = (await deps.tasks.get(task.task_id)) ?? task;
  if (!refunded) throw notCancellable(current);
  await stopEverything(current, deps);
  return toTaskView(current);
}

async function stopEverything(task: TaskRecord, deps: CancelTaskDeps): Promise<void> {
  const executionName = task.execution_name ?? task.task_id;
  await deps.workflow.stop(executionName, CANCELLED_MESSAGE).catch((error) => deps.onCleanupError(task, 'stop', error));
  const provider = deps.providers[task.upstream_provider];
  if (task.upstream_job_id && provider) {
    await provider.cancelJob(task.upstream_job_id).catch((error) => deps.onCleanupError(task, 'upstream', error));
  }
}

function notCancellable(task: TaskRecord): InvalidRequestError {
  return new InvalidRequestError(`only pending or running tasks can be cancelled; this task is ${task.status}`);
}
