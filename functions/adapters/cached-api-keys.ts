/**
 * Active keys, remembered for a few seconds per function instance, so that a request pays one storage
 * round trip (its own read or write) rather than two: the key's record is otherwise read on every call.
 *
 * What a copy may leave stale, and why that is safe:
 * - A key disabled in the last API_KEY_CACHE_SECONDS still reads (GET task, balance) in an instance that saw it
 *   active. It can never spend: the submit's transaction checks the stored key's status and quota, and a cancel
 *   reads the key fresh (`fresh: true`).
 * - Its rate and quota shape: the rate limit follows within the same seconds; a quota shape the transaction finds
 *   changed is re-read (functions/core/use-cases/submit-task.ts).
 * Only active keys are kept: an unknown or disabled key is looked up every time, so a key created or enabled a
 * moment ago works at once.
 */
import { LRUCache } from 'lru-cache';
import type { ApiKeyRecord, ApiKeyRepository, KeyLookupOptions } from '../core/ports/accounts.js';

export interface KeyCacheOptions {
  /** How long a copy is used; 0 turns the cache off. */
  ttlMs: number;
  /** Keys kept per instance; the least recently used go first. */
  maxKeys?: number;
  /** The clock, for tests (lru-cache's `perf` option: anything with now() in milliseconds). */
  clock?: { now(): number };
}

export class CachedApiKeyRepository implements ApiKeyRepository {
  private readonly copies: LRUCache<string, ApiKeyRecord> | undefined;

  constructor(
    private readonly stored: ApiKeyRepository,
    options: KeyCacheOptions,
  ) {
    this.copies =
      options.ttlMs > 0
        ? new LRUCache<string, ApiKeyRecord>({
            max: options.maxKeys ?? 10_000,
            ttl: options.ttlMs,
            // An expired copy is never answered, even between lru-cache's own purges.
            allowStale: false,
            ...(options.clock ? { perf: options.clock, ttlResolution: 0 } : {}),
          })
        : undefined;
  }

  async findByHash(keyHash: string, options: KeyLookupOptions = {}): Promise<ApiKeyRecord | undefined> {
    if (!options.fresh) {
      const copy = this.copies?.get(keyHash);
      if (copy) return copy;
    }
    const record = await this.stored.findByHash(keyHash, { fresh: true });
    if (record?.status === 'active') this.copies?.set(keyHash, record);
    else this.copies?.delete(keyHash);
    return record;
  }
}
