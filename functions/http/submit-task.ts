/** POST /api/v1/video/generate */
import { randomUUID } from 'node:crypto';
import { submitTask } from '../core/use-cases/submit-task.js';
import { apiKeyRepository, modelCatalog, taskRepository } from '../adapters/service-dependencies.js';
import { outboundUrlPolicy } from '../adapters/url-policy-dependencies.js';
import { authenticatedRoute, jsonBody } from './api-handler.js';
import { countMetric, METRIC } from '../adapters/metrics.js';

const deps = {
  keys: apiKeyRepository(),
  models: modelCatalog(),
  tasks: taskRepository(),
  urls: outboundUrlPolicy(),
  now: () => new Date(),
  newTaskId: randomUUID,
};

export const handler = authenticatedRoute(async (event, caller) => {
  let body: unknown;
  try {
    body = jsonBody(event);
  } catch (error) {
    await caller; // an auth error wins over a malformed body
    throw error;
  }
  const data = await submitTask(caller, body, deps);
  countMetric(METRIC.tasksSubmitted);
  return { data };
});
