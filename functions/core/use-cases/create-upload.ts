/**
 * POST /api/v1/uploads (docs/api-contract.md, "Uploads"). Primary course: check the declared type and size, record the
 * upload (its key under `uploads/<account>/`, 48 h to live; with an Idempotency-Key, in one transaction with
 * its record) and answer a 15-minute presigned PUT that S3
 * accepts only with exactly that type and byte count, plus the `file_url` a submit names it by. The bytes
 * never pass through us; what arrives is checked again at submit (resolve-uploads.ts).
 */
import * as v from 'valibot';
import { InvalidRequestError } from '../api-error.js';
import { idempotentRequest, idempotently, parseIdempotencyKey } from '../idempotency.js';
import type { IdempotencyRecord, IdempotentOutcome } from '../idempotency.js';
import type { IdempotencyStore } from '../ports/idempotency.js';
import type { UploadRepository, UploadStorage } from '../ports/uploads.js';
import {
  CreateUploadBody,
  fileUrlOf,
  UPLOAD_RETENTION_SECONDS,
  UPLOAD_URL_TTL_SECONDS,
  uploadObjectKey,
} from '../uploads.js';
import type { CreateUploadInput, CreateUploadResult, UploadRecord } from '../uploads.js';
import type { Caller } from './authenticate.js';

export interface CreateUploadDeps {
  uploads: UploadRepository;
  idempotency: IdempotencyStore;
  storage: UploadStorage;
  now: () => Date;
  newUploadId: () => string;
}

/** The Idempotency-Key's scope: a key names one upload of the account. */
export const UPLOAD_IDEMPOTENCY_SCOPE = 'uploads';

/**
 * Once per Idempotency-Key (docs/api-contract.md, "Idempotency-Key"): the same key and body answer the first answer again (the same
 * upload; its upload_url lasts its 15 minutes from the first answer), another body with the key is a 400. The
 * record is written in the upload's own transaction.
 */
export async function createUpload(
  authenticated: Caller | Promise<Caller>,
  body: unknown,
  deps: CreateUploadDeps,
  idempotencyKeyHeader?: string,
): Promise<IdempotentOutcome<CreateUploadResult>> {
  const caller = await authenticated;
  const key = parseIdempotencyKey(idempotencyKeyHeader);
  const keyed =
    key === undefined ? undefined : idempotentRequest(caller.accountId, UPLOAD_IDEMPOTENCY_SCOPE, key, body);
  const now = deps.now();
  return idempotently(keyed, deps.idempotency, now, (record) => newUpload(caller, body, now, deps, record));
}

async function newUpload(
  caller: Caller,
  body: unknown,
  now: Date,
  deps: CreateUploadDeps,
  record: (uploadId: string, answer: CreateUploadResult) => IdempotencyRecord | undefined,
): Promise<CreateUploadResult> {
  const input = parseCreateUploadBody(body);
  const uploadId = deps.newUploadId();
  const expiresAt = new Date(now.getTime() + UPLOAD_RETENTION_SECONDS * 1000);
  const upload: UploadRecord = {
    upload_id: uploadId,
    account_id: caller.accountId,
    object_key: uploadObjectKey(caller.accountId, uploadId),
    declared_type: input.content_type,
    declared_size: input.size,
    created_at: now.toISOString(),
    expires_at: expiresAt.toISOString(),
    ttl: Math.ceil(expiresAt.getTime() / 1000),
  };
  // Signed before the record is written: a signer failure leaves nothing behind.
  const presigned = await deps.storage.presignPut(
    upload.object_key,
    input.content_type,
    input.size,
    UPLOAD_URL_TTL_SECONDS,
    now,
  );
  const answer: CreateUploadResult = {
    upload_id: uploadId,
    upload_url: presigned.url,
    upload_method: presigned.method,
    upload_headers: presigned.headers as CreateUploadResult['upload_headers'],
    file_url: fileUrlOf(uploadId),
    expires_at: upload.expires_at,
  };
  await deps.uploads.create(upload, record(uploadId, answer));
  return answer;
}

export function parseCreateUploadBody(body: unknown): CreateUploadInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidRequestError('request body must be a JSON object: {"content_type": …, "size": …}');
  }
  const unknown = Object.keys(body).filter((key) => !Object.hasOwn(CreateUploadBody.entries, key));
  if (unknown.length > 0) {
    throw new InvalidRequestError(`unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  }
  const record = body as Record<string, unknown>;
  const missing = Object.keys(CreateUploadBody.entries).find((key) => record[key] === undefined);
  if (missing) throw new InvalidRequestError(`${missing} is required: send {"content_type": …, "size": <bytes>}`);
  const parsed = v.safeParse(CreateUploadBody, body);
  if (parsed.success) return parsed.output;
  // docs/api-contract.md, "Defaults and bounds": null is no value; the message says so, beside what is allowed.
  const [issue] = parsed.issues;
  throw new InvalidRequestError(issue.input === null ? `${issue.message}, not null` : issue.message);
}
