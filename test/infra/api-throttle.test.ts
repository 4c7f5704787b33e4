/** The stage's own throttle is a backstop far above the per-key limits, within the account's API Gateway quota. */
import { describe, expect, it } from 'vitest';
import { ENV } from '../../functions/adapters/runtime/config.js';
import { DEFAULT_API_THROTTLE, EXPECTED_CONCURRENT_KEYS } from '../../lib/ship/cdk/api.js';

describe('DEFAULT_API_THROTTLE', () => {
  const perKey = Number(ENV.defaultRateLimitPerSecond.default);

  it('admits at least twice what the expected keys send at the default per-key rate', () => {
    expect(perKey).toBe(10);
    expect(DEFAULT_API_THROTTLE.rateLimit).toBeGreaterThanOrEqual(2 * EXPECTED_CONCURRENT_KEYS * perKey);
  });

  it("stays within the account's quota per Region (10,000 requests/s, a burst of 5,000)", () => {
    expect(DEFAULT_API_THROTTLE.rateLimit).toBeLessThanOrEqual(10_000);
    expect(DEFAULT_API_THROTTLE.burstLimit).toBeLessThanOrEqual(5_000);
  });
});
