import type { IdempotencyRecord } from '../idempotency.js';
import type { TaskRecord } from '../task.js';
import type { TaskStatus } from '../task-status.js';

export interface Charge {
  accountId: string;
  keyHash: string;
  keyHasQuota: boolean;
  costUnits: number;
  /** The request's Idempotency-Key record, written in the same transaction (docs/api-contract.md, "Idempotency-Key"). */
  idempotency?: IdempotencyRecord;
  /**
   * Epoch ms by which the charge must be settled, so the caller can still answer: no try starts later
   * (docs/money-and-ledger.md, "Charge and refund transactions"). Absent: the repository's own bound.
   */
  settleBy?: number;
}

/**
 * The charge was written for a key with (or without) a spend quota, and the stored key now says otherwise:
 * the caller's copy of the key is out of date. Nothing was charged; read the key again and retry.
 */
export class KeyChangedError extends Error {
  override readonly name = 'KeyChangedError';
  constructor() {
    super("the API key's quota changed while the task was being charged");
  }
}

/** A claim as StartUpstream writes it (ISO times; `until` is `at` plus the lease). */
export interface UpstreamClaim {
  id: string;
  at: string;
  until: string;
  seed: number;
}

/** What the reconciler reads of a task in flight (all the in-flight index holds). */
export type StaleTask = Pick<TaskRecord, 'task_id' | 'status' | 'updated_at' | 'execution_name' | 'restarts'>;

export interface TaskRepository {
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * One transaction: debit the balance (if enough), add to the key's spend (if under its quota), put the task,
   * its ledger entry (`charge:<task>`) and the idempotency record when given. Throws IdempotencyKeyTakenError (a
   * live record holds the key), InsufficientBalanceError, KeyQuotaExceededError, AuthenticationError (key
   * disabled or gone) or KeyChangedError (`charge.keyHasQuota` no longer matches the stored key).
   */
  createCharged(task: TaskRecord, charge: Charge): Promise<void>;
  /**
   * Stores the upstream job id (and when the upstream expires it) once; the status stays (the job is queued).
   * Returns the task after the write.
   */
  recordUpstreamJob(taskId: string, jobId: string, now: string, expiresAt?: string): Promise<TaskRecord>;
  /**
   * Claims the task for a job create: only while it is pending or running with no job recorded, and with no
   * claim, or (`previous`) with that claim expired at `claim.at` (its job looked for upstream first). Returns
   * false when the condition failed (nothing changed).
   */
  claimUpstream(taskId: string, claim: UpstreamClaim, previous?: string): Promise<boolean>;
  /** Drops the claim `claimId` while no job is recorded: its create failed before the upstream made anything. */
  releaseUpstreamClaim(taskId: string, claimId: string): Promise<void>;
  /** Conditional move (from any state that may precede `to`). Returns false when the task was not in one. */
  moveTo(taskId: string, to: TaskStatus, fields: Partial<TaskRecord>, now: string): Promise<boolean>;
  /**
   * One transaction that can succeed only once: status → `to` (failed or refunded) with the message,
   * balance and key spend given back, ledger entry `refund:<task>`. Returns false when the task was already final (nothing changed), or,
   * with `withoutJob`, when an upstream job has been recorded for it meanwhile (a cancel must stop it first).
   * It also never commits while a claim without a job may still make one: a task with a claim and no job is
   * refunded only with `expiredClaim` naming that claim, expired at `now` (its job looked for and not found).
   */
  refund(
    task: TaskRecord,
    to: 'failed' | 'refunded',
    errorMessage: string,
    now: string,
    options?: { withoutJob?: boolean; expiredClaim?: string },
  ): Promise<boolean>;
  saveVideoUrl(taskId: string, url: string, expiresAt: string): Promise<void>;
  /**
   * Tasks in flight (pending, running, transferring) last touched before `updatedBefore` (ISO): the oldest
   * `limit` of them, oldest first.
   */
  findStale(updatedBefore: string, limit: number): Promise<StaleTask[]>;
  /** Records the task token of the execution's wait for the job (wake_token), and marks the task alive. */
  registerWake(taskId: string, token: string, now: string): Promise<boolean>;
  /** Marks a task in flight as alive (its `updated_at` = `now`). Returns false when it is final. */
  touch(taskId: string, now: string): Promise<boolean>;
  /** Records that the task is now driven by `executionName`, if it is still in flight. */
  recordExecution(taskId: string, executionName: string, now: string): Promise<boolean>;
}
