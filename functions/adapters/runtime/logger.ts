/** One structured JSON logger per process (Powertools); the level comes from POWERTOOLS_LOG_LEVEL. */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: 'video-generation' });

/**
 * Puts the API request's id (API Gateway's, the one answered in `X-Request-Id`) on every later log line of the
 * invocation; injectLambdaContext's `resetKeys` takes it off when the invocation ends.
 */
export function logRequestId(requestId: string): void {
  logger.appendKeys({ request_id: requestId });
}
