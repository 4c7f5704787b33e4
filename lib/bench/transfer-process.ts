/**
 * Child entry: one transfer of one generated video into the local bucket, in a fresh process so that its
 * resident memory is its own. BENCH_TRANSFER (JSON) says which: `ours` runs the TransferVideo step's
 * adapter (HttpToS3VideoTransfer: fetch → byte counter → multipart Upload, its own part size and parts in flight);
 * `baseline` is a plain `Upload` of the same HTTP stream with the SDK's default part size and queue;
 * `download only` drains the HTTP stream and uploads nothing (a diagnostic).
 * RSS is sampled every 10 ms; the peak is the larger of the samples and the kernel's maxRSS (which may
 * include a start-up peak: never an understatement).
 */
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { HttpToS3VideoTransfer } from '../../functions/adapters/s3-video-storage.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/local-aws.js';
import { sendToParent } from './child.js';

export interface TransferJob {
  mode: 'ours' | 'baseline' | 'download only';
  sourceUrl: string;
  endpoint: string;
  bucket: string;
  key: string;
  bytes: number;
}

export interface TransferOutcome {
  type: 'done';
  mode: TransferJob['mode'];
  bytes: number;
  seconds: number;
  rssBeforeBytes: number;
  peakRssBytes: number;
  peakIncreaseBytes: number;
}

const job = JSON.parse(process.env['BENCH_TRANSFER'] ?? '{}') as TransferJob;
const s3 = new S3Client({
  endpoint: job.endpoint,
  region: LOCAL_REGION,
  credentials: LOCAL_CREDENTIALS,
  forcePathStyle: true,
});

async function baselineCopy(): Promise<number> {
  const response = await fetch(job.sourceUrl);
  let bytes = 0;
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => (bytes += chunk.length));
  await new Upload({
    client: s3,
    params: { Bucket: job.bucket, Key: job.key, Body: body, ContentType: 'video/mp4' },
  }).done();
  return bytes;
}

/** Diagnostic: the download alone (fetch, drained), to tell its memory from the upload's. */
async function downloadOnly(): Promise<number> {
  const response = await fetch(job.sourceUrl);
  let bytes = 0;
  for await (const chunk of Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)) {
    bytes += (chunk as Buffer).length;
  }
  return bytes;
}

async function ourCopy(): Promise<number> {
  const transfer = new HttpToS3VideoTransfer(s3, job.bucket, { maxBytes: 2 * 1024 ** 3, timeoutMs: 600_000 });
  return (await transfer.copy(job.sourceUrl, job.key)).bytes;
}

// Everything the copy needs is loaded and warmed (fetch, the S3 client) before the baseline reading.
await fetch(job.sourceUrl, { method: 'HEAD' });
await s3.send(new HeadBucketCommand({ Bucket: job.bucket }));
const rssBeforeBytes = process.memoryUsage.rss();
let peak = rssBeforeBytes;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 10);
const started = process.hrtime.bigint();
const bytes =
  job.mode === 'ours' ? await ourCopy() : job.mode === 'baseline' ? await baselineCopy() : await downloadOnly();
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
clearInterval(sampler);
const peakRssBytes = Math.max(peak, process.resourceUsage().maxRSS * 1024);
if (bytes !== job.bytes) throw new Error(`copied ${bytes} of ${job.bytes} bytes`);
const outcome: TransferOutcome = {
  type: 'done',
  mode: job.mode,
  bytes,
  seconds,
  rssBeforeBytes,
  peakRssBytes,
  peakIncreaseBytes: peakRssBytes - rssBeforeBytes,
};
sendToParent(outcome as unknown as Record<string, unknown>);
s3.destroy();
