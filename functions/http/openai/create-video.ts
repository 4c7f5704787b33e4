/**
 * POST /api/v1/videos, OpenAI's create (docs/openai-videos.md, "Create"): multipart/form-data as the official
 * SDK sends it, or JSON; an Idempotency-Key as on the native submit.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { UnsupportedMediaTypeError } from '../../core/api-error.js';
import { IDEMPOTENT_REPLAYED_HEADER } from '../../core/idempotency.js';
import { parseCreateVideoRequest } from '../../core/openai-create-request.js';
import type { CreateVideoRequest } from '../../core/openai-create-request.js';
import { createVideo } from '../../core/use-cases/openai/create-video.js';
import { countMetric, METRIC } from '../../adapters/runtime/metrics.js';
import {
  apiKeyRepository,
  idempotencyStore,
  modelCatalog,
  taskRepository,
} from '../../adapters/wiring/service-dependencies.js';
import { uploadChecks, uploadRepository, uploadStorage } from '../../adapters/wiring/upload-dependencies.js';
import { videoRetentionDays } from '../../adapters/wiring/url-signer-dependencies.js';
import { outboundUrlPolicy } from '../../adapters/wiring/url-policy-dependencies.js';
import { idempotencyKeyOf, jsonBody } from '../api-handler.js';
import { parseMultipartForm } from './multipart-form.js';
import { openAiJson } from './openai-errors.js';
import { openAiRoute } from './openai-route.js';

/** An input_reference file of up to 4 MiB and the fields: within Lambda's 6 MB event once base64-encoded. */
export const MAX_CREATE_BODY_BYTES = 4 * 1024 * 1024 + 64 * 1024;

const deps = {
  keys: apiKeyRepository(),
  models: modelCatalog(),
  tasks: taskRepository(),
  urls: outboundUrlPolicy(),
  uploads: uploadChecks(),
  uploadRecords: uploadRepository(),
  uploadStorage: uploadStorage(),
  idempotency: idempotencyStore(),
  videoRetentionDays: videoRetentionDays(),
  now: () => new Date(),
  newTaskId: randomUUID,
  newUploadId: randomUUID,
};

export const handler = openAiRoute(async (event, caller) => {
  const outcome = await createVideo(caller, () => requestOf(event), deps, idempotencyKeyOf(event));
  if (!outcome.replayed) countMetric(METRIC.tasksSubmitted);
  const replayed: Record<string, string> = outcome.replayed ? { [IDEMPOTENT_REPLAYED_HEADER]: 'true' } : {};
  return openAiJson(outcome.video, { ...outcome.headers, ...replayed });
}, MAX_CREATE_BODY_BYTES);

function requestOf(event: APIGatewayProxyEventV2): CreateVideoRequest {
  const contentType = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  if (contentType && /^multipart\/form-data\s*;/i.test(contentType)) {
    const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
    const form = parseMultipartForm(body, contentType);
    return parseCreateVideoRequest(form.fields, form.files);
  }
  if (contentType && !/^application\/json\s*(;|$)/i.test(contentType)) {
    throw new UnsupportedMediaTypeError('Content-Type must be multipart/form-data or application/json');
  }
  return parseCreateVideoRequest(jsonBody(event));
}
