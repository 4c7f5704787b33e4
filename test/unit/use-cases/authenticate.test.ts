/** authenticate: a Bearer `bc_` key → the caller; the key's record and its rate count read together. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../../../functions/core/api-error.js';
import { AuthenticationError, RateLimitedError } from '../../../functions/core/api-error.js';
import { DISABLED_API_KEY_MESSAGE, hashApiKey, INVALID_API_KEY_MESSAGE } from '../../../functions/core/api-key.js';
import type { ApiKeyRecord } from '../../../functions/core/ports/accounts.js';
import { authenticate } from '../../../functions/core/use-cases/authenticate.js';
import { ACCOUNT } from '../../support/task-records.js';
import { apiKeyRecord, FakeLimiter, InMemoryKeys } from '../fakes.js';
import { rejection } from '../support.js';

describe('authenticate', () => {
  const KEY = `bc_${'A1b2_C3d4-'.repeat(4)}`;
  const DISABLED = `bc_${'z'.repeat(43)}`;
  const UNKNOWN = `bc_${'q'.repeat(43)}`;

  function keyRecord(key: string, fields: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
    return apiKeyRecord({ key_hash: hashApiKey(key), key_id: `id-${key.slice(3, 8)}`, ...fields });
  }

  let keys: InMemoryKeys;
  let limiter: FakeLimiter;
  const run = (authorization: string | undefined) =>
    authenticate(authorization, { keys, limiter, defaultRatePerSecond: 10 });

  beforeEach(() => {
    keys = new InMemoryKeys([keyRecord(KEY), keyRecord(DISABLED, { status: 'disabled' })]);
    limiter = new FakeLimiter();
  });

  it('returns the caller: account, key hash and whether the key has a quota', async () => {
    await expect(run(`Bearer ${KEY}`)).resolves.toEqual({
      accountId: ACCOUNT,
      keyHash: hashApiKey(KEY),
      keyHasQuota: false,
    });
  });

  it('a key with a quota is marked so', async () => {
    keys = new InMemoryKeys([keyRecord(KEY, { quota_units: 100_000, quota_remaining_units: 50_000 })]);
    expect((await run(`Bearer ${KEY}`)).keyHasQuota).toBe(true);
  });

  it('looks the key up by its SHA-256 hash, never by the plaintext', async () => {
    await run(`Bearer ${KEY}`);
    expect(keys.lookups).toEqual([hashApiKey(KEY)]);
    expect(keys.lookups[0]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads the stored key on every request (a key disabled a moment ago is refused at once)', async () => {
    await run(`Bearer ${KEY}`);
    await run(`Bearer ${KEY}`);
    expect(keys.lookups).toEqual([hashApiKey(KEY), hashApiKey(KEY)]);
  });

  it.each([`bearer ${KEY}`, `BEARER ${KEY}`, `Bearer   ${KEY}  `])('accepts the scheme spelled %j', async (header) => {
    expect((await run(header)).accountId).toBe(ACCOUNT);
  });

  const failures: [string, string | undefined, string][] = [
    ['missing header', undefined, 'missing API key: send Authorization: Bearer bc_…'],
    ['empty header', '', 'missing API key: send Authorization: Bearer bc_…'],
    ['no scheme', KEY, 'Authorization header must be "Bearer bc_…" with your API key'],
    ['Basic scheme', `Basic ${KEY}`, 'Authorization header must be "Bearer bc_…" with your API key'],
    ['Bearer without a key', 'Bearer', 'Authorization header must be "Bearer bc_…" with your API key'],
    ['two tokens', `Bearer ${KEY} extra`, 'Authorization header must be "Bearer bc_…" with your API key'],
    ['not a bc_ key', `Bearer sk_${'a'.repeat(40)}`, INVALID_API_KEY_MESSAGE],
    ['a bc_ key too short', 'Bearer bc_short', INVALID_API_KEY_MESSAGE],
    ['a bc_ key with bad characters', `Bearer bc_${'a'.repeat(20)}!`, INVALID_API_KEY_MESSAGE],
    ['an unknown key', `Bearer ${UNKNOWN}`, INVALID_API_KEY_MESSAGE],
    ['a disabled key', `Bearer ${DISABLED}`, DISABLED_API_KEY_MESSAGE],
  ];

  it.each(failures)('%s → 401', async (_label, header, message) => {
    const error = await rejection(run(header));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as ApiError).code).toBe(401);
    expect(error.message).toBe(message);
  });

  it('four causes, four messages: a key that is not ours gets one, whatever its shape', () => {
    expect(new Set(failures.map(([, , message]) => message)).size).toBe(4);
  });

  it('a malformed header never reaches the storage (no key lookup, no counter)', async () => {
    for (const header of [undefined, 'Basic abc', 'Bearer sk_not_ours']) await rejection(run(header));
    expect(limiter.calls).toEqual([]);
  });

  it('an unknown or disabled key is refused (401) whatever its count: the key decides first', async () => {
    for (const key of [UNKNOWN, DISABLED]) {
      limiter.counts.set(hashApiKey(key), 1_000);
      expect(await rejection(run(`Bearer ${key}`))).toBeInstanceOf(AuthenticationError);
    }
  });

  it('rate limited → RateLimitedError (429) with the seconds to wait', async () => {
    limiter.counts.set(hashApiKey(KEY), 10);
    limiter.retryAfterSeconds = 7;
    const error = await rejection(run(`Bearer ${KEY}`));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).code).toBe(429);
    expect((error as RateLimitedError).retryAfterSeconds).toBe(7);
  });

  it("limits by key hash at the key's own rate, or the service default", async () => {
    const FAST = `bc_${'f'.repeat(43)}`;
    keys = new InMemoryKeys([keyRecord(KEY), keyRecord(FAST, { rate_per_second: 50 })]);
    for (let i = 0; i < 10; i += 1) await run(`Bearer ${KEY}`);
    await expect(run(`Bearer ${KEY}`)).rejects.toBeInstanceOf(RateLimitedError);
    for (let i = 0; i < 50; i += 1) await run(`Bearer ${FAST}`);
    await expect(run(`Bearer ${FAST}`)).rejects.toBeInstanceOf(RateLimitedError);
    expect(limiter.calls[0]).toBe(hashApiKey(KEY));
    expect(limiter.calls.at(-1)).toBe(hashApiKey(FAST));
  });
});
