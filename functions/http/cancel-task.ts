/** POST /api/v1/video/tasks/{id}/cancel (beyond spec: DESIGN §3 row 18) */
import { cancelTask } from '../core/use-cases/cancel-task.js';
import { waitingRoomDependencies } from '../adapters/capacity-dependencies.js';
import { logger } from '../adapters/logger.js';
import { CANCEL_UPSTREAM_TIMEOUT_MS, videoProviders } from '../adapters/provider-dependencies.js';
import { taskRepository } from '../adapters/service-dependencies.js';
import { taskWorkflow } from '../adapters/workflow-dependencies.js';
import { authenticatedRoute } from './api-handler.js';
import { countMetric, METRIC } from '../adapters/metrics.js';

const deps = {
  ...waitingRoomDependencies(),
  tasks: taskRepository(),
  workflow: taskWorkflow(),
  providers: videoProviders(CANCEL_UPSTREAM_TIMEOUT_MS),
  onCleanupError: (task: { task_id: string }, step: string, error: unknown) =>
    logger.warn(`cancelling the task: its ${step} step failed`, {
      task_id: task.task_id,
      error: error as Error,
    }),
};

export const handler = authenticatedRoute(async (event, caller) => {
  const { task, refunded } = await cancelTask(caller, event.pathParameters?.['id'], deps);
  // A repeated cancel answers the task again: counted once.
  if (refunded) countMetric(METRIC.tasksRefunded);
  return { data: task };
});
