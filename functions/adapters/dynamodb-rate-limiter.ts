/**
 * Per-key request limit: a counter per key and second (fixed window) in DynamoDB, so every function
 * instance shares one count and no second admits more than the limit. An instance does not write per
 * request: it reserves several requests at once (a conditional ADD that cannot take the count past the
 * limit) and spends them in memory. It reserves what it is likely to spend: its recent rate (the last
 * second's count, or half the rate before when it was quieter) over what is left of this second, and at
 * most a tenth of the limit; a further reservation in the same second asks for at least twice the one
 * before, so a key that outruns its estimate costs a few writes, not one per request. A new instance
 * therefore starts small, a steady one writes about once a second; what one reserves and does not spend lapses with its second, so a key spread over many
 * instances may be refused a little before its limit, never after. Seconds are fixed windows of each
 * instance's clock (so a span across two of them may see up to twice the limit, as with any fixed
 * window), and each key's seconds start at an offset of their own within the clock's second, taken from
 * the key (the same in every instance): the keys' reservations, one at least per busy key and second,
 * then spread over the second instead of all falling due at its turn. Counters expire through the
 * table's TTL.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateDecision, RateLimiter } from '../core/ports/rate-limiter.js';

const KEEP_SECONDS = 120;
/** At most a tenth of the limit (and never more than this) in one reservation. */
const SHARES_PER_WINDOW = 10;
const MAX_RESERVATION = 100;
const MAX_TRACKED_SUBJECTS = 10_000;

interface SubjectState {
  window: number;
  /** Reserved in DynamoDB for this window and not yet spent. */
  left: number;
  /** The window's count has reached the limit: refuse without asking again until the next second. */
  spent: boolean;
  /** Requests this instance admitted in this window. */
  served: number;
  /** Requests a second this instance recently admitted: the last second's count, or the rate before it halved. */
  rate: number;
  /** What the last reservation in this window was granted (0: none yet). */
  lastAsked: number;
}

export class DynamoDbRateLimiter implements RateLimiter {
  private readonly subjects = new Map<string, SubjectState>();
  /** A reservation being written: concurrent requests for the subject wait for it instead of racing it. */
  private readonly refilling = new Map<string, Promise<void>>();
  /** The second of the last sweep of idle subjects: at most one sweep a second. */
  private sweptWindow = -1;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: () => number = Date.now,
    /** Where, in milliseconds of the clock's second, the subject's seconds begin. */
    private readonly phaseMs: (subject: string) => number = subjectPhaseMs,
  ) {}

  async acquire(subject: string, limitPerSecond: number): Promise<RateDecision> {
    // Whole requests only; a limit below one (a hand-edited key record) admits nothing and writes nothing.
    const limit = Math.floor(limitPerSecond);
    if (!Number.isFinite(limit) || limit < 1) return { allowed: false, retryAfterSeconds: 1 };
    for (;;) {
      // The subject's own time: its seconds begin at its phase (every window below is in this time).
      const nowMs = this.clock() - this.phaseMs(subject);
      const state = this.stateOf(subject, Math.floor(nowMs / 1000));
      if (state.left > 0) {
        state.left -= 1;
        state.served += 1;
        return { allowed: true };
      }
      if (state.spent) {
        return {
          allowed: false,
          retryAfterSeconds: Math.max(1, Math.ceil(((state.window + 1) * 1000 - nowMs) / 1000)),
        };
      }
      const inflight = this.refilling.get(subject);
      if (inflight) {
        // A failed refill fails its waiters too: during an outage one slow call, not one per waiter.
        await inflight;
        continue;
      }
      const refill = this.refill(subject, state, limit, nowMs);
      this.refilling.set(subject, refill);
      try {
        await refill;
      } finally {
        this.refilling.delete(subject);
      }
    }
  }

  /** The subject's state in `window`, rolled over from the window before if need be. */
  private stateOf(subject: string, window: number): SubjectState {
    const known = this.subjects.get(subject);
    if (known?.window === window) return known;
    if (!known && this.subjects.size >= MAX_TRACKED_SUBJECTS && this.sweptWindow !== window) {
      this.sweptWindow = window;
      this.forgetIdle(window);
    }
    const idleSeconds = known ? Math.min(30, window - known.window - 1) : 0;
    const state: SubjectState = {
      window,
      left: 0,
      spent: false,
      served: 0,
      rate: known ? Math.max(known.served, known.rate / 2) / 2 ** idleSeconds : 0,
      lastAsked: 0,
    };
    this.subjects.set(subject, state);
    return state;
  }

  private async refill(subject: string, state: SubjectState, limit: number, nowMs: number): Promise<void> {
    const leftOfWindow = ((state.window + 1) * 1000 - nowMs) / 1000;
    const elapsed = 1 - leftOfWindow;
    // An instance with no history doubles what it asks for as it serves; one with a rate asks for enough
    // for the rest of this second at that rate (or this second's pace, if faster).
    const pace = elapsed >= 0.1 ? state.served / elapsed : 0;
    const likely = state.rate === 0 ? state.served + 1 : Math.ceil(Math.max(state.rate, pace) * leftOfWindow);
    const cap = Math.min(MAX_RESERVATION, Math.max(1, Math.ceil(limit / SHARES_PER_WINDOW)));
    // Asking again within the second means the estimate fell short: at least double, as a growing buffer does.
    const ask = Math.min(cap, Math.max(1, likely, 2 * state.lastAsked));
    const granted = await this.reserve(subject, state.window, ask, limit, nowMs);
    // The window may have rolled over while the write was out: the reservation belongs to its own second.
    if (this.subjects.get(subject) !== state) return;
    if (granted === 0) state.spent = true;
    else state.left += granted;
    state.lastAsked = granted;
  }

  /** Adds up to `want` to the window's count without passing `limit`; returns how many it added. */
  private async reserve(subject: string, window: number, want: number, limit: number, nowMs: number) {
    let take = want;
    for (let attempt = 0; attempt < 3 && take > 0; attempt += 1) {
      try {
        await this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { bucket: `${subject}#${window}` },
            UpdateExpression: 'ADD hits :take SET expires_at = if_not_exists(expires_at, :expires)',
            ConditionExpression: 'attribute_not_exists(hits) OR hits <= :most',
            ExpressionAttributeValues: {
              ':take': take,
              ':most': limit - take,
              ':expires': Math.floor(nowMs / 1000) + KEEP_SECONDS,
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return take;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        // What is left of the window, if anything: ask for exactly that.
        const hits = Number(error.Item?.['hits']?.N ?? limit);
        take = Math.min(want, limit - hits);
      }
    }
    return 0;
  }

  private forgetIdle(window: number): void {
    for (const [subject, state] of this.subjects) {
      if (state.window < window - 1) this.subjects.delete(subject);
    }
  }
}

/** A subject's phase: 0–999 ms, from an FNV-1a hash of it, so every instance gives a subject the same one. */
export function subjectPhaseMs(subject: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < subject.length; i += 1) {
    hash ^= subject.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % 1000;
}
