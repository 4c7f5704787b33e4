/** Composition root for the transfer of videos into S3, each labelled as AI-generated on the way. */
import { PROVIDERS } from '../../providers/registry.js';
import { logger } from '../runtime/logger.js';
import { readEnv } from '../runtime/config.js';
import { s3Client } from '../storage/s3-client.js';
import { HttpToS3VideoTransfer } from '../storage/s3-video-storage.js';

export function videoTransfer() {
  return new HttpToS3VideoTransfer(s3Client(), readEnv('videoBucket'), {
    maxBytes: readEnv('maxVideoBytes'),
    timeoutMs: readEnv('videoDownloadTimeoutMs'),
    onUnlabelled: (key, reason) => logger.warn('a video was stored without its AI-content label', { key, reason }),
  });
}

/** The label's producer and propagator (docs/compliance.md, "The implicit label"). */
export function aigcParties() {
  return {
    // The provider's own name until its registered producer code is known (docs/compliance.md).
    producerOf: (provider: string) =>
      provider in PROVIDERS ? PROVIDERS[provider as keyof typeof PROVIDERS].label : provider,
    propagator: readEnv('aigcContentPropagator'),
  };
}
