/** Composition root for the 24 h video URL signer (no S3 client: see s3-url-signer.ts). */
import { VIDEO_BUCKET } from '../../lib/resource-definitions.js';
import type { VideoUrlSigner } from '../core/ports/video-storage.js';
import { CloudFrontUrlSigner } from './cloudfront-url-signer.js';
import { optionalEnv, requireEnv } from './config.js';
import { S3UrlSigner } from './s3-url-signer.js';
import { cachedSecret } from './secret-value.js';

/** CloudFront-signed URLs in AWS (they outlive role credentials); S3 presigned URLs where no CDN is configured. */
export function videoUrlSigner(): VideoUrlSigner {
  const domain = optionalEnv('CLOUDFRONT_DOMAIN', '');
  if (!domain) {
    const endpoint = optionalEnv('AWS_ENDPOINT_URL_S3', optionalEnv('AWS_ENDPOINT_URL', ''));
    return new S3UrlSigner({
      bucket: requireEnv(VIDEO_BUCKET.envVar),
      region: requireEnv('AWS_REGION'),
      ...(endpoint ? { endpoint } : {}),
      forcePathStyle: optionalEnv('S3_FORCE_PATH_STYLE', 'false') === 'true',
    });
  }
  return new CloudFrontUrlSigner({
    domain,
    keyPairId: requireEnv('CLOUDFRONT_KEY_PAIR_ID'),
    privateKey: cachedSecret(requireEnv('CLOUDFRONT_PRIVATE_KEY_SECRET_ARN')),
  });
}
