/** Per-key request counting (docs/api-contract.md, "Rate limits"): fixed one-second windows shared by every instance. */
export interface RateWindow {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Seconds until the window ends, rounded up: the `Retry-After` of a refused request. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Counts one request for `subject`; the caller compares the count with the subject's limit. */
  hit(subject: string): Promise<RateWindow>;
}
