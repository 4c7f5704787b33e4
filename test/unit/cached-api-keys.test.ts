import { beforeEach, describe, expect, it } from 'vitest';
import { CachedApiKeyRepository } from '../../functions/adapters/cached-api-keys.js';
import type { ApiKeyRecord } from '../../functions/core/ports/accounts.js';
import { InMemoryKeys } from './fakes.js';

function key(hash: string, fields: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    key_hash: hash,
    key_id: `id-${hash}`,
    account_id: 'acct',
    status: 'active',
    spent_units: 0,
    created_at: '2026-11-01T00:00:00.000Z',
    ...fields,
  };
}

describe('CachedApiKeyRepository', () => {
  let records: ApiKeyRecord[];
  let stored: InMemoryKeys;
  let clock: { ms: number; now(): number };
  let keys: CachedApiKeyRepository;

  beforeEach(() => {
    records = [key('a'), key('off', { status: 'disabled' })];
    stored = new InMemoryKeys(records);
    clock = { ms: 1_000, now: () => clock.ms };
    keys = new CachedApiKeyRepository(stored, { ttlMs: 5_000, clock });
  });

  it('answers an active key from its copy for the TTL, then reads it again', async () => {
    expect(await keys.findByHash('a')).toMatchObject({ key_hash: 'a' });
    clock.ms += 4_999;
    await keys.findByHash('a');
    expect(stored.lookups).toEqual(['a']);
    clock.ms += 2;
    await keys.findByHash('a');
    expect(stored.lookups).toEqual(['a', 'a']);
  });

  it('always reads the stored record itself fresh', async () => {
    await keys.findByHash('a');
    expect(stored.freshLookups).toEqual(['a']);
  });

  it('a fresh lookup reads the stored key and replaces the copy: a disabled key stops reading at once', async () => {
    await keys.findByHash('a');
    records[0] = key('a', { status: 'disabled' });
    expect((await keys.findByHash('a'))?.status).toBe('active');
    expect((await keys.findByHash('a', { fresh: true }))?.status).toBe('disabled');
    expect((await keys.findByHash('a'))?.status).toBe('disabled');
    expect(stored.lookups).toEqual(['a', 'a', 'a']);
  });

  it('never keeps an unknown or disabled key: a key created or enabled a moment ago works at once', async () => {
    expect(await keys.findByHash('new')).toBeUndefined();
    records.push(key('new'));
    expect(await keys.findByHash('new')).toMatchObject({ status: 'active' });
    expect((await keys.findByHash('off'))?.status).toBe('disabled');
    records[1] = key('off');
    expect((await keys.findByHash('off'))?.status).toBe('active');
    expect(stored.lookups).toEqual(['new', 'new', 'off', 'off']);
  });

  it('keeps at most maxKeys copies, dropping the least recently used', async () => {
    records.push(key('b'), key('c'));
    keys = new CachedApiKeyRepository(stored, { ttlMs: 5_000, maxKeys: 2, clock });
    await keys.findByHash('a');
    await keys.findByHash('b');
    await keys.findByHash('a');
    await keys.findByHash('c');
    stored.lookups.length = 0;
    await keys.findByHash('a');
    await keys.findByHash('b');
    expect(stored.lookups).toEqual(['b']);
  });

  it('a TTL of 0 turns the copies off', async () => {
    keys = new CachedApiKeyRepository(stored, { ttlMs: 0 });
    await keys.findByHash('a');
    await keys.findByHash('a');
    expect(stored.lookups).toEqual(['a', 'a']);
  });
});
