/**
 * Turns what a handler returns into the spec's envelope, and every error into one too (docs/api-contract.md, "Envelope and errors"):
 * ApiError → its code; anything else → 500 with a generic message, logged with its stack.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ApiError, InternalError, RateLimitedError } from '../../core/api-error.js';
import { errorEnvelope, httpStatusOf, successEnvelope } from '../../core/envelope.js';
import type { Envelope } from '../../core/envelope.js';
import { logger } from '../../adapters/runtime/logger.js';

export interface ApiResult {
  data: unknown;
  message?: string;
  /** Response headers beside the envelope's own (e.g. Idempotent-Replayed). */
  headers?: Record<string, string>;
}

type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

export function apiEnvelope(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    after: (request: Request) => {
      const result = request.response as unknown as ApiResult;
      const response = jsonResponse(successEnvelope(result.data, result.message));
      if (result.headers) response.headers = { ...response.headers, ...result.headers };
      request.response = response;
    },
    onError: (request: Request) => {
      const error = request.error;
      const apiError = error instanceof ApiError ? error : new InternalError();
      if (!(error instanceof ApiError)) logger.error('unhandled error', { error: error as Error });
      const response = jsonResponse(errorEnvelope(apiError));
      if (apiError instanceof RateLimitedError) {
        response.headers = { ...response.headers, 'retry-after': String(apiError.retryAfterSeconds) };
      }
      request.response = response;
    },
  };
}

export function jsonResponse(envelope: Envelope<unknown>): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: httpStatusOf(envelope),
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    body: JSON.stringify(envelope),
  };
}
