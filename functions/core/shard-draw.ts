/**
 * How a debit is spread over an account's balance shards (docs/money-and-ledger.md, "Balance shards"): which
 * shards give what, and which are refilled in the same transaction. Pure: the caller's transaction conditions
 * each shard that gives on holding at least what it gives, so a plan made from a stale read is refused.
 */

/** Below this many costs' worth in all, a refill would only move crumbs: take from the fewest shards instead. */
const REFILL_ABOVE_COSTS = 2n;

/**
 * Signed deltas per shard, summing to -cost, or undefined when the shards together are short. When at least
 * half the shards cover the cost alone, one of them at random (`chosen` picks); else, with plenty left,
 * everything left spread evenly over every shard (so the next charges find their random shard covered); near
 * the end, the cost taken from the richest shards only.
 */
export function planDraw(seen: readonly bigint[], cost: bigint, chosen: number): Map<number, bigint> | undefined {
  const total = seen.reduce((sum, units) => sum + units, 0n);
  if (total < cost) return undefined;
  const covering = seen.flatMap((units, shard) => (units >= cost ? [shard] : []));
  if (covering.length * 2 >= seen.length) return new Map([[covering[chosen % covering.length]!, -cost]]);
  const deltas = new Map<number, bigint>();
  const count = BigInt(seen.length);
  if (total - cost >= REFILL_ABOVE_COSTS * cost * count) {
    const rest = total - cost;
    seen.forEach((units, shard) => {
      // The remainder's odd units go to the first shards after `chosen`, round the ring.
      const turn = BigInt((shard - chosen + seen.length) % seen.length);
      const delta = rest / count + (turn < rest % count ? 1n : 0n) - units;
      if (delta !== 0n) deltas.set(shard, delta);
    });
    return deltas;
  }
  const richest = seen
    .map((units, shard) => ({ units, shard }))
    .sort((a, b) => (a.units === b.units ? (a.shard === chosen ? -1 : 0) : a.units > b.units ? -1 : 1));
  let left = cost;
  for (const { units, shard } of richest) {
    if (left === 0n) break;
    const take = units < left ? units : left;
    if (take > 0n) deltas.set(shard, -take);
    left -= take;
  }
  return deltas;
}
