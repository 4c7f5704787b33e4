/** planDraw (docs/money-and-ledger.md, "Balance shards"): a plan takes exactly the cost and leaves no shard below 0. */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { planDraw } from '../../functions/core/shard-draw.js';

const shards = fc.array(fc.bigInt({ min: 0n, max: 10n ** 13n }), { minLength: 16, maxLength: 16 });

it('takes exactly the cost, never more than a shard holds; undefined only when all together are short', () => {
  fc.assert(
    fc.property(shards, fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.nat(15), (seen, cost, chosen) => {
      const total = seen.reduce((a, b) => a + b, 0n);
      const plan = planDraw(seen, cost, chosen);
      if (total < cost) return expect(plan).toBeUndefined();
      expect(plan).toBeDefined();
      expect([...plan!.values()].reduce((a, b) => a + b, 0n)).toBe(-cost);
      for (const [shard, delta] of plan!) expect(seen[shard]! + delta).toBeGreaterThanOrEqual(0n);
    }),
  );
});

it('takes from one shard when half of them cover it; spreads when money sits on few shards', () => {
  const even = Array.from({ length: 16 }, () => 100n);
  expect(planDraw(even, 30n, 3)).toEqual(new Map([[3, -30n]]));
  const concentrated = [1_600n, ...Array.from({ length: 15 }, () => 0n)];
  const spread = planDraw(concentrated, 16n, 0)!;
  expect(spread.size).toBe(16);
  expect(concentrated.map((units, shard) => units + (spread.get(shard) ?? 0n))).toEqual(
    Array.from({ length: 16 }, () => 99n),
  );
});
