/**
 * Each route's API Gateway throttle, sized from the Lambda concurrency the API's functions share
 * (concurrency.ts): by Little's law a route served in `seconds` at `rate` requests/s keeps rate × seconds
 * executions busy, so giving each route a share of the pool and rate = share × pool / seconds keeps the routes
 * together within it. A flood of one route is refused there (429) and leaves the others, and the workflow,
 * their executions. The numbers and their reasoning: docs/capacity.md.
 */
import { CATALOG, CONSOLE_ROUTE_SECONDS, CONSOLE_SHARE, functionById } from '../../../functions/catalog.js';
import type { RouteBudget } from '../../../functions/catalog.js';
import { API_ROUTES, CONSOLE_ROUTES, DEFAULT_ROUTE } from '../routes.js';

/** API Gateway's account quota per Region: 10,000 requests/s, a burst of 5,000 ("Amazon API Gateway quotas"). */
export const ACCOUNT_API_RATE = 10_000;
export const ACCOUNT_API_BURST = 5_000;

/** The public routes' budgets by id, from their catalog entries (`throttle`); the console's share CONSOLE_SHARE. */
export const ROUTE_BUDGETS: Readonly<Record<string, RouteBudget>> = Object.fromEntries(
  CATALOG.flatMap((fn) => (fn.throttle && fn.id !== DEFAULT_ROUTE.id ? [[fn.id, fn.throttle]] : [])),
);

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
  const consoleBudget = { share: CONSOLE_SHARE / CONSOLE_ROUTES.length, seconds: CONSOLE_ROUTE_SECONDS };
  return [
    ...API_ROUTES.map((route) =>
      throttle(
        `${route.method} ${route.path}`,
        route.auth === 'jwt' ? consoleBudget : (ROUTE_BUDGETS[route.id] ?? missing(route.id)),
        apiConcurrency,
      ),
    ),
    throttle('$default', functionById(DEFAULT_ROUTE.id).throttle ?? missing(DEFAULT_ROUTE.id), apiConcurrency),
  ];
}

function missing(id: string): never {
  throw new Error(`route ${id} has no \`throttle\` in its functions/catalog.ts entry`);
}
