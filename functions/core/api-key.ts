/** API keys: `bc_` + 32 random bytes (base64url). Only the SHA-256 hash is ever stored (docs/security.md, "API keys"). */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { ApiKeyRecord } from './ports/accounts.js';

export const API_KEY_PREFIX = 'bc_';
/** One message for every key that is not ours, whatever its shape: it tells nothing about which keys exist. */
export const INVALID_API_KEY_MESSAGE =
  'invalid API key: send an active key made in the console, as Authorization: Bearer bc_…';
export const DISABLED_API_KEY_MESSAGE = 'API key is disabled: enable it in the console, or use another key';
export const DELETED_API_KEY_MESSAGE = 'API key was deleted: make a new key in the console';
const API_KEY_PATTERN = /^bc_[A-Za-z0-9_-]{16,128}$/;

export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function isWellFormedApiKey(key: string): boolean {
  return API_KEY_PATTERN.test(key);
}

/**
 * What the console shows of a key so its owner can tell keys apart (docs/security.md, "API keys"): the prefix with
 * four characters and the last four, `bc_a1b2…9f3c`. The 35 characters left out still hold over 200 random bits.
 */
export function keyHint(key: string): string {
  return `${key.slice(0, API_KEY_PREFIX.length + 4)}…${key.slice(-4)}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface NewKey {
  accountId: string;
  name?: string;
  quotaUnits?: number;
  ratePerSecond?: number;
  createdAt: string;
}

/** A new active key's record, for the console and the admin CLI alike: only the key's hash is kept. */
export function newApiKeyRecord(key: string, fields: NewKey): ApiKeyRecord {
  return {
    key_hash: hashApiKey(key),
    key_id: `key_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    key_hint: keyHint(key),
    account_id: fields.accountId,
    ...(fields.name !== undefined && { name: fields.name }),
    status: 'active',
    spent_units: 0,
    created_at: fields.createdAt,
    ...(fields.quotaUnits !== undefined && {
      quota_units: fields.quotaUnits,
      quota_remaining_units: fields.quotaUnits,
    }),
    ...(fields.ratePerSecond !== undefined && { rate_per_second: fields.ratePerSecond }),
  };
}
