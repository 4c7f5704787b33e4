/**
 * Errors an upstream provider adapter throws. Their `name` is what the state machine's
 * Retry/Catch match (Step Functions matches Lambda errors by error name), so names are stable API:
 * string literals, as the class names do not survive minification.
 */

/** The upstream refused the job (4xx on create): the task fails with the upstream's message. */
export class UpstreamRejectedError extends Error {
  override readonly name = 'UpstreamRejectedError';
}

/** 5xx, 429, connection errors, timeouts on idempotent calls: safe to retry with backoff. */
export class UpstreamTransientError extends Error {
  override readonly name = 'UpstreamTransientError';
  constructor(
    message: string,
    /** Seconds the upstream asked us to wait (Retry-After), when it said. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** A create call whose outcome is unknown (timeout after sending): must not be retried blindly. */
export class UpstreamOutcomeUnknownError extends Error {
  override readonly name = 'UpstreamOutcomeUnknownError';
}

/** The upstream does not know a job we created (404 on get). */
export class UpstreamJobNotFoundError extends Error {
  override readonly name = 'UpstreamJobNotFoundError';
}
