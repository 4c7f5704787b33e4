/**
 * Presigned S3 GET URLs (SigV4 query signing) with the SDK's signer but no S3 client: the presigner needs
 * one, which took three bundles past the 500 KiB budget (558–607 KiB). Used where no CloudFront is
 * configured (local); in AWS CloudFront-signed URLs last 24 h, while these die with the role credentials.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac } from 'node:crypto';
import type { SignedUrl, VideoUrlSigner } from '../core/ports/video-storage.js';
import { VIDEO_URL_TTL_SECONDS } from './video-url-ttl.js';

export interface S3UrlSignerOptions {
  bucket: string;
  region: string;
  /** A custom endpoint (the local emulator); absent: the bucket's regional AWS endpoint. */
  endpoint?: string;
  forcePathStyle?: boolean;
  credentials?: () => Promise<{ accessKeyId: string; secretAccessKey: string; sessionToken?: string }>;
}

/** SigV4's hash interface over node:crypto (what the SDK's Node hash does). */
class NodeSha256 {
  private readonly hash;
  constructor(secret?: unknown) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', secret as string | Uint8Array);
  }
  update(data: unknown): void {
    this.hash.update(data as string | Uint8Array);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {}
}

export class S3UrlSigner implements VideoUrlSigner {
  private readonly signer: SignatureV4;

  constructor(private readonly options: S3UrlSignerOptions) {
    this.signer = new SignatureV4({
      service: 's3',
      region: options.region,
      credentials: options.credentials ?? defaultProvider(),
      sha256: NodeSha256,
      uriEscapePath: false,
      applyChecksum: false,
    });
  }

  async sign(key: string, now: Date): Promise<SignedUrl> {
    const url = this.objectUrl(key);
    const signed = await this.signer.presign(
      {
        method: 'GET',
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port ? { port: Number(url.port) } : {}),
        path: url.pathname,
        // As the SDK's GetObject presigns it: x-id names the operation; checksum mode asks S3 for checksums.
        query: { 'x-id': 'GetObject', 'x-amz-checksum-mode': 'ENABLED' },
        headers: { host: url.host, 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' },
      },
      { expiresIn: VIDEO_URL_TTL_SECONDS, signingDate: now },
    );
    const query = new URLSearchParams(signed.query as Record<string, string>);
    return {
      url: `${url.protocol}//${url.host}${signed.path}?${query.toString()}`,
      expiresAt: new Date(now.getTime() + VIDEO_URL_TTL_SECONDS * 1000).toISOString(),
    };
  }

  private objectUrl(key: string): URL {
    const { bucket, region, endpoint } = this.options;
    const path = key.split('/').map(encodeURIComponent).join('/');
    // Virtual-hosted style unless told otherwise, or the bucket name has dots (TLS wildcard would not match).
    const pathStyle = this.options.forcePathStyle === true || bucket.includes('.');
    const base = new URL(endpoint ?? `https://s3.${region}.amazonaws.com`);
    if (pathStyle) return new URL(`${base.origin}/${bucket}/${path}`);
    return new URL(`${base.protocol}//${bucket}.${base.host}/${path}`);
  }
}
