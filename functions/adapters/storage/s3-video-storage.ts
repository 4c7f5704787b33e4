/** Videos streamed from the upstream into S3 with multipart Upload. */
import type { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { pipeline, Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { labelMp4Stream } from '../../core/mp4-label/index.js';
import type { AigcLabel } from '../../core/mp4-label/index.js';
import type { TransferResult, VideoTransfer } from '../../core/ports/video-storage.js';
import { VideoDownloadInterruptedError, VideoRejectedError } from '../../core/workflow-errors.js';

// S3's minimum part size; with 2 parts in flight the transfer holds ~10 MiB of body at most. Three measured
// no faster locally (the download is the bottleneck in AWS too) and peaked about 15 MiB higher.
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

export interface TransferOptions {
  maxBytes: number;
  /** How long the whole download may take before it counts as broken. */
  timeoutMs: number;
  /** Told of a file that went on unlabelled, and why (it is stored all the same: the video is the customer's). */
  onUnlabelled?: (key: string, reason: string) => void;
}

/** Memory stays bounded by QUEUE_SIZE × PART_SIZE whatever the file size: the body is never buffered whole. */
export class HttpToS3VideoTransfer implements VideoTransfer {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly options: TransferOptions,
  ) {}

  async copy(sourceUrl: string, key: string, label?: AigcLabel): Promise<TransferResult> {
    const response = await this.download(sourceUrl);
    const contentType = checkedContentType(response);
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > this.options.maxBytes) {
      await response.body?.cancel();
      throw new VideoRejectedError(`the video is larger than ${this.options.maxBytes} bytes`);
    }
    const counter = new ByteCounter(this.options.maxBytes);
    // pipeline, not pipe: a download that breaks must fail the upload (pipe would leave it waiting forever).
    const downloaded = pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), counter, () => {});
    // The label is written as the file streams (docs/compliance.md): a file it cannot label goes on as it was.
    let written: AigcLabel | undefined;
    const body = label
      ? Readable.from(
          labelMp4Stream(downloaded, label, {
            unlabellable: 'pass-through',
            onLabelled: (final) => (written = final),
            onUnlabelled: (error) => this.options.onUnlabelled?.(key, error.message),
          }),
        )
      : downloaded;
    const upload = new Upload({
      client: this.s3,
      params: { Bucket: this.bucket, Key: key, Body: body, ContentType: contentType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      if (counter.tooLarge) throw new VideoRejectedError(`the video is larger than ${this.options.maxBytes} bytes`);
      throw new VideoDownloadInterruptedError(`download of the video broke off: ${(error as Error).message}`);
    }
    if (Number.isFinite(declared) && counter.bytes !== declared) {
      throw new VideoDownloadInterruptedError(`received ${counter.bytes} of ${declared} bytes`);
    }
    return { bytes: counter.bytes, contentType, ...(written && { label: written }) };
  }

  private async download(sourceUrl: string): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(sourceUrl, { signal: AbortSignal.timeout(this.options.timeoutMs), redirect: 'follow' });
    } catch (error) {
      throw new VideoDownloadInterruptedError(`could not fetch the video: ${(error as Error).message}`);
    }
    if (response.status >= 500 || response.status === 429) {
      throw new VideoDownloadInterruptedError(`the video host answered ${response.status}`);
    }
    if (!response.ok || !response.body) throw new VideoRejectedError(`the video host answered ${response.status}`);
    return response;
  }
}

function checkedContentType(response: Response): string {
  const type = (response.headers.get('content-type') ?? 'application/octet-stream').split(';')[0]?.trim() ?? '';
  if (type.startsWith('video/')) return type;
  if (type === 'application/octet-stream' || type === 'binary/octet-stream') return 'video/mp4';
  throw new VideoRejectedError(`the generated file is not a video (content-type ${type})`);
}

class ByteCounter extends Transform {
  bytes = 0;
  tooLarge = false;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(
    chunk: Buffer,
    _encoding: BufferEncoding,
    callback: (error?: Error | null, data?: Buffer) => void,
  ) {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      this.tooLarge = true;
      callback(new Error('size cap exceeded'));
      return;
    }
    callback(null, chunk);
  }
}
