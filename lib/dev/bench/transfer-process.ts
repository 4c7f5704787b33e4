/**
 * Child entry: one transfer of a generated video into the local bucket, in a fresh process so that its RSS is the
 * transfer's own. `ours` is HttpToS3VideoTransfer (the TransferVideo step's adapter); `plain Upload` a lib-storage
 * Upload of the same HTTP stream with the SDK defaults. RSS is sampled every 10 ms; the peak is the larger of the
 * samples and the kernel's maxRSS (never an understatement).
 */
import { HeadBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { HttpToS3VideoTransfer } from '../../../functions/adapters/storage/s3-video-storage.js';
import { childOfLocalStack, sendToParent } from '../local/forked-process.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../ship/sam-local/local-aws.js';

export type TransferJob = { mode: 'ours' | 'plain Upload'; source: string; endpoint: string; bytes: number };
export type TransferOutcome = { seconds: number; rssBeforeBytes: number; peakIncreaseBytes: number };

const job = childOfLocalStack<TransferJob>('transfer-process', () => false);
const [Bucket, Key] = ['bench', `videos/${job.mode.replace(' ', '-')}-${job.bytes}.mp4`];
const aws = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, forcePathStyle: true };
const s3 = new S3Client({ ...aws, endpoint: job.endpoint });
// fetch and the S3 client are loaded and warm before the reading the increase is measured from.
await fetch(job.source, { method: 'HEAD' });
await s3.send(new HeadBucketCommand({ Bucket }));
const rssBeforeBytes = process.memoryUsage.rss();
let peak = rssBeforeBytes;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
const started = performance.now();
if (job.mode === 'ours') {
  await new HttpToS3VideoTransfer(s3, Bucket, { maxBytes: 2 * 1024 ** 3, timeoutMs: 600_000 }).copy(job.source, Key);
} else {
  const Body = Readable.fromWeb((await fetch(job.source)).body as ReadableStream<Uint8Array>);
  await new Upload({ client: s3, params: { Bucket, Key, Body } }).done();
}
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
peak = Math.max(peak, process.resourceUsage().maxRSS * 1024);
const stored = (await s3.send(new HeadObjectCommand({ Bucket, Key }))).ContentLength;
if (stored !== job.bytes) throw new Error(`stored ${stored} of ${job.bytes} bytes`);
s3.destroy();
await sendToParent<TransferOutcome>({
  type: 'ready',
  seconds,
  rssBeforeBytes,
  peakIncreaseBytes: peak - rssBeforeBytes,
});
process.exit(0);
