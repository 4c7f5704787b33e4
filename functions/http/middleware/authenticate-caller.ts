/** Authenticates the Bearer key and applies the key's rate limit before the handler runs. */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { authenticate } from '../../core/use-cases/authenticate.js';
import type { AuthenticateDeps, Caller } from '../../core/use-cases/authenticate.js';

export interface CallerContext extends Context {
  caller: Caller;
}

export function authenticateCaller(deps: AuthenticateDeps): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: async (request) => {
      const caller = await authenticate(request.event.headers?.['authorization'], deps);
      (request.context as CallerContext).caller = caller;
    },
  };
}
