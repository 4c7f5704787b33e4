/** POST /api/v1/uploads (with an optional Idempotency-Key: DESIGN §3 row 24) */
import { randomUUID } from 'node:crypto';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from '../core/idempotency.js';
import { createUpload } from '../core/use-cases/create-upload.js';
import { idempotencyStore } from '../adapters/service-dependencies.js';
import { uploadRepository, uploadStorage } from '../adapters/upload-dependencies.js';
import { authenticatedRoute, jsonBody } from './api-handler.js';

const deps = {
  uploads: uploadRepository(),
  storage: uploadStorage(),
  idempotency: idempotencyStore(),
  now: () => new Date(),
  newUploadId: randomUUID,
};

export const handler = authenticatedRoute(async (event, caller) => {
  let body: unknown;
  try {
    body = jsonBody(event);
  } catch (error) {
    await caller; // an auth error wins over a malformed body
    throw error;
  }
  const key = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === IDEMPOTENCY_KEY_HEADER)?.[1];
  const { answer, replayed } = await createUpload(caller, body, deps, key);
  return replayed ? { data: answer, headers: { [IDEMPOTENT_REPLAYED_HEADER]: 'true' } } : { data: answer };
});
