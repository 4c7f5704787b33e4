/**
 * Bearer `bc_` key → the calling account (docs/security.md, "API keys"; docs/api-contract.md, "Rate limits"). The key's stored record and
 * its rate count are read in parallel, one round trip; every request reads the key, so a disabled key is
 * refused on its very next request in every instance.
 */
import { AuthenticationError, RateLimitedError } from '../api-error.js';
import {
  API_KEY_PREFIX,
  DELETED_API_KEY_MESSAGE,
  DISABLED_API_KEY_MESSAGE,
  hashApiKey,
  INVALID_API_KEY_MESSAGE,
  isWellFormedApiKey,
} from '../api-key.js';
import type { ApiKeyRecord, ApiKeyRepository } from '../ports/accounts.js';
import type { RateLimiter } from '../ports/rate-limiter.js';

export interface Caller {
  accountId: string;
  keyHash: string;
  keyHasQuota: boolean;
}

/** What the read-only use cases need of a caller: a `bc_` key's or a console sign-in's account. */
export type AccountCaller = Pick<Caller, 'accountId'>;

export interface AuthenticateDeps {
  keys: ApiKeyRepository;
  limiter: RateLimiter;
  defaultRatePerSecond: number;
}

export async function authenticate(authorization: string | undefined, deps: AuthenticateDeps): Promise<Caller> {
  const keyHash = hashApiKey(bearerToken(authorization));
  const [stored, window] = await Promise.allSettled([deps.keys.findByHash(keyHash), deps.limiter.hit(keyHash)]);
  // The key decides first: an unknown or disabled key is a 401 whatever its count.
  if (stored.status === 'rejected') throw stored.reason;
  const record = activeKey(stored.value);
  if (window.status === 'rejected') throw window.reason;
  if (window.value.count > (record.rate_per_second ?? deps.defaultRatePerSecond)) {
    throw new RateLimitedError(window.value.retryAfterSeconds);
  }
  return callerOf(record);
}

/** The caller again, from the key's stored record: when the charge found the key changed since it was read. */
export async function reauthenticate(caller: Caller, keys: ApiKeyRepository): Promise<Caller> {
  return callerOf(activeKey(await keys.findByHash(caller.keyHash)));
}

function activeKey(record: ApiKeyRecord | undefined): ApiKeyRecord {
  if (!record) throw new AuthenticationError(INVALID_API_KEY_MESSAGE);
  if (record.status === 'deleted') throw new AuthenticationError(DELETED_API_KEY_MESSAGE);
  if (record.status !== 'active') throw new AuthenticationError(DISABLED_API_KEY_MESSAGE);
  return record;
}

function callerOf(record: ApiKeyRecord): Caller {
  // The field the charge's transaction checks and moves (not quota_units, the cap as set): the two agree.
  return {
    accountId: record.account_id,
    keyHash: record.key_hash,
    keyHasQuota: record.quota_remaining_units !== undefined,
  };
}

function bearerToken(authorization: string | undefined): string {
  if (!authorization) throw new AuthenticationError('missing API key: send Authorization: Bearer bc_…');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw new AuthenticationError('Authorization header must be "Bearer bc_…" with your API key');
  const key = match[1] as string;
  if (!key.startsWith(API_KEY_PREFIX) || !isWellFormedApiKey(key))
    throw new AuthenticationError(INVALID_API_KEY_MESSAGE);
  return key;
}
