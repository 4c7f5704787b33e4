/**
 * Each route's API Gateway throttle, sized from the Lambda concurrency the API's functions share
 * (concurrency.ts): by Little's law a route served in `seconds` at `rate` requests/s keeps rate × seconds
 * executions busy, so giving each route a share of the pool and rate = share × pool / seconds keeps the routes
 * together within it. A flood of one route is refused there (429) and leaves the others, and the workflow,
 * their executions. The numbers and their reasoning: docs/capacity.md.
 */
import { API_ROUTES, CONSOLE_ROUTES } from '../routes.js';

/** API Gateway's account quota per Region: 10,000 requests/s, a burst of 5,000 ("Amazon API Gateway quotas"). */
export const ACCOUNT_API_RATE = 10_000;
export const ACCOUNT_API_BURST = 5_000;

/** A route's share of the API's executions and the time one request holds one (p99-ish, cold starts aside). */
interface RouteBudget {
  readonly share: number;
  readonly seconds: number;
}

/** The public routes by id; the console's routes share CONSOLE_SHARE evenly. Shares sum to at most 1. */
export const ROUTE_BUDGETS: Readonly<Record<string, RouteBudget>> = {
  // A transaction (charge + ledger + task) and an idempotency record: the slowest and the one that earns.
  SubmitTask: { share: 0.2, seconds: 0.3 },
  // Polling: most of the traffic, one read each.
  GetTask: { share: 0.25, seconds: 0.1 },
  ListTasks: { share: 0.08, seconds: 0.2 },
  CancelTask: { share: 0.04, seconds: 0.3 },
  GetBalance: { share: 0.04, seconds: 0.1 },
  ListTransactions: { share: 0.04, seconds: 0.2 },
  ListModels: { share: 0.03, seconds: 0.1 },
  CreateUpload: { share: 0.04, seconds: 0.2 },
  // The upstream's reports: one or two per task; refused reports are made good by the polls.
  UpstreamCallback: { share: 0.1, seconds: 0.2 },
  Health: { share: 0.01, seconds: 0.05 },
  GetOpenApi: { share: 0.01, seconds: 0.05 },
  GetDocs: { share: 0.01, seconds: 0.05 },
};
export const CONSOLE_SHARE = 0.12;
/** `$default` (the not-found answer): what is left. */
export const DEFAULT_ROUTE_BUDGET: RouteBudget = { share: 0.03, seconds: 0.05 };

export interface RouteThrottle {
  readonly routeKey: string;
  readonly rateLimit: number;
  readonly burstLimit: number;
}

function throttle(routeKey: string, { share, seconds }: RouteBudget, apiConcurrency: number): RouteThrottle {
  const rate = Math.max(1, Math.floor((share * apiConcurrency) / seconds));
  const rateLimit = Math.min(rate, ACCOUNT_API_RATE);
  // One second's worth at once, within the account's bucket.
  return { routeKey, rateLimit, burstLimit: Math.min(rateLimit, ACCOUNT_API_BURST) };
}

/** Every route's throttle, for `apiConcurrency` executions shared by the API's functions. */
export function routeThrottles(apiConcurrency: number): RouteThrottle[] {
  const consoleBudget = { share: CONSOLE_SHARE / CONSOLE_ROUTES.length, seconds: 0.2 };
  return [
    ...API_ROUTES.map((route) =>
      throttle(
        `${route.method} ${route.path}`,
        route.auth === 'jwt' ? consoleBudget : (ROUTE_BUDGETS[route.id] ?? missing(route.id)),
        apiConcurrency,
      ),
    ),
    throttle('$default', DEFAULT_ROUTE_BUDGET, apiConcurrency),
  ];
}

function missing(id: string): never {
  throw new Error(`route ${id} has no budget in ROUTE_BUDGETS (lib/ship/cdk/route-throttles.ts)`);
}
