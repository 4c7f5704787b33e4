/**
 * Starts authentication (the key and its rate count, in parallel) before the route runs; the route awaits
 * the result before it answers anything, and may start its own reads meanwhile (api-handler.ts).
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { authenticate } from '../../core/use-cases/authenticate.js';
import type { AuthenticateDeps, Caller } from '../../core/use-cases/authenticate.js';

export interface CallerContext extends Context {
  caller: Promise<Caller>;
}

export function authenticateCaller(deps: AuthenticateDeps): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: (request) => {
      const caller = authenticate(request.event.headers?.['authorization'], deps);
      // Awaited by the route; this only keeps a rejection from counting as unhandled until then.
      caller.catch(() => undefined);
      (request.context as CallerContext).caller = caller;
    },
  };
}
