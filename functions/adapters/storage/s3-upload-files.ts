/**
 * Upload files to and from local disk, for ffmpeg (PrepareInputs), through presigned URLs and fetch rather
 * than the S3 client, which took the function's bundle past its 500 KiB budget (575 KiB).
 */
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { S3UrlSigner } from './s3-url-signer.js';

/** Each URL is used at once, by the request that follows its signing. */
const URL_TTL_SECONDS = 300;

export class S3UploadFiles {
  constructor(
    private readonly signer: S3UrlSigner,
    private readonly timeoutMs: number,
  ) {}

  async download(key: string, path: string): Promise<void> {
    const response = await fetch(await this.url(key), { signal: AbortSignal.timeout(this.timeoutMs) });
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new Error(`reading ${key} answered ${response.status}`);
    }
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), createWriteStream(path));
  }

  /** The file whole in memory: an upload's transcode is at most a few times its 50 MB. */
  async upload(path: string, key: string, contentType: string): Promise<void> {
    const body = await readFile(path);
    const url = await this.signer.signPut(
      key,
      { contentType, size: body.length },
      { expiresInSeconds: URL_TTL_SECONDS, now: new Date() },
    );
    const response = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': contentType },
      body,
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`writing ${key} answered ${response.status}`);
  }

  async exists(key: string): Promise<boolean> {
    const response = await fetch(await this.url(key), {
      headers: { range: 'bytes=0-0' },
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    await response.body?.cancel();
    if (response.status === 404) return false;
    // 416: the object exists and is empty.
    if (response.ok || response.status === 416) return true;
    throw new Error(`looking for ${key} answered ${response.status}`);
  }

  private async url(key: string): Promise<string> {
    return (await this.signer.sign(key, new Date(), URL_TTL_SECONDS)).url;
  }
}
