export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiter {
  /** Counts one request for `subject` against `limitPerSecond`. */
  consume(subject: string, limitPerSecond: number): Promise<RateDecision>;
}
