/**
 * The middy chain of the OpenAI-compatible routes: as api-handler.ts's (logging, request id, metrics, the
 * caller's key and rate limit, a bounded body) with OpenAI's answers and error body (openai-errors.ts) in place
 * of the envelope. Routes parse their input and call one use case.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { InvalidRequestError } from '../../core/api-error.js';
import type { Caller } from '../../core/use-cases/authenticate.js';
import { logger } from '../../adapters/runtime/logger.js';
import { publishMetrics } from '../../adapters/runtime/metrics.js';
import { authenticationDependencies } from '../../adapters/wiring/service-dependencies.js';
import { bodyBytes, MAX_BODY_BYTES } from '../api-handler.js';
import { authenticateCaller } from '../middleware/authenticate-caller.js';
import type { CallerContext } from '../middleware/authenticate-caller.js';
import { requestId } from '../middleware/request-id.js';
import { openAiErrors } from './openai-errors.js';

export type OpenAiRouteFunction = (
  event: APIGatewayProxyEventV2,
  caller: Promise<Caller>,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

let authDeps: ReturnType<typeof authenticationDependencies> | undefined;

export function openAiRoute(route: OpenAiRouteFunction, maxBodyBytes = MAX_BODY_BYTES) {
  authDeps ??= authenticationDependencies();
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(requestId())
    .use(publishMetrics())
    .use(openAiErrors())
    .use(authenticateCaller(authDeps))
    .handler(async (event, context) => {
      const caller = (context as CallerContext).caller;
      if (bodyBytes(event) > maxBodyBytes) {
        await caller; // an auth error wins, as everywhere; the body is never parsed
        throw new InvalidRequestError(`request body exceeds ${maxBodyBytes} bytes`);
      }
      return route(event, caller, context);
    });
}
