/** Idempotency-Key records (functions/core/idempotency.ts): their shape and their reads. */
/** As stored (one item per account, route and key); `expires_at` is epoch seconds, the table's TTL. */
export interface IdempotencyRecord {
  id: string;
  account_id: string;
  scope: string;
  request_hash: string;
  /** What the first request created (a task id, an upload id). */
  resource_id: string;
  /** The first answer: its HTTP status and its `data`, as JSON. */
  status_code: number;
  response: string;
  created_at: string;
  expires_at: number;
}

export interface IdempotencyStore {
  /** The record (a consistent read), or undefined when there is none or it has expired at `now`. */
  find(id: string, now: Date): Promise<IdempotencyRecord | undefined>;
}
