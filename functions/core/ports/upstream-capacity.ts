/**
 * Upstream accounts and their slots (docs/upstream-capacity.md): an account is a provider's master account,
 * whose API keys share its `capacity` of queued jobs. A task holds a slot from its job's create until the job
 * runs (or ends), and counts in the account's jobs in flight until it ends. Both are counted exactly: every
 * change is one transaction with the task's own record.
 */

/** `<provider>#<name>`: how a task names the account whose slot it holds. */
export type AccountId = string;

export interface UpstreamAccount {
  provider: string;
  /** The master account's name in our records. */
  name: string;
  /** The names of its API keys in the provider's secret; absent: the one key named as the account. */
  keys?: string[];
  /** Queued jobs the account may hold (Ark: 120 per master account). */
  capacity: number;
  /** Queued jobs held: slots taken and not yet given back (the job has not started running or ended). */
  in_use: number;
  /** Jobs created and not yet ended, queued or running (absent: 0). */
  inflight?: number;
  /** The learned limit on `inflight` (AIMD: cut on a refusal for concurrency, raised on success); absent: none. */
  inflight_limit?: number;
  /** The operator's ceiling for `inflight_limit` (absent: none). */
  inflight_ceiling?: number;
  /** Jobs accepted since the in-flight limit last changed (it grows by 1 per limit's worth). */
  inflight_accepted?: number;
  enabled: boolean;
  /** Set with `enabled: false` when the upstream refused the account's key (401/403): an operator's job. */
  disabled_reason?: string;
  /** ISO: no new job before then (the upstream answered 429 on it). */
  cool_until?: string;
  /** 429s in a row; above 0 the account cools: after `cool_until` one probe job at a time tests it. */
  cool_streak?: number;
  /** ISO: while cooling, the live probe's lease (no second probe before then). */
  probe_until?: string;
  updated_at: string;
}

/** Where a task's job is in the account's count: holding a queued slot, or running (the slot given back). */
export type SlotPhase = 'queued' | 'running';

/** A task in the waiting room: its place is its submit time, so tasks start in submit order. */
export interface WaitingEntry {
  provider: string;
  /** `<created_at>#<task_id>`: sorts in submit order. */
  position: string;
  task_id: string;
  /** The task token of the execution's wait (Step Functions), to wake it. */
  token: string;
  entered_at: string;
}

/**
 * What the account gets when a task gives its slot back after the upstream refused the job: a cool-down (429;
 * the streak grows, the probe ends; `inflightLimit`: the limit cut for a refusal for concurrency), or out of
 * use (401/403).
 */
export type AccountPenalty = { coolUntil: string; inflightLimit?: number } | { disable: string };

/** How a task takes a slot: with which of the account's keys, and whether as the cooling account's probe. */
export interface AssignOptions {
  key: string;
  /** The account cools (`cool_streak` as read): the task is its one probe, leased until then. */
  probe?: { streak: number; until: string };
}

export type AssignOutcome =
  /** The task holds a slot of the account now; its entry left the waiting room. */
  | 'assigned'
  /** The account has no free slot (or was disabled or is cooling) after all. */
  | 'account-full'
  /** The entry left or was entered again (a new token) meanwhile. */
  | 'entry-changed'
  /** The task is no longer pending without a slot: its entry is stale. */
  | 'task-not-waiting'
  /** Another dispatcher's transaction held one of the items: try another entry. */
  | 'conflict';

export interface UpstreamCapacity {
  /** The provider's accounts, read consistently. */
  accounts(provider: string): Promise<UpstreamAccount[]>;
  /** Puts the task in the waiting room, or gives its entry the new token. */
  enqueue(entry: WaitingEntry): Promise<void>;
  /** The `limit` oldest entries, read consistently. */
  oldest(provider: string, limit: number): Promise<WaitingEntry[]>;
  /** How many entries wait before `position`. */
  countBefore(provider: string, position: string): Promise<number>;
  /** Removes the entry (if `token` given: only while it still has that token). */
  leave(provider: string, position: string, token?: string): Promise<void>;
  /**
   * One transaction: the account's `in_use` and `inflight` + 1 (under capacity and the in-flight limit,
   * enabled, not cooling, or as its one probe); the task, still pending without a slot, takes it
   * (`upstream_slot`, phase queued, `upstream_account` = the key, `callback_token`); the entry leaves.
   */
  assign(
    entry: WaitingEntry,
    account: UpstreamAccount,
    callbackToken: string,
    now: string,
    options: AssignOptions,
  ): Promise<AssignOutcome>;
  /**
   * One transaction: the task's job ended (or was refused): the task gives back what it holds in
   * `accountId` (its queued slot, if still queued, and its place in flight), with the penalty if any.
   * False when the task holds nothing there (given back already).
   */
  release(taskId: string, accountId: AccountId, now: string, penalty?: AccountPenalty): Promise<boolean>;
  /**
   * One transaction: the task's job runs upstream: its queued slot is given back (`in_use` − 1), it stays in
   * flight. False when the task holds no queued slot there.
   */
  started(taskId: string, accountId: AccountId, now: string): Promise<boolean>;
  /**
   * The upstream accepted a job on the account: a cooling ends (streak 0, probe lease gone) and the in-flight
   * limit grows by 1 per limit's worth of accepted jobs (`raisedLimit`), never above the ceiling. True when a
   * cooling ended (the room may go on).
   */
  accepted(accountId: AccountId, now: string): Promise<boolean>;
  /** Tasks holding a slot of the account, last touched before `updatedBefore` (for the reconciler). */
  holders(accountId: AccountId, updatedBefore: string, limit: number): Promise<{ task_id: string; status: string }[]>;
}

export function accountIdOf(provider: string, name: string): AccountId {
  return `${provider}#${name}`;
}

/** The account a task's job was (or will be) made with; tasks older than accounts used the only key. */
export const DEFAULT_ACCOUNT = 'default';
