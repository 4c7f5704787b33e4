/**
 * How an upstream account admits jobs (docs/upstream-capacity.md): queued slots under its capacity, jobs in
 * flight under a learned limit (AIMD), and after 429s a cool-down with exponential back-off and full jitter,
 * during which one probe job at a time tests the account. Pure: the numbers come from `CapacityRules`.
 */
import type { UpstreamAccount } from './ports/upstream-capacity.js';

export interface CapacityRules {
  /** The first cool-down's upper bound, doubled per 429 in a row (full jitter below it). */
  coolBaseMs: number;
  /** The cool-down's largest upper bound. */
  coolMaxMs: number;
  /** How long a probe may hold the account's one probe lease (longer than a start can run). */
  probeLeaseMs: number;
  /** The in-flight limit is multiplied by this on a refusal for concurrency (it grows by 1 per `limit` jobs accepted). */
  inflightCut: number;
}

export const CAPACITY_RULES: CapacityRules = {
  coolBaseMs: 10_000,
  coolMaxMs: 5 * 60_000,
  probeLeaseMs: 120_000,
  inflightCut: 0.5,
};

/** The account cools (429s in a row): only a probe may take a slot, and only after `cool_until`. */
export function isCooling(account: Pick<UpstreamAccount, 'cool_streak'>): boolean {
  return (account.cool_streak ?? 0) > 0;
}

/** The jobs the account may still take now: 1 for a cooling account's due probe, else queued and in-flight room. */
export function freeOf(account: UpstreamAccount, now: Date): number {
  if (!account.enabled) return 0;
  const coolingUntil = account.cool_until ? Date.parse(account.cool_until) : 0;
  if (coolingUntil > now.getTime()) return 0;
  const queued = account.capacity - account.in_use;
  const limit = effectiveLimit(account);
  const inflight = limit === undefined ? queued : Math.floor(limit) - (account.inflight ?? 0);
  const room = Math.max(0, Math.min(queued, inflight));
  if (!isCooling(account)) return room;
  const probing = account.probe_until !== undefined && Date.parse(account.probe_until) > now.getTime();
  return probing ? 0 : Math.min(room, 1);
}

/** The limit in force: the learned one, never above the operator's ceiling. */
export function effectiveLimit(account: Pick<UpstreamAccount, 'inflight_limit' | 'inflight_ceiling'>) {
  const { inflight_limit: learned, inflight_ceiling: ceiling } = account;
  if (learned === undefined) return ceiling;
  return ceiling === undefined ? learned : Math.min(learned, ceiling);
}

/**
 * The limit after a job was accepted (`accepted` of them since the last raise, this one included): one more
 * once a whole limit's worth was accepted (additive increase), never above the ceiling; undefined: unchanged.
 */
export function raisedLimit(account: UpstreamAccount, accepted: number): number | undefined {
  const { inflight_limit: limit, inflight_ceiling: ceiling } = account;
  if (limit === undefined || (ceiling !== undefined && limit >= ceiling)) return undefined;
  return accepted >= limit ? limit + 1 : undefined;
}

/** After the `streak`th 429 in a row: a random wait up to base × 2^(streak − 1), capped (full jitter). */
export function coolDownMs(streak: number, random: () => number, rules = CAPACITY_RULES): number {
  const bound = Math.min(rules.coolMaxMs, rules.coolBaseMs * 2 ** Math.max(0, streak - 1));
  return Math.floor(random() * bound);
}

/**
 * The limit after a refusal for concurrency: the jobs the upstream held when it refused (ours in flight
 * but the refused one), cut by `inflightCut`; at least 1, never above the limit before.
 */
export function cutLimit(account: UpstreamAccount, rules = CAPACITY_RULES): number {
  const held = Math.max(0, (account.inflight ?? 1) - 1);
  const before = effectiveLimit(account) ?? held;
  return Math.max(1, Math.floor(Math.min(before, held) * rules.inflightCut));
}
