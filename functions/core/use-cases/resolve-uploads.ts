/**
 * The submit's check of each upload it names (docs/api-contract.md, "Uploads"). Primary course: the upload exists, is the
 * caller's (else 403) and younger than 48 h; storage holds an object no larger than declared; its first
 * bytes show an accepted type of the field's kind (an image in image_urls…). The declared type is never
 * trusted: a PNG declared as JPEG is a PNG. Any failure is a 400 naming the field, before any charge.
 */
import { ForbiddenError, InvalidRequestError } from '../api-error.js';
import type { UploadReference, UploadReferences, UploadRepository, UploadStorage } from '../ports/uploads.js';
import {
  canonicalType,
  isUploadContentType,
  MAX_UPLOAD_BYTES,
  UPLOAD_CONTENT_TYPES,
  UPLOAD_TYPES,
  uploadIdOf,
} from '../uploads.js';
import type { UploadContentType, UploadRecord } from '../uploads.js';

export interface ResolveUploadsDeps {
  uploads: UploadRepository;
  storage: UploadStorage;
  now: () => Date;
}

export class UploadChecks implements UploadReferences {
  constructor(private readonly deps: ResolveUploadsDeps) {}

  async assertUsable(references: readonly UploadReference[], accountId: string): Promise<void> {
    // All at once (a round trip each), but the first failing reference in the request's order is reported.
    const results = await Promise.allSettled(references.map((reference) => this.check(reference, accountId)));
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** The upload's record and real type, once checked usable for `reference`. */
  async check(
    reference: UploadReference,
    accountId: string,
  ): Promise<{ upload: UploadRecord; type: UploadContentType }> {
    const { field, url } = reference;
    const uploadId = uploadIdOf(url);
    if (!uploadId) throw new InvalidRequestError(`${field}: ${url} is not a file_url from POST /api/v1/uploads`);
    const upload = await this.deps.uploads.get(uploadId);
    if (!upload) throw new InvalidRequestError(`${field}: unknown upload ${uploadId}`);
    if (upload.account_id !== accountId) {
      throw new ForbiddenError(`${field}: upload ${uploadId} belongs to another account`);
    }
    if (this.deps.now().getTime() >= Date.parse(upload.expires_at)) {
      throw new InvalidRequestError(
        `${field}: upload ${uploadId} expired at ${upload.expires_at} (uploads are kept 48 hours): upload the file again`,
      );
    }
    const stored = await this.deps.storage.inspect(upload.object_key);
    if (!stored) {
      throw new InvalidRequestError(
        `${field}: upload ${uploadId} has no file yet: PUT the bytes to its upload_url first`,
      );
    }
    const limit = Math.min(upload.declared_size, MAX_UPLOAD_BYTES);
    if (stored.size > limit) {
      throw new InvalidRequestError(
        `${field}: upload ${uploadId} holds ${stored.size} bytes, more than the ${limit} declared`,
      );
    }
    const sniffed = stored.sniffedType === undefined ? undefined : canonicalType(stored.sniffedType);
    if (sniffed === undefined || !isUploadContentType(sniffed)) {
      throw new InvalidRequestError(
        `${field}: upload ${uploadId} is not a supported file (its content is ${sniffed ?? 'of no known format'}; ` +
          `accepted: ${UPLOAD_CONTENT_TYPES.join(', ')})`,
      );
    }
    const kind = UPLOAD_TYPES[sniffed];
    if (kind !== reference.kind) {
      throw new InvalidRequestError(
        `${field}: upload ${uploadId} is ${kind === 'image' ? 'an' : 'a'} ${kind} (${sniffed}), not ${reference.kind === 'image' ? 'an' : 'a'} ${reference.kind}`,
      );
    }
    return { upload, type: sniffed };
  }
}
