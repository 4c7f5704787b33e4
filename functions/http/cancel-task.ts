/** POST /api/v1/video/tasks/{id}/cancel (beyond spec: docs/task-lifecycle.md, "Cancel") */
import { cancelTask } from '../core/use-cases/cancel-task.js';
import { CANCEL_ANSWER_MARGIN_MS, cancelDependencies } from '../adapters/wiring/cancel-dependencies.js';
import { logger } from '../adapters/runtime/logger.js';
import { awaitWhileTimeLeft } from '../adapters/runtime/time-left.js';
import { authenticatedRoute } from './api-handler.js';
import { countMetric, METRIC } from '../adapters/runtime/metrics.js';

const ANSWER_MARGIN_MS = CANCEL_ANSWER_MARGIN_MS;
const deps = cancelDependencies('cancelling the task');

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
