/** Composition root for video storage: the transfer into S3 and the 24 h URL signer. */
import { VIDEO_BUCKET } from '../../lib/resource-definitions.js';
import type { VideoUrlSigner } from '../core/ports/video-storage.js';
import { CloudFrontUrlSigner } from './cloudfront-url-signer.js';
import { optionalEnv, positiveIntegerEnv, requireEnv } from './config.js';
import { s3Client } from './s3-client.js';
import { HttpToS3VideoTransfer, S3PresignedUrlSigner } from './s3-video-storage.js';
import { cachedSecret } from './secret-value.js';

const DEFAULT_MAX_VIDEO_BYTES = 2 * 1024 * 1024 * 1024;

/** CloudFront-signed URLs in AWS (they outlive role credentials); S3 presigned URLs where no CDN is configured. */
export function videoUrlSigner(): VideoUrlSigner {
  const domain = optionalEnv('CLOUDFRONT_DOMAIN', '');
  if (!domain) return new S3PresignedUrlSigner(s3Client(), requireEnv(VIDEO_BUCKET.envVar));
  return new CloudFrontUrlSigner({
    domain,
    keyPairId: requireEnv('CLOUDFRONT_KEY_PAIR_ID'),
    privateKey: cachedSecret(requireEnv('CLOUDFRONT_PRIVATE_KEY_SECRET_ARN')),
  });
}

export function videoTransfer() {
  return new HttpToS3VideoTransfer(s3Client(), requireEnv(VIDEO_BUCKET.envVar), {
    maxBytes: positiveIntegerEnv('MAX_VIDEO_BYTES', DEFAULT_MAX_VIDEO_BYTES),
    timeoutMs: positiveIntegerEnv('VIDEO_DOWNLOAD_TIMEOUT_MS', 10 * 60 * 1000),
  });
}
