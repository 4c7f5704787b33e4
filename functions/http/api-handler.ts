/**
 * The one middy chain of every route: logging context and request id → envelope (errors included) → auth and
 * rate limit → the body's size → the route's function. Routes only parse their input and call one use case.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { InvalidRequestError } from '../core/api-error.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from '../core/idempotency.js';
import { checkJsonContentType, checkedUtf8Text, parseJsonBody, utf8Text } from '../core/json-body.js';
import type { Caller } from '../core/use-cases/authenticate.js';
import { logger } from '../adapters/runtime/logger.js';
import { authenticationDependencies } from '../adapters/wiring/service-dependencies.js';
import { apiEnvelope } from './middleware/api-envelope.js';
import type { ApiResult } from './middleware/api-envelope.js';
import { authenticateCaller } from './middleware/authenticate-caller.js';
import { requestId } from './middleware/request-id.js';
import type { CallerContext } from './middleware/authenticate-caller.js';
import { publishMetrics } from '../adapters/runtime/metrics.js';

/**
 * A route gets its caller as a promise: it may start reads that do not depend on the caller meanwhile (one
 * storage round trip instead of two), and answers nothing before the promise settles, so an auth error wins.
 * The context tells a route how long it has left.
 */
export type RouteFunction = (
  event: APIGatewayProxyEventV2,
  caller: Promise<Caller>,
  context: Context,
) => Promise<ApiResult>;

let authDeps: ReturnType<typeof authenticationDependencies> | undefined;

export function authenticatedRoute(route: RouteFunction) {
  authDeps ??= authenticationDependencies();
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(requestId())
    .use(publishMetrics())
    .use(apiEnvelope())
    .use(authenticateCaller(authDeps))
    .handler(async (event, context) => {
      const caller = (context as CallerContext).caller;
      if (bodyBytes(event) > MAX_BODY_BYTES) {
        await caller; // an auth error wins, as everywhere; the body is never parsed
        throw new InvalidRequestError(`request body exceeds 256 KiB (${MAX_BODY_BYTES} bytes)`);
      }
      return route(event, caller, context) as never;
    });
}

/** docs/api-contract.md, "Bodies": a larger body is refused (400) before any route parses it. */
export const MAX_BODY_BYTES = 256 * 1024;

/** The bytes the client sent: a binary body arrives base64-encoded, 4 characters for every 3 bytes. */
export function bodyBytes(event: APIGatewayProxyEventV2): number {
  if (!event.body) return 0;
  return Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

export function publicRoute(route: (event: APIGatewayProxyEventV2) => Promise<ApiResult>) {
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(requestId())
    .use(publishMetrics())
    .use(apiEnvelope())
    .handler(async (event) => route(event) as never);
}

/**
 * A public route that answers a document of its own (the OpenAPI document, the docs page), not the envelope:
 * its errors still get the envelope, and every answer its request id.
 */
export function publicDocumentRoute(
  route: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>,
) {
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(requestId())
    .use(publishMetrics())
    .use({ onError: apiEnvelope().onError })
    .handler(async (event) => route(event));
}

/**
 * The JSON body of a request: sent as application/json (else 415), UTF-8 and valid JSON with each key once (else 400),
 * never a 500. Callers check the body's size first (MAX_BODY_BYTES): authenticatedRoute, consoleBody.
 */
export function jsonBody(event: APIGatewayProxyEventV2): unknown {
  if (!event.body) throw new InvalidRequestError('request body is required: send a JSON object');
  checkJsonContentType(headerOf(event, 'content-type'));
  const decoded = event.isBase64Encoded ? utf8Text(Buffer.from(event.body, 'base64')) : checkedUtf8Text(event.body);
  // Some clients (Windows tools) start JSON with a byte-order mark; it is not part of the document.
  return parseJsonBody(decoded.replace(/^\uFEFF/, ''));
}

/** The JSON body of an authenticated route; a malformed one is answered only after authentication. */
export async function bodyOf(event: APIGatewayProxyEventV2, caller: Promise<Caller>): Promise<unknown> {
  try {
    return jsonBody(event);
  } catch (error) {
    await caller; // an auth error wins over a malformed body
    throw error;
  }
}

/** Idempotency-Key (docs/api-contract.md, "Idempotency-Key"): names are case-insensitive; payload 2.0 lowers them, other fronts may not. */
export function idempotencyKeyOf(event: APIGatewayProxyEventV2): string | undefined {
  return headerOf(event, IDEMPOTENCY_KEY_HEADER);
}

/** A header by its lower-case name, whatever case the front sent it in. */
function headerOf(event: APIGatewayProxyEventV2, name: string): string | undefined {
  return Object.entries(event.headers ?? {}).find(([given]) => given.toLowerCase() === name)?.[1];
}

/** A replayed answer says so in `Idempotent-Replayed: true`. */
export function idempotentResult(outcome: { answer: unknown; replayed: boolean }): ApiResult {
  const { answer, replayed } = outcome;
  return replayed ? { data: answer, headers: { [IDEMPOTENT_REPLAYED_HEADER]: 'true' } } : { data: answer };
}
