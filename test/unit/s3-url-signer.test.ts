/**
 * The light S3 URL signer (no S3 client in the bundle) signs exactly as the SDK's own presigner does:
 * same request, same credentials, same date → the same signature, for AWS and for a custom endpoint.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { S3UrlSigner } from '../../functions/adapters/s3-url-signer.js';

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
