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
