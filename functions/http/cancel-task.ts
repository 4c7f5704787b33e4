/** POST /api/v1/video/tasks/{id}/cancel (beyond spec: docs/task-lifecycle.md, "Cancel") */
import { cancelTask } from '../core/use-cases/cancel-task.js';
import { waitingRoomDependencies } from '../adapters/wiring/capacity-dependencies.js';
import { logger } from '../adapters/runtime/logger.js';
import { awaitWhileTimeLeft } from '../adapters/runtime/time-left.js';
import { CANCEL_UPSTREAM_TIMEOUT_MS, videoProviders } from '../adapters/wiring/provider-dependencies.js';
import { taskRepository } from '../adapters/wiring/service-dependencies.js';
import { taskWorkflow } from '../adapters/wiring/workflow-dependencies.js';
import { authenticatedRoute } from './api-handler.js';
import { countMetric, METRIC } from '../adapters/runtime/metrics.js';
import { claimReports } from '../adapters/wiring/claim-reports.js';

/** Kept for the answer itself once the clean-up is left to go on without us. */
const ANSWER_MARGIN_MS = 2_000;

const deps = {
  ...waitingRoomDependencies(),
  tasks: taskRepository(),
  ...claimReports,
  workflow: taskWorkflow(),
  providers: videoProviders(CANCEL_UPSTREAM_TIMEOUT_MS),
  onCleanupError: (task: { task_id: string }, step: string, error: unknown) =>
    logger.warn(`cancelling the task: its ${step} step failed`, {
      task_id: task.task_id,
      error: error as Error,
    }),
};

export const handler = authenticatedRoute(async (event, caller, context) => {
  const { task, refunded } = await cancelTask(caller, event.pathParameters?.['id'], {
    ...deps,
    awaitCleanup: async (cleanup) => {
      if (!(await awaitWhileTimeLeft(cleanup, context, ANSWER_MARGIN_MS)))
        logger.warn('cancelling the task: its clean-up goes on after the answer (a slow store)');
    },
  });
  // A repeated cancel answers the task again: counted once.
  if (refunded) countMetric(METRIC.tasksRefunded);
  return { data: task };
});
