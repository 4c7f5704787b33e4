/**
 * The `notify` flag the lifecycle steps return to the state machine: queue the completion webhook now?
 * Read after the step, so a retried step whose first try made the move but never answered still says
 * yes (the message is idempotent: same webhook-id, and a delivered event is not sent again).
 */
import type { TaskRepository } from '../ports/task-repository.js';
import { shouldNotify } from '../webhook.js';
import type { WebhookStatus } from '../webhook.js';

export async function webhookNotice(
  taskId: string,
  status: WebhookStatus,
  tasks: Pick<TaskRepository, 'get'>,
): Promise<boolean> {
  return shouldNotify(await tasks.get(taskId), status);
}

/** For the lifecycle steps: a task found already final may have been failed by someone else. */
export async function withFinalNotice<R extends { state: string }>(
  taskId: string,
  progress: R,
  tasks: Pick<TaskRepository, 'get'>,
): Promise<R | (R & { notify: boolean })> {
  if (progress.state !== 'final') return progress;
  return { ...progress, notify: await webhookNotice(taskId, 'failed', tasks) };
}
