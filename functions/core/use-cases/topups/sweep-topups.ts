/**
 * Every minute (docs/money-and-ledger.md, "Top-ups"). Primary course: read the pending orders, oldest expiry
 * first; ask the gateway about each, crediting a paid one once and closing an expired unpaid one on both
 * sides. A notification lost for good thus still ends in one credit. Answers what it did.
 */
import { settleTopup } from './settle-topup.js';
import type { SettleDeps } from './settle-topup.js';

export async function sweepTopups(deps: SettleDeps & { batch: number }) {
  const counts = { looked: 0, paid: 0, closed: 0, failed: 0 };
  for (const order of await deps.topups.pending(deps.batch)) {
    counts.looked += 1;
    try {
      const settled = await settleTopup(order, deps);
      if (settled.status === 'paid') counts.paid += 1;
      if (settled.status === 'closed') counts.closed += 1;
    } catch {
      // One order's gateway trouble does not stop the others; the next sweep asks again.
      counts.failed += 1;
    }
  }
  return counts;
}
