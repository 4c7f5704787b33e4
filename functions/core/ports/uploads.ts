import type { IdempotencyRecord } from '../idempotency.js';
import type { ReferenceKind, UploadContentType, UploadRecord } from '../uploads.js';

export interface UploadRepository {
  /**
   * Stores a new upload, with its Idempotency-Key record in the same transaction when given (throws
   * IdempotencyKeyTakenError when a live record holds that key).
   */
  create(upload: UploadRecord, idempotency?: IdempotencyRecord): Promise<void>;
  /** Consistent read. */
  get(uploadId: string): Promise<UploadRecord | undefined>;
}

export interface PresignedUpload {
  url: string;
  method: 'PUT';
  /** Sent exactly as given: they are part of the signature, so S3 refuses another type or byte count. */
  headers: { 'Content-Type': string; 'Content-Length': string };
}

/** What storage holds under an upload's key, read from the object itself. */
export interface StoredObject {
  size: number;
  /** The media type its first bytes show (magic numbers), undefined when none is recognised. */
  sniffedType: string | undefined;
}

export interface UploadStorage {
  /** A URL that accepts one PUT of exactly `size` bytes of `contentType` at `key` until `expiresInSeconds`. */
  presignPut(
    key: string,
    contentType: UploadContentType,
    size: number,
    expiresInSeconds: number,
    now: Date,
  ): Promise<PresignedUpload>;
  /** Stores `bytes` at `key` (an upload that came in a request's body: docs/openai-videos.md, "input_reference"). */
  put(key: string, bytes: Uint8Array, contentType: UploadContentType): Promise<void>;
  /** The object's real size and type; undefined when there is no object (nothing was uploaded yet). */
  inspect(key: string): Promise<StoredObject | undefined>;
}

/** One reference of a submit that names an upload, as the submit checked it. */
export interface UploadReference {
  field: string;
  kind: ReferenceKind;
  url: string;
}

/** The submit's check of the uploads it names (functions/core/use-cases/resolve-uploads.ts behind it). */
export interface UploadReferences {
  /** Throws 400 (unknown, expired, missing, too large, wrong type) or 403 (another account's) for the first bad one. */
  assertUsable(references: readonly UploadReference[], accountId: string): Promise<void>;
}
