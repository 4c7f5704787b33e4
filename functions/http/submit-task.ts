/** POST /api/v1/video/generate */
import { randomUUID } from 'node:crypto';
import { submitTask } from '../core/use-cases/submit-task.js';
import { logger } from '../adapters/logger.js';
import { modelCatalog, taskRepository } from '../adapters/service-dependencies.js';
import { outboundUrlPolicy } from '../adapters/url-policy-dependencies.js';
import { taskWorkflow } from '../adapters/workflow-dependencies.js';
import { authenticatedRoute, jsonBody } from './api-handler.js';
import { countMetric, METRIC } from '../adapters/metrics.js';

const deps = {
  models: modelCatalog(),
  tasks: taskRepository(),
  workflow: taskWorkflow(),
  urls: outboundUrlPolicy(),
  now: () => new Date(),
  newTaskId: randomUUID,
  onStartFailure: (taskId: string, error: unknown) =>
    logger.error('task charged but its execution did not start; the reconciler will start it', {
      task_id: taskId,
      error: error as Error,
    }),
};

export const handler = authenticatedRoute(async (event, caller) => {
  const data = await submitTask(caller, jsonBody(event), deps);
  countMetric(METRIC.tasksSubmitted);
  return { data };
});
