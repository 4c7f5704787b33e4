/**
 * How an upstream account admits jobs (functions/core/upstream-account-rules.ts; docs/upstream-capacity.md): free
 * room from queued slots and the in-flight limit, one probe while cooling, full-jitter back-off, AIMD.
 */
import { describe, expect, it } from 'vitest';
import type { UpstreamAccount } from '../../functions/core/ports/upstream-capacity.js';
import { coolDownMs, cutLimit, freeOf, raisedLimit } from '../../functions/core/upstream-account-rules.js';

const NOW = new Date('2026-11-27T04:00:00.000Z');
const account = (fields: Partial<UpstreamAccount> = {}): UpstreamAccount => ({
  provider: 'ark',
  name: 'main',
  capacity: 120,
  in_use: 0,
  enabled: true,
  updated_at: NOW.toISOString(),
  ...fields,
});
const at = (ms: number) => new Date(NOW.getTime() + ms).toISOString();

describe('upstream account rules', () => {
  it('free room: queued slots left, bounded by the in-flight limit and its ceiling', () => {
    expect(freeOf(account({ in_use: 100 }), NOW)).toBe(20);
    expect(freeOf(account({ in_use: 10, inflight: 45, inflight_limit: 50 }), NOW)).toBe(5);
    expect(freeOf(account({ inflight: 45, inflight_limit: 80, inflight_ceiling: 46 }), NOW)).toBe(1);
    expect(freeOf(account({ inflight: 60, inflight_limit: 50 }), NOW)).toBe(0);
    expect(freeOf(account({ enabled: false }), NOW)).toBe(0);
  });

  it('cooling: nothing before cool_until; then one probe, none while a probe holds its lease', () => {
    const cooling = account({ cool_streak: 2, cool_until: at(1000) });
    expect(freeOf(cooling, NOW)).toBe(0);
    expect(freeOf({ ...cooling, cool_until: at(-1) }, NOW)).toBe(1);
    expect(freeOf({ ...cooling, cool_until: at(-1), probe_until: at(60_000) }, NOW)).toBe(0);
    expect(freeOf({ ...cooling, cool_until: at(-1), probe_until: at(-1) }, NOW)).toBe(1);
  });

  it('back-off: full jitter below 10 s × 2^(n − 1), capped at 5 minutes', () => {
    expect([1, 2, 3, 6, 7, 20].map((n) => coolDownMs(n, () => 0.5))).toEqual([
      5_000, 10_000, 20_000, 150_000, 150_000, 150_000,
    ]);
    expect(coolDownMs(4, () => 0)).toBe(0);
    expect(coolDownMs(4, () => 0.999_999)).toBe(79_999);
  });

  it('AIMD: a refusal halves what the upstream held; a limit’s worth of accepted jobs adds one, up to the ceiling', () => {
    expect(cutLimit(account({ inflight: 41, inflight_limit: 100 }))).toBe(20);
    expect(cutLimit(account({ inflight: 41, inflight_limit: 10 }))).toBe(5);
    expect(cutLimit(account({ inflight: 1 }))).toBe(1);
    expect(raisedLimit(account({ inflight_limit: 20 }), 19)).toBeUndefined();
    expect(raisedLimit(account({ inflight_limit: 20 }), 20)).toBe(21);
    expect(raisedLimit(account({ inflight_limit: 20, inflight_ceiling: 20 }), 50)).toBeUndefined();
    expect(raisedLimit(account(), 50)).toBeUndefined();
  });
});
