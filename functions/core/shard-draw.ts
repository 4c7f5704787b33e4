/**
 * How a debit is spread over an account's balance shards (docs/money-and-ledger.md, "Balance shards"): which
 * shards give what, and which are refilled from the others in the same transaction. Pure: the caller's
 * transaction conditions each shard that gives on holding at least what it gives, so a stale plan is refused.
 */

/** Shards beyond the chosen one a rebalance refills from (the richest): few items, few conflicts. */
const REFILL_FROM = 3;

/**
 * Signed deltas per shard (summing to -cost) that take `cost` from the shards seen: the chosen shard and the
 * richest others until they cover it, their remainder spread evenly over them. Undefined when all of them
 * together are short.
 */
export function planDraw(seen: readonly bigint[], cost: bigint, chosen: number): Map<number, bigint> | undefined {
  const total = seen.reduce((sum, units) => sum + units, 0n);
  if (total < cost) return undefined;
  const others = seen
    .map((units, shard) => ({ units, shard }))
    .filter(({ shard }) => shard !== chosen)
    .sort((a, b) => (a.units === b.units ? a.shard - b.shard : a.units > b.units ? -1 : 1));
  const touched = [chosen];
  let covered = seen[chosen] ?? 0n;
  for (const { units, shard } of others) {
    if (covered >= cost && touched.length > REFILL_FROM) break;
    if (units === 0n && covered >= cost) break;
    touched.push(shard);
    covered += units;
  }
  const rest = covered - cost;
  const count = BigInt(touched.length);
  const deltas = new Map<number, bigint>();
  touched.forEach((shard, index) => {
    const target = rest / count + (BigInt(index) < rest % count ? 1n : 0n);
    const delta = target - (seen[shard] ?? 0n);
    if (delta !== 0n) deltas.set(shard, delta);
  });
  return deltas;
}
