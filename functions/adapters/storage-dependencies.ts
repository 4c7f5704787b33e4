/** Composition root for the transfer of videos into S3. */
import { VIDEO_BUCKET } from '../../lib/resource-definitions.js';
import { positiveIntegerEnv, requireEnv } from './config.js';
import { s3Client } from './s3-client.js';
import { HttpToS3VideoTransfer } from './s3-video-storage.js';

const DEFAULT_MAX_VIDEO_BYTES = 2 * 1024 * 1024 * 1024;

export function videoTransfer() {
  return new HttpToS3VideoTransfer(s3Client(), requireEnv(VIDEO_BUCKET.envVar), {
    maxBytes: positiveIntegerEnv('MAX_VIDEO_BYTES', DEFAULT_MAX_VIDEO_BYTES),
    timeoutMs: positiveIntegerEnv('VIDEO_DOWNLOAD_TIMEOUT_MS', 10 * 60 * 1000),
  });
}
