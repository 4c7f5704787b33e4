/**
 * Top-up codes (docs/console.md): `VGS-XXXX-XXXX-XXXX-XXXX`, 80 random bits in Crockford's base32 (no I, L, O, U to
 * misread). Only the SHA-256 of the normalised code is stored; its first 12 hex digits name it in the ledger.
 */
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const PATTERN = /^VGS([0-9A-HJKMNP-TV-Z]{16})$/;

export function generateRedeemCode(): string {
  const bytes = randomBytes(10);
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let body = '';
  for (let i = 0; i < 16; i += 1) body = ALPHABET[Number((bits >> BigInt(5 * i)) & 31n)] + body;
  return `VGS-${body.match(/.{4}/g)!.join('-')}`;
}

/** The canonical code, or undefined when the text cannot be one. */
export function normaliseRedeemCode(text: string): string | undefined {
  const compact = text.toUpperCase().replace(/[\s-]/g, '');
  return PATTERN.test(compact) ? compact : undefined;
}

export function hashRedeemCode(normalised: string): string {
  return createHash('sha256').update(normalised, 'utf8').digest('hex');
}

export function redeemCodeId(codeHash: string): string {
  return codeHash.slice(0, 12);
}
