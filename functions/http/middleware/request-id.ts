/**
 * docs/api-contract.md, "Request ids": every answer carries `X-Request-Id`, API Gateway's id of the request (the local gateway
 * makes one alike), and every log line of the invocation carries it. Used first in every chain, so its `after`
 * and `onError` see the final response, the envelope of an error included.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { logRequestId } from '../../adapters/runtime/logger.js';

export const REQUEST_ID_HEADER = 'x-request-id';

type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

export function requestId(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  const stamp = (request: Request) => {
    const id = idOf(request.event);
    if (id === undefined || request.response === undefined || request.response === null) return;
    request.response = { ...request.response, headers: { ...request.response.headers, [REQUEST_ID_HEADER]: id } };
  };
  return {
    before: (request: Request) => {
      const id = idOf(request.event);
      if (id !== undefined) logRequestId(id);
    },
    after: stamp,
    onError: stamp,
  };
}

function idOf(event: APIGatewayProxyEventV2 | undefined): string | undefined {
  const id: unknown = event?.requestContext?.requestId;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}
