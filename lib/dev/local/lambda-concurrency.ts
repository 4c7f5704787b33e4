/**
 * Lambda's concurrency, locally: a function with `reservedConcurrency` (functions/catalog.ts) runs at most that
 * many invocations at once, the others share the account's unreserved pool; an invoke past either is refused at
 * once with Lambda's TooManyRequestsException, as each caller (gateway, Step Functions, event source, Invoke API)
 * then reports it. docs/local-stack.md, "Concurrency and timeouts".
 */
import { CATALOG } from '../../../functions/catalog.js';

/** Lambda's default concurrency quota per account and Region, as lib/ship/cdk/concurrency.ts (which lib/dev may not import). */
const LAMBDA_CONCURRENCY_QUOTA = 1000;

/** Lambda's two reasons (Invoke API reference, TooManyRequestsException). */
export type ThrottleReason = 'ReservedFunctionConcurrentInvocationLimitExceeded' | 'ConcurrentInvocationLimitExceeded';

export class LambdaThrottleError extends Error {
  override readonly name = 'TooManyRequestsException';
  constructor(readonly reason: ThrottleReason) {
    super('Rate Exceeded.');
  }
}

export const isThrottle = (error: unknown): error is LambdaThrottleError => error instanceof LambdaThrottleError;

/**
 * What the functions without a reservation share: Lambda's default quota less every reservation (805), as
 * lib/ship/cdk/concurrency.ts sizes it in AWS. LOCAL_UNRESERVED_CONCURRENCY overrides it.
 */
export function unreservedConcurrency(): number {
  const raw = process.env['LOCAL_UNRESERVED_CONCURRENCY'];
  if (raw === undefined || raw === '') {
    return LAMBDA_CONCURRENCY_QUOTA - CATALOG.reduce((sum, fn) => sum + (fn.reservedConcurrency ?? 0), 0);
  }
  const size = Number(raw);
  if (!Number.isInteger(size) || size < 1) {
    throw new Error(`LOCAL_UNRESERVED_CONCURRENCY must be a whole number of at least 1 (got "${raw}")`);
  }
  return size;
}

export interface ConcurrencyLimits {
  /** Takes an execution for `id`, or throws LambdaThrottleError; the answer gives it back (once). */
  acquire(id: string, reservedConcurrency: number | undefined): () => void;
  /** Executions in use by `id`. */
  inUse(id: string): number;
}

export function concurrencyLimits(unreserved: number = unreservedConcurrency()): ConcurrencyLimits {
  const running = new Map<string, number>();
  let shared = 0;
  return {
    acquire(id, reservedConcurrency) {
      const mine = running.get(id) ?? 0;
      if (reservedConcurrency !== undefined) {
        if (mine >= reservedConcurrency) {
          throw new LambdaThrottleError('ReservedFunctionConcurrentInvocationLimitExceeded');
        }
      } else if (shared >= unreserved) {
        throw new LambdaThrottleError('ConcurrentInvocationLimitExceeded');
      }
      running.set(id, mine + 1);
      if (reservedConcurrency === undefined) shared += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        running.set(id, (running.get(id) ?? 1) - 1);
        if (reservedConcurrency === undefined) shared -= 1;
      };
    },
    inUse: (id) => running.get(id) ?? 0,
  };
}

let processLimits: ConcurrencyLimits | undefined;

/**
 * This process's limits, made on first use. The API process and the workflow process each count their own
 * functions: no function runs in both, and the only unreserved ones in the workflow process are the three
 * scheduled functions (one run each at a time), not taken from the API's pool.
 */
export function processConcurrencyLimits(): ConcurrencyLimits {
  processLimits ??= concurrencyLimits();
  return processLimits;
}
