/**
 * Presigned S3 URLs (SigV4 query signing) with the SDK's signer but no S3 client: the presigner needs one,
 * which took three bundles past the 500 KiB budget (558–607 KiB). GETs where no CloudFront is configured
 * (local; in AWS CloudFront-signed URLs last 24 h, these die with the role credentials); upload PUTs.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac } from 'node:crypto';
import type { SignedUrl, VideoUrlSigner } from '../../core/ports/video-storage.js';
import { readEnv } from '../runtime/config.js';
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
export class NodeSha256 {
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

  /** A GET of `key`, valid `expiresInSeconds` (24 h for videos; an upload's remaining life for the upstream). */
  async sign(key: string, now: Date, expiresInSeconds = VIDEO_URL_TTL_SECONDS): Promise<SignedUrl> {
    // As the SDK's GetObject presigns it: x-id names the operation; checksum mode asks S3 for checksums.
    const url = await this.presign(
      'GET',
      key,
      { 'x-id': 'GetObject', 'x-amz-checksum-mode': 'ENABLED' },
      {},
      { expiresInSeconds, now },
    );
    return { url, expiresAt: new Date(now.getTime() + expiresInSeconds * 1000).toISOString() };
  }

  /**
   * A PUT of `key` that S3 accepts only with this Content-Type and exactly `size` bytes: both headers are
   * signed (X-Amz-SignedHeaders), and S3 refuses a request whose signed headers differ (SignatureDoesNotMatch).
   */
  async signPut(
    key: string,
    headers: { contentType: string; size: number },
    options: { expiresInSeconds: number; now: Date },
  ): Promise<string> {
    return this.presign(
      'PUT',
      key,
      { 'x-id': 'PutObject' },
      { 'content-type': headers.contentType, 'content-length': String(headers.size) },
      options,
    );
  }

  /** A DELETE of `key` (a video its owner deleted: docs/openai-videos.md, "Delete"). */
  async signDelete(key: string, options: { expiresInSeconds: number; now: Date }): Promise<string> {
    return this.presign('DELETE', key, { 'x-id': 'DeleteObject' }, {}, options);
  }

  private async presign(
    method: 'GET' | 'PUT' | 'DELETE',
    key: string,
    query: Record<string, string>,
    headers: Record<string, string>,
    options: { expiresInSeconds: number; now: Date },
  ): Promise<string> {
    const url = this.objectUrl(key);
    const signed = await this.signer.presign(
      {
        method,
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port ? { port: Number(url.port) } : {}),
        path: url.pathname,
        query,
        headers: { host: url.host, 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD', ...headers },
      },
      { expiresIn: options.expiresInSeconds, signingDate: options.now },
    );
    const signedQuery = new URLSearchParams(signed.query as Record<string, string>);
    return `${url.protocol}//${url.host}${signed.path}?${signedQuery.toString()}`;
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

/** Signs S3 requests with the function's own credentials (the endpoint and path style of the local stack). */
export function s3UrlSigner(): S3UrlSigner {
  const endpoint = readEnv('s3Endpoint') || readEnv('awsEndpoint');
  return new S3UrlSigner({
    bucket: readEnv('videoBucket'),
    region: readEnv('region'),
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: readEnv('s3ForcePathStyle'),
  });
}
