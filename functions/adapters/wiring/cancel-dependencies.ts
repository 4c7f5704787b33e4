/**
 * What a cancel needs (docs/task-lifecycle.md, "Cancel"): the waiting room, the task, the execution and the
 * upstream's cancel, for the native cancel and OpenAI's delete of a queued video alike.
 */
import { logger } from '../runtime/logger.js';
import { waitingRoomDependencies } from './capacity-dependencies.js';
import { claimReports } from './claim-reports.js';
import { CANCEL_UPSTREAM_TIMEOUT_MS, videoProviders } from './provider-dependencies.js';
import { taskRepository } from './service-dependencies.js';
import { taskWorkflow } from './workflow-dependencies.js';

/** Kept for the answer itself once a cancel's clean-up is left to go on without the route. */
export const CANCEL_ANSWER_MARGIN_MS = 2_000;

/** `doing` names the request in the log line of a clean-up step that failed. */
export function cancelDependencies(doing: string) {
  return {
    ...waitingRoomDependencies(),
    tasks: taskRepository(),
    ...claimReports,
    workflow: taskWorkflow(),
    providers: videoProviders(CANCEL_UPSTREAM_TIMEOUT_MS),
    onCleanupError: (task: { task_id: string }, step: string, error: unknown) =>
      logger.warn(`${doing}: its ${step} step failed`, { task_id: task.task_id, error: error as Error }),
  };
}
