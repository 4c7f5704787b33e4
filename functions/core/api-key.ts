/** API keys: `bc_` + 32 random bytes (base64url). Only the SHA-256 hash is ever stored (docs/security.md, "API keys"). */
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'bc_';
/** One message for every key that is not ours, whatever its shape: it tells nothing about which keys exist. */
export const INVALID_API_KEY_MESSAGE =
  'invalid API key: send an active key made in the console, as Authorization: Bearer bc_…';
export const DISABLED_API_KEY_MESSAGE = 'API key is disabled: enable it in the console, or use another key';
const API_KEY_PATTERN = /^bc_[A-Za-z0-9_-]{16,128}$/;

export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function isWellFormedApiKey(key: string): boolean {
  return API_KEY_PATTERN.test(key);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
