/**
 * An OpenAI create's input_reference as the native request's first-frame image URL (docs/openai-videos.md,
 * "input_reference"). Primary course: an uploaded file or a data: URL is read (an accepted image, by its bytes),
 * stored as our uploads are (uploads/<account>/<id>, 48 h) and named by its file_url; an http(s) URL and a
 * file_id (our upload) pass through to the submit, which checks them as any reference.
 */
import { sniffMediaType } from '../../media-type.js';
import { MAX_REFERENCE_BYTES, REFERENCE_IMAGE_TYPES } from '../../openai-create-request.js';
import type { InputReference } from '../../openai-create-request.js';
import { OpenAiParamError } from '../../openai-error.js';
import type { UploadRepository, UploadStorage } from '../../ports/uploads.js';
import { fileUrlOf, UPLOAD_RETENTION_SECONDS, uploadIdOf, uploadObjectKey } from '../../uploads.js';
import type { UploadContentType, UploadRecord } from '../../uploads.js';

export interface InputReferenceDeps {
  uploadRecords: UploadRepository;
  uploadStorage: Pick<UploadStorage, 'put'>;
  now: () => Date;
  /**
   * The stored upload's id. Given the same request under the same Idempotency-Key it must be the same id, or the
   * replay would name another upload and count as another body (create-video.ts derives it so).
   */
  uploadIdFor: (bytes: Uint8Array) => string;
}

const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+)?(;[a-z-]+=[^;,]*)*;base64,([A-Za-z0-9+/=\s]*)$/i;

export async function inputReferenceUrl(
  reference: InputReference,
  accountId: string,
  deps: InputReferenceDeps,
): Promise<string> {
  switch (reference.kind) {
    case 'file':
      return store(reference.file.bytes, accountId, deps);
    case 'file_id': {
      const id = reference.id.startsWith('upload://') ? reference.id : `upload://${reference.id}`;
      if (!uploadIdOf(id)) {
        throw new OpenAiParamError(
          'input_reference.file_id',
          'input_reference.file_id must be the upload_id (or file_url) of POST /api/v1/uploads',
        );
      }
      return id;
    }
    case 'image_url': {
      if (!reference.url.toLowerCase().startsWith('data:')) return reference.url;
      const match = DATA_URL.exec(reference.url);
      if (!match) {
        throw new OpenAiParamError(
          'input_reference.image_url',
          'input_reference.image_url is a data: URL but not a base64 one (data:image/png;base64,…)',
        );
      }
      return store(Buffer.from(match[3] as string, 'base64'), accountId, deps);
    }
  }
}

async function store(bytes: Uint8Array, accountId: string, deps: InputReferenceDeps): Promise<string> {
  if (bytes.length === 0) throw new OpenAiParamError('input_reference', 'input_reference is an empty file');
  if (bytes.length > MAX_REFERENCE_BYTES) {
    throw new OpenAiParamError(
      'input_reference',
      `input_reference is larger than ${MAX_REFERENCE_BYTES} bytes: upload it with POST /api/v1/uploads and send {"file_id": <upload_id>}`,
    );
  }
  const type = sniffMediaType(bytes.subarray(0, 16));
  if (!type || !(REFERENCE_IMAGE_TYPES as readonly string[]).includes(type)) {
    throw new OpenAiParamError(
      'input_reference',
      `input_reference must be an image (${REFERENCE_IMAGE_TYPES.join(', ')}); its bytes read as ${type ?? 'no known format'}`,
    );
  }
  const uploadId = deps.uploadIdFor(bytes);
  const existing = await deps.uploadRecords.get(uploadId);
  if (existing?.account_id === accountId) return fileUrlOf(uploadId);
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + UPLOAD_RETENTION_SECONDS * 1000);
  const upload: UploadRecord = {
    upload_id: uploadId,
    account_id: accountId,
    object_key: uploadObjectKey(accountId, uploadId),
    declared_type: type as UploadContentType,
    declared_size: bytes.length,
    created_at: now.toISOString(),
    expires_at: expiresAt.toISOString(),
    ttl: Math.ceil(expiresAt.getTime() / 1000),
  };
  // The bytes first: a record never names an object that is not there.
  await deps.uploadStorage.put(upload.object_key, bytes, upload.declared_type);
  await deps.uploadRecords.create(upload);
  return fileUrlOf(uploadId);
}
