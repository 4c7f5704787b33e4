/**
 * Upstream accounts and their slots (docs/upstream-capacity.md): each account (one API key) admits `capacity`
 * unfinished jobs; a task holds one slot from its job's create until the job is final. Slots are counted
 * exactly: taking one and giving it back are each one transaction with the task's own record.
 */

/** `<provider>#<name>`: how a task names the account whose slot it holds. */
export type AccountId = string;

export interface UpstreamAccount {
  provider: string;
  name: string;
  capacity: number;
  in_use: number;
  enabled: boolean;
  /** Set with `enabled: false` when the upstream refused the account's key (401/403): an operator's job. */
  disabled_reason?: string;
  /** ISO: no new job before then (the upstream answered 429 on it). */
  cool_until?: string;
  updated_at: string;
}

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

/** What the account gets when a task gives its slot back after the upstream refused the job. */
export type AccountPenalty = { coolUntil: string } | { disable: string };

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
   * One transaction: the account's `in_use` + 1 (under capacity, enabled, not cooling); the task, still
   * pending without a slot, takes it (`upstream_slot`, `upstream_account`, `callback_token`); the entry leaves.
   */
  assign(entry: WaitingEntry, account: UpstreamAccount, callbackToken: string, now: string): Promise<AssignOutcome>;
  /**
   * One transaction: the task gives back the slot it holds in `accountId` and the account's `in_use` − 1,
   * with the penalty if any. False when the task holds no slot there (given back already).
   */
  release(taskId: string, accountId: AccountId, now: string, penalty?: AccountPenalty): Promise<boolean>;
  /** Tasks holding a slot of the account, last touched before `updatedBefore` (for the reconciler). */
  holders(accountId: AccountId, updatedBefore: string, limit: number): Promise<{ task_id: string; status: string }[]>;
}

export function accountIdOf(provider: string, name: string): AccountId {
  return `${provider}#${name}`;
}

/** The account a task's job was (or will be) made with; tasks older than accounts used the only key. */
export const DEFAULT_ACCOUNT = 'default';
