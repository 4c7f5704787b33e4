/**
 * Idempotency-Key (docs/api-contract.md, "Idempotency-Key"), shared by every route that takes it: the header's rule, the request's
 * fingerprint, the record and its replay. The record is written by the route's adapter inside the route's own
 * transaction (a charge), conditional on no live record, so a key yields one task however many arrive at once.
 */
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { InvalidRequestError } from './api-error.js';
import type { IdempotencyRecord, IdempotencyStore } from './ports/idempotency.js';

export type { IdempotencyRecord };

// Why not Powertools Idempotency: its persistence layer writes the record on its own (saveInProgress, a
// conditional PutItem, before the handler; saveSuccess after), never as an item of the caller's
// TransactWriteItems. A crash between our charge and its saveSuccess leaves an INPROGRESS record and a charged
// task that a retry cannot replay; a record in the charge's own transaction cannot fall apart from it.

/** The request header (API Gateway gives header names in lower case) and the replay's response header. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

export const IdempotencyKeySchema = v.pipe(
  v.string(),
  v.minLength(1, 'Idempotency-Key must not be empty'),
  v.maxLength(255, 'Idempotency-Key must be at most 255 characters'),
  v.regex(/^[\x20-\x7E]+$/, 'Idempotency-Key must be printable ASCII'),
  v.description('Optional: 1–255 printable ASCII characters; the same key and body within 24 h answer once'),
);

/** A request that carries a key: where its record lives and what it must match. */
export interface IdempotentRequest {
  id: string;
  accountId: string;
  scope: string;
  requestHash: string;
}

/**
 * Thrown by an adapter when its transaction's record condition failed: a live record holds the key (another
 * request with it committed first). The caller reads that record and replays it.
 */
export class IdempotencyKeyTakenError extends Error {
  override readonly name = 'IdempotencyKeyTakenError';
  constructor() {
    super('the Idempotency-Key is already held by a committed request');
  }
}

/** The header's value, checked (400 otherwise); undefined when absent. */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parsed = v.safeParse(IdempotencyKeySchema, header);
  if (!parsed.success) throw new InvalidRequestError(parsed.issues[0].message);
  return parsed.output;
}

/** The request's fingerprint: SHA-256 of its JSON with object keys sorted (spacing and key order don't count). */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `scope` names the route (`video.generate`, `uploads`): one key may serve each route once. */
export function idempotentRequest(accountId: string, scope: string, key: string, body: unknown): IdempotentRequest {
  return { id: `${accountId}#${scope}#${key}`, accountId, scope, requestHash: requestHash(body) };
}

export function idempotencyRecord(
  request: IdempotentRequest,
  resourceId: string,
  answer: unknown,
  now: Date,
  statusCode = 200,
): IdempotencyRecord {
  return {
    id: request.id,
    account_id: request.accountId,
    scope: request.scope,
    request_hash: request.requestHash,
    resource_id: resourceId,
    status_code: statusCode,
    response: JSON.stringify(answer),
    created_at: now.toISOString(),
    expires_at: Math.floor(now.getTime() / 1000) + IDEMPOTENCY_TTL_SECONDS,
  };
}

export function isLive(record: IdempotencyRecord, now: Date): boolean {
  return record.expires_at > Math.floor(now.getTime() / 1000);
}

/** The first answer again; a 400 when the key came with another body. */
export function replay<T>(record: IdempotencyRecord, request: IdempotentRequest): T {
  if (record.request_hash !== request.requestHash) {
    throw new InvalidRequestError(
      'this Idempotency-Key was already used with a different request body: use a new key for a new request',
    );
  }
  return JSON.parse(record.response) as T;
}

export interface IdempotentOutcome<T> {
  answer: T;
  /** The answer is a stored one (send `Idempotent-Replayed: true`). */
  replayed: boolean;
}

/**
 * Runs `run` once per key: a live record answers at once; otherwise `run` builds its answer, makes the record
 * with `record(resourceId, answer)` (undefined without a key) and writes it in its own transaction. When `run`
 * fails, the record decides: one written meanwhile answers (another request's that won the key, or this one's
 * own that committed before a later failure); none, and the error stands.
 */
export async function idempotently<T>(
  request: IdempotentRequest | undefined,
  store: IdempotencyStore,
  now: Date,
  run: (record: (resourceId: string, answer: T) => IdempotencyRecord | undefined) => Promise<T>,
): Promise<IdempotentOutcome<T>> {
  if (!request) return { answer: await run(() => undefined), replayed: false };
  const found = await store.find(request.id, now);
  if (found) return { answer: replay<T>(found, request), replayed: true };
  let created: string | undefined;
  try {
    const answer = await run((resourceId, data) => {
      created = resourceId;
      return idempotencyRecord(request, resourceId, data, now);
    });
    return { answer, replayed: false };
  } catch (error) {
    // Not only on IdempotencyKeyTakenError: a transaction cancelled on another item's condition too (the balance,
    // short for a duplicate) need not name the record's. The winner has committed: a consistent read sees it.
    const winner = await store.find(request.id, now).catch(() => undefined);
    if (!winner) throw error;
    return { answer: replay<T>(winner, request), replayed: winner.resource_id !== created };
  }
}
