export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiter {
  /** Admits one request for `subject` if fewer than `limitPerSecond` were admitted in this second. */
  acquire(subject: string, limitPerSecond: number): Promise<RateDecision>;
}
