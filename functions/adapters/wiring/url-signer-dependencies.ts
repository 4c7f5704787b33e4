/** Composition root for the 24 h video URL signer (no S3 client: see s3-url-signer.ts). */
import type { VideoUrlSigner } from '../../core/ports/video-storage.js';
import { CloudFrontUrlSigner } from '../storage/cloudfront-url-signer.js';
import { readEnv } from '../runtime/config.js';
import { s3UrlSigner } from '../storage/s3-url-signer.js';
import { cachedSecret } from '../runtime/secret-value.js';

/** CloudFront-signed URLs in AWS (they outlive role credentials); S3 presigned URLs where no CDN is configured. */
export function videoUrlSigner(): VideoUrlSigner {
  const domain = readEnv('cloudFrontDomain');
  if (!domain) return s3UrlSigner();
  return new CloudFrontUrlSigner({
    domain,
    keyPairId: readEnv('cloudFrontKeyPairId'),
    privateKey: cachedSecret(readEnv('cloudFrontPrivateKeySecretArn')),
  });
}

/** Days the storage policy keeps a finished video, or undefined when it keeps them (docs/operations.md). */
export function videoRetentionDays(): number | undefined {
  const days = readEnv('videoRetentionDays');
  return days === '' ? undefined : days;
}
