/**
 * The light S3 URL signer (no S3 client in the bundle) signs exactly as the SDK's own presigner does:
 * same request, same credentials, same date → the same signature, for AWS and for a custom endpoint.
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { S3UrlSigner } from '../../functions/adapters/storage/s3-url-signer.js';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session/token+=',
};
const NOW = new Date('2026-11-21T12:00:00.000Z');

function signatureOf(url: string) {
  const parsed = new URL(url);
  return {
    origin: parsed.origin,
    path: parsed.pathname,
    credential: parsed.searchParams.get('X-Amz-Credential'),
    expires: parsed.searchParams.get('X-Amz-Expires'),
    token: parsed.searchParams.get('X-Amz-Security-Token'),
    payload: parsed.searchParams.get('X-Amz-Content-Sha256'),
  };
}

async function official(config: ConstructorParameters<typeof S3Client>[0], bucket: string, key: string) {
  const s3 = new S3Client({ ...config, credentials });
  return getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: 86_400, signingDate: NOW });
}

describe('S3UrlSigner', () => {
  it.each([
    ['AWS, virtual-hosted', 'vgs-videos-123456789012-ap', { region: 'ap-southeast-1' }, {}],
    // TLS wildcard certificates do not cover a dotted bucket's host: the SDK goes path style, and so must we.
    ['AWS, a bucket name with dots (path style)', 'vgs.videos.example', { region: 'eu-west-1' }, {}],
    [
      'a custom endpoint, path style',
      'vgs-videos-123456789012-ap',
      { region: 'us-east-1', endpoint: 'http://127.0.0.1:4566', forcePathStyle: true },
      { endpoint: 'http://127.0.0.1:4566', forcePathStyle: true },
    ],
  ])('signs like the SDK presigner (%s)', async (_name, bucket, sdkConfig, ours) => {
    const key = 'videos/acme/a b+c.mp4';
    const expected = await official(sdkConfig, bucket, key);
    const signer = new S3UrlSigner({ bucket, region: sdkConfig.region, credentials: async () => credentials, ...ours });
    const signed = await signer.sign(key, NOW);
    const sorted = (url: string) => {
      const parsed = new URL(url);
      parsed.searchParams.sort();
      return parsed.toString();
    };
    expect(sorted(signed.url)).toBe(sorted(expected));
    expect(signatureOf(signed.url)).toEqual(signatureOf(expected));
    expect(signed.expiresAt).toBe('2026-11-22T12:00:00.000Z');
  });
});

describe('S3UrlSigner.signPut (upload URLs)', () => {
  it.each([
    ['AWS, virtual-hosted', 'vgs-videos-123456789012-ap', { region: 'ap-southeast-1' }, {}],
    [
      'a custom endpoint, path style',
      'vgs-videos-123456789012-ap',
      { region: 'us-east-1', endpoint: 'http://127.0.0.1:4566', forcePathStyle: true },
      { endpoint: 'http://127.0.0.1:4566', forcePathStyle: true },
    ],
  ])('signs Content-Type and Content-Length like the SDK presigner (%s)', async (_name, bucket, sdkConfig, ours) => {
    const key = 'uploads/acme/0f8fad5b-d9cb-469f-a165-70867728950e';
    // No flexible checksum: the SDK would sign a CRC32 of an empty body, which a real upload then fails.
    const s3 = new S3Client({ ...sdkConfig, credentials, requestChecksumCalculation: 'WHEN_REQUIRED' });
    const expected = await getSignedUrl(
      s3,
      new PutObjectCommand({ Bucket: bucket, Key: key, ContentType: 'image/png', ContentLength: 1234 }),
      { expiresIn: 900, signingDate: NOW, signableHeaders: new Set(['content-type', 'content-length']) },
    );
    const signer = new S3UrlSigner({ bucket, region: sdkConfig.region, credentials: async () => credentials, ...ours });
    const signed = await signer.signPut(
      key,
      { contentType: 'image/png', size: 1234 },
      { expiresInSeconds: 900, now: NOW },
    );
    const sorted = (url: string) => {
      const parsed = new URL(url);
      parsed.searchParams.sort();
      return parsed.toString();
    };
    expect(sorted(signed)).toBe(sorted(expected));
    expect(new URL(signed).searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    expect(new URL(signed).searchParams.get('X-Amz-Expires')).toBe('900');
  });

  it('a different byte count or type gives a different signature (S3 would refuse the PUT)', async () => {
    const signer = new S3UrlSigner({ bucket: 'b', region: 'us-east-1', credentials: async () => credentials });
    const options = { expiresInSeconds: 900, now: NOW };
    const signature = (url: string) => new URL(url).searchParams.get('X-Amz-Signature');
    const base = await signer.signPut('uploads/a/x', { contentType: 'image/png', size: 10 }, options);
    const larger = await signer.signPut('uploads/a/x', { contentType: 'image/png', size: 11 }, options);
    const other = await signer.signPut('uploads/a/x', { contentType: 'image/jpeg', size: 10 }, options);
    expect(new Set([signature(base), signature(larger), signature(other)]).size).toBe(3);
  });

  it('GETs for the upstream last as long as asked (an upload’s remaining life)', async () => {
    const signer = new S3UrlSigner({ bucket: 'b', region: 'us-east-1', credentials: async () => credentials });
    const signed = await signer.sign('uploads/a/x', NOW, 172_800);
    expect(new URL(signed.url).searchParams.get('X-Amz-Expires')).toBe('172800');
    expect(signed.expiresAt).toBe('2026-11-23T12:00:00.000Z');
  });
});
