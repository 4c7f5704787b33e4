/** Composition root for the transfer of videos into S3. */
import { readEnv } from '../runtime/config.js';
import { s3Client } from '../storage/s3-client.js';
import { HttpToS3VideoTransfer } from '../storage/s3-video-storage.js';

export function videoTransfer() {
  return new HttpToS3VideoTransfer(s3Client(), readEnv('videoBucket'), {
    maxBytes: readEnv('maxVideoBytes'),
    timeoutMs: readEnv('videoDownloadTimeoutMs'),
  });
}
