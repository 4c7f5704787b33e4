/**
 * 24-hour video URLs in AWS (docs/security.md, "Video URLs"). An S3 presigned URL dies with the temporary role
 * credentials that signed it (often within hours), so in AWS videos are served by CloudFront with
 * Origin Access Control and the URL is signed with a CloudFront key pair, which does not expire.
 */
import { getSignedUrl } from '@aws-sdk/cloudfront-signer';
import type { SignedUrl, VideoUrlSigner } from '../../core/ports/video-storage.js';
import { VIDEO_URL_TTL_SECONDS } from './video-url-ttl.js';

export interface CloudFrontSignerOptions {
  /** The distribution's domain, e.g. d111111abcdef8.cloudfront.net. */
  domain: string;
  /** The id of the public key in the distribution's trusted key group. */
  keyPairId: string;
  /** PEM of the private key (read from Secrets Manager). */
  privateKey: () => Promise<string>;
}

export class CloudFrontUrlSigner implements VideoUrlSigner {
  constructor(private readonly options: CloudFrontSignerOptions) {}

  async sign(key: string, now: Date, expiresInSeconds = VIDEO_URL_TTL_SECONDS): Promise<SignedUrl> {
    const expires = new Date(now.getTime() + expiresInSeconds * 1000);
    const path = key.split('/').map(encodeURIComponent).join('/');
    const url = getSignedUrl({
      url: `https://${this.options.domain}/${path}`,
      keyPairId: this.options.keyPairId,
      privateKey: await this.options.privateKey(),
      dateLessThan: expires.toISOString(),
    });
    return { url, expiresAt: expires.toISOString() };
  }
}
