/** POST /api/v1/uploads (with an optional Idempotency-Key: docs/api-contract.md, "Idempotency-Key") */
import { randomUUID } from 'node:crypto';
import { createUpload } from '../core/use-cases/create-upload.js';
import { idempotencyStore } from '../adapters/wiring/service-dependencies.js';
import { uploadRepository, uploadStorage } from '../adapters/wiring/upload-dependencies.js';
import { authenticatedRoute, bodyOf, idempotencyKeyOf, idempotentResult } from './api-handler.js';

const deps = {
  uploads: uploadRepository(),
  storage: uploadStorage(),
  idempotency: idempotencyStore(),
  now: () => new Date(),
  newUploadId: randomUUID,
};

export const handler = authenticatedRoute(async (event, caller) =>
  idempotentResult(await createUpload(caller, await bodyOf(event, caller), deps, idempotencyKeyOf(event))),
);
