/**
 * Upload objects in the video bucket. The API side (upload URLs, the submit's check) goes through presigned
 * URLs and fetch, never the S3 client: the submit's bundle stays inside its 500 KiB. The check reads the
 * object's first bytes with one ranged GET, whose Content-Range gives the stored size (HeadObject's answer).
 */
import { sniffMediaType } from '../../core/media-type.js';
import type { PresignedUpload, StoredObject, UploadStorage } from '../../core/ports/uploads.js';
import type { UploadContentType } from '../../core/uploads.js';
import type { S3UrlSigner } from './s3-url-signer.js';

/** sniffMediaType needs 16; a few more cost nothing. */
const SNIFF_BYTES = 64;
const READ_TIMEOUT_MS = 5_000;
/** A few MiB from inside the region. */
const WRITE_TIMEOUT_MS = 10_000;
/** Long enough for the one ranged GET that follows the signing. */
const CHECK_URL_TTL_SECONDS = 60;

export class S3UploadStorage implements UploadStorage {
  constructor(private readonly signer: S3UrlSigner) {}

  async presignPut(
    key: string,
    contentType: UploadContentType,
    size: number,
    expiresInSeconds: number,
    now: Date,
  ): Promise<PresignedUpload> {
    const url = await this.signer.signPut(key, { contentType, size }, { expiresInSeconds, now });
    return { url, method: 'PUT', headers: { 'Content-Type': contentType, 'Content-Length': String(size) } };
  }

  /** One PUT through a URL signed for it, as a customer's upload arrives: no S3 client in the bundle. */
  async put(key: string, bytes: Uint8Array, contentType: UploadContentType): Promise<void> {
    const now = new Date();
    const url = await this.signer.signPut(
      key,
      { contentType, size: bytes.length },
      { expiresInSeconds: CHECK_URL_TTL_SECONDS, now },
    );
    const response = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': contentType, 'content-length': String(bytes.length) },
      body: bytes,
      signal: AbortSignal.timeout(WRITE_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`storing upload ${key} answered ${response.status}`);
  }

  async inspect(key: string): Promise<StoredObject | undefined> {
    const { url } = await this.signer.sign(key, new Date(), CHECK_URL_TTL_SECONDS);
    const response = await fetch(url, {
      headers: { range: `bytes=0-${SNIFF_BYTES - 1}` },
      signal: AbortSignal.timeout(READ_TIMEOUT_MS),
    });
    // 404 NoSuchKey (the function may list the uploads prefix, so a missing key is not a 403).
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    // 416: a range of an empty object.
    if (response.status === 416) {
      await response.body?.cancel();
      return { size: 0, sniffedType: undefined };
    }
    if (response.status !== 200 && response.status !== 206) {
      await response.body?.cancel();
      throw new Error(`reading upload ${key} answered ${response.status}`);
    }
    const head = await firstBytes(response, SNIFF_BYTES);
    const total = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1];
    const size = Number(total ?? response.headers.get('content-length') ?? Number.NaN);
    if (!Number.isSafeInteger(size)) throw new Error(`reading upload ${key} gave no size`);
    return { size, sniffedType: sniffMediaType(head) };
  }
}

/** At most `limit` bytes of the body; the rest (a server that ignored the range) is never read. */
async function firstBytes(response: Response, limit: number): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = response.body.getReader();
  while (length < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.length;
  }
  await reader.cancel();
  return Buffer.concat(chunks).subarray(0, limit);
}
