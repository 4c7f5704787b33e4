/**
 * Starts authentication (the key, then its rate limit) before the handler runs. The handler awaits the
 * result before it answers anything, so an auth error always wins; meanwhile the route may start its own
 * reads (see `readAhead` in api-handler.ts), which join the key's read, when there is one, in one BatchGetItem.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { authenticate } from '../../core/use-cases/authenticate.js';
import type { AuthenticateDeps, AuthenticateOptions, Caller } from '../../core/use-cases/authenticate.js';

export interface CallerContext extends Context {
  caller: Promise<Caller>;
}

export function authenticateCaller(
  deps: AuthenticateDeps,
  options: AuthenticateOptions = {},
): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: (request) => {
      const caller = authenticate(request.event.headers?.['authorization'], deps, options);
      // Awaited by the handler; this only keeps a rejection from counting as unhandled until then.
      caller.catch(() => undefined);
      (request.context as CallerContext).caller = caller;
    },
  };
}
