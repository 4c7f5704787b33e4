/**
 * Child entry: one transfer of a generated video into the local bucket, in a fresh process so that its RSS
 * is the transfer's own. `ours` is HttpToS3VideoTransfer (the TransferVideo step's adapter); `plain Upload`
 * is a lib-storage Upload of the same HTTP stream with the SDK defaults. RSS is sampled every 10 ms; the
 * peak is the larger of the samples and the kernel's maxRSS (never an understatement).
 */
import { HeadBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { HttpToS3VideoTransfer } from '../../functions/adapters/s3-video-storage.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/local-aws.js';
import { sendToParent } from './child.js';

export interface TransferJob {
  mode: 'ours' | 'plain Upload';
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
  peakIncreaseBytes: number;
}

const job = JSON.parse(process.env['BENCH_TRANSFER'] ?? '{}') as TransferJob;
const s3 = new S3Client({
  endpoint: job.endpoint,
  region: LOCAL_REGION,
  credentials: LOCAL_CREDENTIALS,
  forcePathStyle: true,
});

async function copy(): Promise<void> {
  if (job.mode === 'ours') {
    const transfer = new HttpToS3VideoTransfer(s3, job.bucket, { maxBytes: 2 * 1024 ** 3, timeoutMs: 600_000 });
    return void (await transfer.copy(job.sourceUrl, job.key));
  }
  const body = Readable.fromWeb((await fetch(job.sourceUrl)).body as ReadableStream<Uint8Array>);
  await new Upload({ client: s3, params: { Bucket: job.bucket, Key: job.key, Body: body } }).done();
}

// fetch and the S3 client are loaded and warm before the reading the increase is measured from.
await fetch(job.sourceUrl, { method: 'HEAD' });
await s3.send(new HeadBucketCommand({ Bucket: job.bucket }));
const rssBeforeBytes = process.memoryUsage.rss();
let peak = rssBeforeBytes;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
const started = performance.now();
await copy();
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
peak = Math.max(peak, process.resourceUsage().maxRSS * 1024);
const bytes = (await s3.send(new HeadObjectCommand({ Bucket: job.bucket, Key: job.key }))).ContentLength;
if (bytes !== job.bytes) throw new Error(`stored ${bytes} of ${job.bytes} bytes`);
const outcome: TransferOutcome = {
  type: 'done',
  mode: job.mode,
  bytes,
  seconds,
  rssBeforeBytes,
  peakIncreaseBytes: peak - rssBeforeBytes,
};
sendToParent(outcome as unknown as Record<string, unknown>);
s3.destroy();
