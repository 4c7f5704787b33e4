/**
 * The middy chain of every console route (docs/console.md): the public API's (logging, request id, envelope, body
 * limit), with the caller from the JWT the gateway verified (never a `bc_` key): its claims → the account.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { InvalidRequestError } from '../../core/api-error.js';
import { consoleCaller } from '../../core/use-cases/console/console-caller.js';
import type { ConsoleCaller } from '../../core/use-cases/console/console-caller.js';
import { consoleUsers } from '../../adapters/wiring/console-dependencies.js';
import { logger } from '../../adapters/runtime/logger.js';
import { publishMetrics } from '../../adapters/runtime/metrics.js';
import { apiEnvelope } from '../middleware/api-envelope.js';
import type { ApiResult } from '../middleware/api-envelope.js';
import { requestId } from '../middleware/request-id.js';
import { bodyBytes, jsonBody, MAX_BODY_BYTES } from '../api-handler.js';

export type ConsoleEvent = APIGatewayProxyEventV2;

/** API Gateway's payload 2.0 with a JWT authorizer: the token's claims, as strings. */
type Claims = Record<string, string | undefined>;
function claimsOf(event: ConsoleEvent): Claims | undefined {
  return (event.requestContext as { authorizer?: { jwt?: { claims?: Claims } } }).authorizer?.jwt?.claims;
}

let deps: Parameters<typeof consoleCaller>[1] | undefined;

export function consoleRoute(route: (event: ConsoleEvent, caller: ConsoleCaller) => Promise<ApiResult>) {
  deps ??= { users: consoleUsers(), now: () => new Date() };
  const callerDeps = deps;
  return middy<ConsoleEvent, APIGatewayProxyStructuredResultV2>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(requestId())
    .use(publishMetrics())
    .use(apiEnvelope())
    .handler(async (event) => {
      const caller = await consoleCaller(claimsOf(event), callerDeps);
      logger.appendKeys({ account_id: caller.accountId });
      return route(event, caller) as never;
    });
}

/** The JSON body of a console request: at most MAX_BODY_BYTES, valid JSON, else a 400 (as the public routes'). */
export function consoleBody(event: ConsoleEvent): unknown {
  if (bodyBytes(event) > MAX_BODY_BYTES) {
    throw new InvalidRequestError(`request body exceeds 256 KiB (${MAX_BODY_BYTES} bytes)`);
  }
  return jsonBody(event);
}
