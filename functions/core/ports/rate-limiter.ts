export interface RateWindow {
  /** Requests counted for the subject in the current window, this one included. */
  hits: number;
  /** Seconds until the window ends. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Counts one request for `subject`; the caller compares the count with the subject's limit. */
  hit(subject: string): Promise<RateWindow>;
}
