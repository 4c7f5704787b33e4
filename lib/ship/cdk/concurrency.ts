/**
 * Lambda concurrency, sized so that an API flood cannot starve the work customers already paid for: the
 * functions whose catalog entry reserves executions (functions/catalog.ts, `reservedConcurrency`) get them;
 * the API's functions share what is left, and each route's API Gateway throttle keeps its share within that.
 * docs/capacity.md.
 */
import { CATALOG } from '../../../functions/catalog.js';

/** Lambda's default concurrency quota per account and Region ("Lambda quotas"); context `lambdaConcurrencyQuota`. */
export const DEFAULT_LAMBDA_CONCURRENCY_QUOTA = 1000;
/** Lambda keeps at least this much unreserved: a reservation that would leave less is refused ("Lambda quotas"). */
export const MIN_UNRESERVED_CONCURRENCY = 100;

/** Reserved concurrent executions per function id, from the catalog. */
export const RESERVED_CONCURRENCY: Readonly<Record<string, number>> = Object.fromEntries(
  CATALOG.flatMap((fn) => (fn.reservedConcurrency ? [[fn.id, fn.reservedConcurrency]] : [])),
);

export const TOTAL_RESERVED = Object.values(RESERVED_CONCURRENCY).reduce((sum, n) => sum + n, 0);

/** What the API functions share: the quota less every reservation (an account-wide pool, see docs/capacity.md). */
export function apiConcurrency(quota: number): number {
  return quota - TOTAL_RESERVED;
}
