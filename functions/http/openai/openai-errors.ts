/**
 * The OpenAI-compatible routes' answers (docs/openai-videos.md, "Errors"): a handler's result as it is (OpenAI's
 * objects carry no envelope), and every error as `{error: {message, type, param, code}}` with our HTTP status.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ApiError, InternalError, RateLimitedError } from '../../core/api-error.js';
import { openAiErrorBody } from '../../core/openai-error.js';
import { logger } from '../../adapters/runtime/logger.js';

type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

export function openAiJson(
  body: unknown,
  headers: Record<string, string> = {},
  statusCode = 200,
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}

export function openAiErrors(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    onError: (request: Request) => {
      const error = request.error;
      const apiError = error instanceof ApiError ? error : new InternalError();
      if (!(error instanceof ApiError)) logger.error('unhandled error', { error: error as Error });
      const headers: Record<string, string> =
        apiError instanceof RateLimitedError ? { 'retry-after': String(apiError.retryAfterSeconds) } : {};
      request.response = openAiJson(openAiErrorBody(apiError), headers, apiError.code);
    },
  };
}
