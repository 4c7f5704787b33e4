/** POST /api/v1/video/generate (with an optional Idempotency-Key: DESIGN §3 row 24) */
import { randomUUID } from 'node:crypto';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from '../core/idempotency.js';
import { submitTaskIdempotently } from '../core/use-cases/submit-task.js';
import { apiKeyRepository, idempotencyStore, modelCatalog, taskRepository } from '../adapters/service-dependencies.js';
import { outboundUrlPolicy } from '../adapters/url-policy-dependencies.js';
import { uploadChecks } from '../adapters/upload-dependencies.js';
import { authenticatedRoute, jsonBody } from './api-handler.js';
import { countMetric, METRIC } from '../adapters/metrics.js';

const deps = {
  keys: apiKeyRepository(),
  models: modelCatalog(),
  tasks: taskRepository(),
  urls: outboundUrlPolicy(),
  uploads: uploadChecks(),
  idempotency: idempotencyStore(),
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
  // Header names are case-insensitive; API Gateway's payload 2.0 gives them in lower case, other fronts may not.
  const key = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === IDEMPOTENCY_KEY_HEADER)?.[1];
  const { answer, replayed } = await submitTaskIdempotently(caller, body, deps, key);
  if (replayed) return { data: answer, headers: { [IDEMPOTENT_REPLAYED_HEADER]: 'true' } };
  countMetric(METRIC.tasksSubmitted);
  return { data: answer };
});
