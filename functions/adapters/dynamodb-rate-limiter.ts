/**
 * Per-key request limit: a count per key and second (fixed windows) in DynamoDB, so every function
 * instance shares one count and no second admits more than the limit. An instance does not write per
 * request: it reserves several requests at once (a conditional ADD that cannot take the count past the
 * limit) and spends them in memory.
 *
 * How much it reserves: what it is likely to spend, its recent rate (the last second's count, or half the
 * rate before when it was quieter) over what is left of this second with a margin, and at most a tenth of
 * the limit. A further reservation in the same second asks for at least twice the one before, so a key that
 * outruns its estimate costs a few writes, not one per request. A new instance therefore starts small.
 *
 * One write for several seconds: a key's seconds are counted in blocks of BLOCK_SECONDS, one item per block
 * with a count per second. An instance that knows its rate tops up each later second of the block to that
 * rate (with the margin) in the same write as this second's, and in the last quarter-second of a block
 * reserves the whole next block, so a steady key writes about once a block. Those reservations ahead stay
 * within half of each second's limit: a key near its limit reserves second by second, and another instance
 * always finds the other half.
 *
 * No request waits for a write it can avoid: a key that will run out within a quarter-second at its pace
 * reserves more while it still has some (one write at a time per key and instance); only a request that
 * finds nothing left waits for the write.
 *
 * What an instance reserves and does not spend lapses with its second, so a key spread over many instances
 * may be refused a little before its limit, never after. Seconds are fixed windows of each instance's clock
 * (so a span across two of them may see up to twice the limit, as with any fixed window), and each key's
 * seconds and blocks start at an offset of their own, taken from the key (the same in every instance): the
 * keys' writes then spread over time instead of all falling due at the turn of a second or block. Counters
 * expire through the table's TTL.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateDecision, RateLimiter } from '../core/ports/rate-limiter.js';

/**
 * Seconds counted in one item, and reserved ahead in one write. Eight: a steady key writes once per 8 s (a third
 * fewer writes than with blocks of 4, in a simulation of 64 keys, steady or in bursts of 1.3 s with pauses of
 * 1.6 s), and a key that pauses a second or two more often finds the seconds after its pause already reserved.
 * What an instance reserved ahead and does not use lapses within its block, and never holds more than half of
 * any second's limit.
 */
export const BLOCK_SECONDS = 8;
const KEEP_SECONDS = 120;
/** At most a tenth of the limit (and never more than this) in one reservation. */
const SHARES_PER_WINDOW = 10;
const MAX_RESERVATION = 100;
/** Reservations are for the recent rate plus a quarter: a key growing a little costs no extra write. */
const MARGIN = 1.25;
/** A subject that will run out of its reservation within this long (at its pace) reserves more before it does. */
const PREFETCH_SECONDS = 0.25;
/** Idle seconds a subject's rate outlasts (a client polling every few seconds keeps it); then it halves per second. */
const IDLE_GRACE_SECONDS = 2;
const MAX_TRACKED_SUBJECTS = 10_000;

interface SubjectState {
  window: number;
  /** Reserved in DynamoDB for this window and not yet spent. */
  left: number;
  /** The window's count has reached the limit: refuse without asking again until the next second. */
  spent: boolean;
  /** Requests this instance admitted in this window. */
  served: number;
  /**
   * Requests a second this instance recently admitted: the last second's count, or the rate before it halved
   * (and halving per idle second after IDLE_GRACE_SECONDS).
   */
  rate: number;
  /** What the last reservation in this window was granted (0: none yet). */
  lastAsked: number;
  /** Reserved (by an earlier write) for later windows: window → requests. */
  ahead: Map<number, number>;
  /** The next block's windows have been asked for (in the last window of a block). */
  nextBlockAsked: boolean;
  /** A write started early failed in this window: no more early writes in it. */
  earlyFailed: boolean;
  /** Windows before this one are not reserved ahead: their half of the limit was found taken. */
  noAheadBefore: number;
}

/** Why a reservation is written: a request needs one, the subject runs short, or its next block is near. */
type RefillKind = 'needed' | 'short' | 'next block';

function blockStartOf(window: number): number {
  return Math.floor(window / BLOCK_SECONDS) * BLOCK_SECONDS;
}

/** Where a subject's count for a window is kept: the block's item and the window's attribute in it. */
export function counterLocation(subject: string, window: number): { bucket: string; attribute: string } {
  const start = blockStartOf(window);
  return { bucket: `${subject}#${start / BLOCK_SECONDS}`, attribute: `second_${window - start}` };
}

