/** Bearer `bc_` key → the calling account, then the key's rate limit (spec §5, DESIGN §3 row 16). */
import { AuthenticationError, RateLimitedError } from '../api-error.js';
import { API_KEY_PREFIX, hashApiKey, isWellFormedApiKey } from '../api-key.js';
import type { ApiKeyRecord, ApiKeyRepository } from '../ports/accounts.js';
import type { RateLimiter } from '../ports/rate-limiter.js';

export interface Caller {
  accountId: string;
  keyHash: string;
  keyHasQuota: boolean;
}

export interface AuthenticateDeps {
  keys: ApiKeyRepository;
  limiter: RateLimiter;
  defaultRatePerSecond: number;
}

export interface AuthenticateOptions {
  /** Read the key's stored record, not a recent copy: for routes that move money without checking the key again. */
  freshKey?: boolean;
}

export async function authenticate(
  authorization: string | undefined,
  deps: AuthenticateDeps,
  options: AuthenticateOptions = {},
): Promise<Caller> {
  const keyHash = hashApiKey(bearerToken(authorization));
  const record = activeKey(await deps.keys.findByHash(keyHash, { fresh: options.freshKey ?? false }));
  // Only a valid key is counted, against its own limit; most requests are admitted without a storage call.
  const decision = await deps.limiter.acquire(keyHash, record.rate_per_second ?? deps.defaultRatePerSecond);
  if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds);
  return callerOf(record);
}

/** The caller again, from the key's stored record: when a write found the copy it was given out of date. */
export async function reauthenticate(caller: Caller, keys: ApiKeyRepository): Promise<Caller> {
  return callerOf(activeKey(await keys.findByHash(caller.keyHash, { fresh: true })));
}

function activeKey(record: ApiKeyRecord | undefined): ApiKeyRecord {
  if (!record) throw new AuthenticationError('invalid API key');
  if (record.status !== 'active') throw new AuthenticationError('API key is disabled');
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
  if (!match) throw new AuthenticationError('Authorization header must be "Bearer <API key>"');
  const key = match[1] as string;
  if (!key.startsWith(API_KEY_PREFIX) || !isWellFormedApiKey(key)) {
    throw new AuthenticationError(`invalid API key: keys begin with ${API_KEY_PREFIX}`);
  }
  return key;
}
