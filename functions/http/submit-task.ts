/** POST /api/v1/video/generate (with an optional Idempotency-Key: docs/api-contract.md, "Idempotency-Key") */
import { randomUUID } from 'node:crypto';
import { submitTaskIdempotently } from '../core/use-cases/submit-task.js';
import {
  apiKeyRepository,
  idempotencyStore,
  modelCatalog,
  taskRepository,
} from '../adapters/wiring/service-dependencies.js';
import { outboundUrlPolicy } from '../adapters/wiring/url-policy-dependencies.js';
import { uploadChecks } from '../adapters/wiring/upload-dependencies.js';
import { authenticatedRoute, bodyOf, idempotencyKeyOf, idempotentResult } from './api-handler.js';
import { countMetric, METRIC } from '../adapters/runtime/metrics.js';

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

/** What the handler keeps to answer after the charge settles (the gateway's answer, a log line). */
const ANSWER_MARGIN_MS = 1_000;

export const handler = authenticatedRoute(async (event, caller, context) => {
  // A charge is never started, nor tried again, when the function's time could not see it through:
  // a submit either answers 200 with its task or charged nothing (docs/money-and-ledger.md).
  const settleBy = () => Date.now() + context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS;
  const body = await bodyOf(event, caller);
  const outcome = await submitTaskIdempotently(caller, body, { ...deps, settleBy }, idempotencyKeyOf(event));
  if (!outcome.replayed) countMetric(METRIC.tasksSubmitted);
  const result = idempotentResult(outcome);
  return { ...result, headers: { ...result.headers, ...outcome.headers } };
});