export class DynamoDbRateLimiter implements RateLimiter {
  private readonly subjects = new Map<string, SubjectState>();
  /** A reservation being written: concurrent requests for the subject wait for it instead of racing it. */
  private readonly refilling = new Map<string, Promise<void>>();
  /** A write of a subject's next block, and that block's first window (no request waits for it before then). */
  private readonly nextBlockWrites = new Map<string, { from: number; write: Promise<void> }>();
  /** The second of the last sweep of idle subjects: at most one sweep a second. */
  private sweptWindow = -1;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: () => number = Date.now,
    /** Where, in milliseconds of the clock, the subject's seconds and blocks begin. */
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
        // Reserve before the subject runs out, or before its next block begins, so that no request waits for
        // the write. After a failure, no more early writes this second: the request that next needs a
        // reservation meets it. The next block's write is no use to this second, so no request waits for it.
        const early = this.earlyRefill(subject, state, nowMs);
        if (early === 'short') {
          this.startRefill(subject, state, limit, nowMs, early).catch(() => (state.earlyFailed = true));
        } else if (early === 'next block') {
          const write = this.refill(subject, state, limit, nowMs, early)
            .catch(() => void (state.earlyFailed = true))
            .finally(() => this.nextBlockWrites.delete(subject));
          this.nextBlockWrites.set(subject, { from: blockStartOf(state.window) + BLOCK_SECONDS, write });
        }
        return { allowed: true };
      }
      if (state.spent) {
        return {
          allowed: false,
          retryAfterSeconds: Math.max(1, Math.ceil(((state.window + 1) * 1000 - nowMs) / 1000)),
        };
      }
      // The next block's write, once that block has begun, may bring this window's share: wait for it first.
      const nextBlock = this.nextBlockWrites.get(subject);
      if (nextBlock && state.window >= nextBlock.from) {
        await nextBlock.write;
        continue;
      }
      // A failed refill fails its waiters too: during an outage one slow call, not one per waiter.
      await (this.refilling.get(subject) ?? this.startRefill(subject, state, limit, nowMs, 'needed'));
    }
  }

  private startRefill(subject: string, state: SubjectState, limit: number, nowMs: number, kind: RefillKind) {
    const refill = this.refill(subject, state, limit, nowMs, kind).finally(() => this.refilling.delete(subject));
    this.refilling.set(subject, refill);
    return refill;
  }

  /**
   * 'short': at its pace, the subject will spend what is left within PREFETCH_SECONDS, and the window lasts
   * longer than that (near its end a reservation would mostly lapse: the next window has its own). 'next
   * block': a subject with a rate is in the last PREFETCH_SECONDS of its block, and has not asked for the next.
   */
  private earlyRefill(subject: string, state: SubjectState, nowMs: number): RefillKind | undefined {
    if (state.spent || state.earlyFailed) return undefined;
    const leftOfWindow = ((state.window + 1) * 1000 - nowMs) / 1000;
    if (leftOfWindow > PREFETCH_SECONDS) {
      const short = state.left < this.perSecond(state, leftOfWindow) * PREFETCH_SECONDS;
      return short && !this.refilling.has(subject) ? 'short' : undefined;
    }
    const lastOfBlock = state.window - blockStartOf(state.window) === BLOCK_SECONDS - 1;
    return lastOfBlock && state.rate > 0 && !state.nextBlockAsked ? 'next block' : undefined;
  }

  /** Requests a second the subject likely spends here: its recent rate, or this second's pace if faster. */
  private perSecond(state: SubjectState, leftOfWindow: number): number {
    const elapsed = 1 - leftOfWindow;
    return Math.max(state.rate, elapsed >= 0.1 ? state.served / elapsed : 0);
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
    // What an earlier write reserved for this window, if it is of the same block.
    const ahead = known ? known.ahead : new Map<number, number>();
    const left = ahead.get(window) ?? 0;
    for (const later of ahead.keys()) if (later <= window) ahead.delete(later);
    const state: SubjectState = {
      window,
      left,
      spent: false,
      served: 0,
      rate: known ? Math.max(known.served, known.rate / 2) / 2 ** Math.max(0, idleSeconds - IDLE_GRACE_SECONDS) : 0,
      lastAsked: left,
      ahead,
      nextBlockAsked: false,
      earlyFailed: false,
      noAheadBefore: known?.noAheadBefore ?? 0,
    };
    this.subjects.set(subject, state);
    return state;
  }

  /**
   * One write: for the rest of this window (unless `kind` is 'next block'), topping up the block's later
   * windows to the rate with a margin; or, for 'next block', the next block's windows.
   */
  private async refill(subject: string, state: SubjectState, limit: number, nowMs: number, kind: RefillKind) {
    const leftOfWindow = ((state.window + 1) * 1000 - nowMs) / 1000;
    const perSecond = this.perSecond(state, leftOfWindow);
    const cap = Math.min(MAX_RESERVATION, Math.max(1, Math.ceil(limit / SHARES_PER_WINDOW)));
    // Later windows are reserved only by an instance that knows its rate, and within half the limit.
    const each = Math.min(cap, Math.ceil(perSecond * MARGIN));
    const reserveAhead = state.rate > 0 && each <= Math.floor(limit / 2);
    const blockStart = blockStartOf(state.window);
    const ahead: [number, number][] = [];
    let ask = 0;
    if (kind === 'next block') {
      state.nextBlockAsked = true;
      if (!reserveAhead || blockStart + BLOCK_SECONDS < state.noAheadBefore) return;
      for (let window = blockStart + BLOCK_SECONDS; window < blockStart + 2 * BLOCK_SECONDS; window += 1) {
        ahead.push([window, each]);
      }
    } else {
      // An instance with no history doubles what it asks for as it serves; one with a rate asks for enough
      // for the rest of this second at that rate, with a margin (an early refill: beyond what it has left).
      const likely =
        state.rate === 0
          ? state.served + 1
          : Math.ceil(perSecond * leftOfWindow * MARGIN) - (kind === 'short' ? state.left : 0);
      // Running out (or short) within the second means the estimate fell short: at least double, as a growing
      // buffer does.
      ask = Math.min(cap, Math.max(1, likely, 2 * state.lastAsked));
      const aheadAllowed = reserveAhead && state.window + 1 >= state.noAheadBefore;
      for (let window = state.window + 1; aheadAllowed && window < blockStart + BLOCK_SECONDS; window += 1) {
        const more = each - (state.ahead.get(window) ?? 0);
        if (more > 0) ahead.push([window, more]);
      }
    }
    const granted = await this.reserve(subject, state.window, ask, ahead, limit, nowMs);
    const current = this.subjects.get(subject);
    if (granted.aheadRefused && current) {
      // Others hold half of those seconds: this block (or the next) is reserved second by second.
      current.noAheadBefore = Math.max(current.noAheadBefore, blockStartOf(ahead[0]![0]) + BLOCK_SECONDS);
    }
    // The window may have rolled over while the write was out: each reservation belongs to its own second.
    for (const [window, count] of granted.ahead) {
      if (current?.window === window) current.left += count;
      else if (current && window > current.window) current.ahead.set(window, (current.ahead.get(window) ?? 0) + count);
    }
    if (current !== state || kind === 'next block') return;
    if (granted.now === 0) state.spent = true;
    else state.left += granted.now;
    state.lastAsked = granted.now;
  }

  /**
   * Adds `want` to the window's count without passing `limit` (or what is left, if less), and each of
   * `ahead` to its later window (all of one block) without passing half the limit, in one write; returns
   * what it added. When a later window would pass, it asks again for this window alone.
   */
  private async reserve(
    subject: string,
    window: number,
    want: number,
    ahead: [number, number][],
    limit: number,
    nowMs: number,
  ): Promise<{ now: number; ahead: [number, number][]; aheadRefused?: boolean }> {
    const { attribute } = counterLocation(subject, window);
    let take = want;
    let later = ahead;
    let refused = false;
    for (let attempt = 0; attempt < 3 && (take > 0 || later.length > 0); attempt += 1) {
      const parts = [
        ...(take > 0 ? [{ window, count: take, most: limit - take }] : []),
        ...later.map(([laterWindow, count]) => ({ window: laterWindow, count, most: Math.floor(limit / 2) - count })),
      ];
      const names: Record<string, string> = {};
      const values: Record<string, number> = { ':expires': Math.floor(nowMs / 1000) + BLOCK_SECONDS + KEEP_SECONDS };
      parts.forEach((part, i) => {
        names[`#w${i}`] = counterLocation(subject, part.window).attribute;
        values[`:take${i}`] = part.count;
        values[`:most${i}`] = part.most;
      });
      try {
        await this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { bucket: counterLocation(subject, parts[0]!.window).bucket },
            UpdateExpression: `ADD ${parts.map((_, i) => `#w${i} :take${i}`).join(', ')} SET expires_at = if_not_exists(expires_at, :expires)`,
            ConditionExpression: parts
              .map((_, i) => `(attribute_not_exists(#w${i}) OR #w${i} <= :most${i})`)
              .join(' AND '),
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { now: take, ahead: later, aheadRefused: refused };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        const aheadRefused = later.length > 0;
        if (take === 0) return { now: 0, ahead: [], aheadRefused };
        // What is left of this window, if anything: ask for exactly that, and for no later window.
        const hits = error.Item ? Number(error.Item[attribute]?.N ?? 0) : limit;
        take = Math.min(want, limit - hits);
        later = [];
        if (aheadRefused) refused = true;
      }
    }
    return { now: 0, ahead: [], aheadRefused: refused };
  }

  private forgetIdle(window: number): void {
    for (const [subject, state] of this.subjects) {
      if (state.window < window - 1) this.subjects.delete(subject);
    }
  }
}

/**
 * A subject's phase: 0 ms up to a block's length, from an FNV-1a hash of it, so every instance gives a
 * subject the same one, and the subjects' seconds and blocks begin spread over time.
 */
export function subjectPhaseMs(subject: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < subject.length; i += 1) {
    hash ^= subject.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % (BLOCK_SECONDS * 1000);
}
