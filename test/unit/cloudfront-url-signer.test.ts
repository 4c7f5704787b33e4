/** CloudFront-signed video URLs: valid 24 h, verifiable with the public key, re-signed after expiry. */
import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CloudFrontUrlSigner } from '../../functions/adapters/storage/cloudfront-url-signer.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signer = new CloudFrontUrlSigner({
  domain: 'd111111abcdef8.cloudfront.net',
  keyPairId: 'K2JCJMDEHXQW5F',
  privateKey: async () => privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
});

/** CloudFront's URL-safe base64: + → -, = → _, / → ~. */
function fromCloudFrontBase64(text: string): Buffer {
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/'), 'base64');
}

describe('CloudFrontUrlSigner', () => {
  it('signs a canned policy that expires 24 h later and verifies with the public key', async () => {
    const now = new Date('2026-11-21T12:00:00.000Z');
    const signed = await signer.sign('videos/acme/8f0c.mp4', now);
    const url = new URL(signed.url);
    expect(url.origin + url.pathname).toBe('https://d111111abcdef8.cloudfront.net/videos/acme/8f0c.mp4');
    const expires = Number(url.searchParams.get('Expires'));
    expect(expires).toBe(now.getTime() / 1000 + 24 * 60 * 60);
    expect(signed.expiresAt).toBe('2026-11-22T12:00:00.000Z');
    expect(url.searchParams.get('Key-Pair-Id')).toBe('K2JCJMDEHXQW5F');

    const resource = `${url.origin}${url.pathname}`;
    const policy = JSON.stringify({
      Statement: [{ Resource: resource, Condition: { DateLessThan: { 'AWS:EpochTime': expires } } }],
    });
    const signature = fromCloudFrontBase64(url.searchParams.get('Signature') ?? '');
    expect(verify('RSA-SHA1', Buffer.from(policy), publicKey, signature)).toBe(true);
    // A tampered expiry no longer verifies.
    const forged = policy.replace(String(expires), String(expires + 3600));
    expect(verify('RSA-SHA1', Buffer.from(forged), publicKey, signature)).toBe(false);
  });

  it('signs again with a new expiry when asked after the first has passed', async () => {
    const first = await signer.sign('videos/a.mp4', new Date('2026-11-21T00:00:00Z'));
    const later = await signer.sign('videos/a.mp4', new Date('2026-11-22T00:00:01Z'));
    expect(Date.parse(later.expiresAt) - Date.parse(first.expiresAt)).toBe(24 * 3600 * 1000 + 1000);
    expect(later.url).not.toBe(first.url);
  });
});
