/**
 * StartUpstream (docs/task-lifecycle.md, "The state machine", "Claims before upstream creates"). Primary course:
 * the task, within its deadline and holding an upstream slot, is claimed; its provider creates the job, to expire
 * upstream by the deadline; the job is recorded for the task; the step answers how long to wait for its end.
 * Run twice or resumed after a crash, it makes no second job: a recorded job is reused, a claim waited for or settled.
 */
import type { TaskRepository } from '../ports/task-repository.js';
import type { AccountPenalty } from '../ports/upstream-capacity.js';
import type { VideoProvider } from '../ports/video-provider.js';
import type { TaskRecord } from '../task.js';
import { isFinal } from '../task-status.js';
import { CAPACITY_RULES, coolDownMs, cutLimit } from '../upstream-account-rules.js';
import {
  madeNoJob,
  UpstreamAccountError,
  UpstreamBusyError,
  UpstreamConcurrencyError,
  UpstreamOutcomeUnknownError,
} from '../upstream-errors.js';
import {
  GenerationTimedOutError,
  TaskNotFoundError,
  UpstreamClaimHeldError,
  WaitingForUpstreamError,
} from '../workflow-errors.js';
import { cancelBestEffort } from './cancel-best-effort.js';
import type { ClaimDeps } from './upstream-claim.js';
import { accountOf, claimSeed, jobRequestOf, newClaim, providerOf, settleClaimWithoutJob } from './upstream-claim.js';
import type { WaitingRoomDeps } from './waiting-room.js';
import { accountOfSlot, jobAccepted, releaseSlot } from './waiting-room.js';

/**
 * The job's upstream expiry: what is left of the task's deadline, within the provider's bounds (its adapter's
 * `jobExpirySeconds`, docs/providers/README.md), so that a job still unfinished at the deadline expires
 * upstream (unbilled) instead of generating a video nobody collects. A deadline closer than the minimum still
 * gives the job that minimum; the wait then lasts until that expiry (pollDeadline), as an upstream bills a job
 * that finishes before it: the customer gets the video late rather than us paying for one we refunded.
 */
export function upstreamExpirySeconds(deadlineAt: string, now: Date, bounds: { min: number; max: number }): number {
  const left = Math.ceil((Date.parse(deadlineAt) - now.getTime()) / 1000);
  return Math.min(Math.max(left, bounds.min), bounds.max);
}

export interface LifecycleDeps extends WaitingRoomDeps, ClaimDeps {
  tasks: TaskRepository;
  providers: Readonly<Record<string, VideoProvider>>;
  /** The upstream's callback URL for a task (docs/task-lifecycle.md, "Completion"); undefined: no callbacks, polling only. */
  callbackUrl: (task: TaskRecord) => string | undefined;
  /**
   * AwaitCompletion's fallback poll (its timeout), in seconds: `callback` for a job that reports its end, so
   * only a lost callback waits for it; `polling` for one that cannot (no callback URL configured).
   */
  checkSeconds: { callback: number; polling: number };
  /** Told when a job made for a task that ended meanwhile could not be cancelled upstream. */
  onOrphanJobCancelFailure?: (taskId: string, jobId: string, error: unknown) => void;
  /** A new claim's id and a random seed (defaults: Web Crypto). */
  newClaimId?: () => string;
  random?: () => number;
  /** A number in [0, 1) for a cool-down's jitter (default Math.random). */
  jitter?: () => number;
}

function randomClaimId(): string {
  return globalThis.crypto.randomUUID();
}

/** A seed within every provider's range (0 … 2^31 − 1; docs/providers/README.md). */
function randomSeed(): number {
  return globalThis.crypto.getRandomValues(new Uint32Array(1))[0]! >>> 1;
}

/**
 * StartUpstream: the job exists (created now or before) and the task is running, unless it ended meanwhile;
 * `check_seconds` is the timeout of the wait for its end (the state machine's `$.watch`).
 */
export type StartOutcome = ({ state: 'final' } | { state: 'started'; job_id: string }) & { check_seconds: number };

export async function startUpstreamJob(taskId: string, deps: LifecycleDeps): Promise<StartOutcome> {
  const started = await startJob(taskId, deps);
  const task = await deps.tasks.get(taskId);
  const callbacks = task !== undefined && deps.callbackUrl(task) !== undefined;
  return { ...started, check_seconds: callbacks ? deps.checkSeconds.callback : deps.checkSeconds.polling };
}

async function startJob(
  taskId: string,
  deps: LifecycleDeps,
): Promise<{ state: 'final' } | { state: 'started'; job_id: string }> {
  let task = await loadTask(taskId, deps.tasks);
  if (isFinal(task.status)) return { state: 'final' };
  if (task.upstream_job_id) return { state: 'started', job_id: task.upstream_job_id };
  // A task restarted after its deadline (its execution timed out, or never ran) gets no job it could not use;
  // FailAndRefund settles any claim it holds.
  if (deps.now().getTime() > Date.parse(task.deadline_at)) {
    throw new GenerationTimedOutError(`the task was not started by ${task.deadline_at}`);
  }
  // Only the waiting room hands out slots; a task here without one goes back there.
  if (!task.upstream_slot) throw new WaitingForUpstreamError('the task holds no upstream slot');
  // A claim without a job: its create may have made one. Live: wait (the state machine retries) rather than
  // make a second; expired: the job its lost answer named is looked for upstream, and adopted when found.
  let previous: string | undefined;
  const settled = await settleClaimWithoutJob(task, deps, 'another start of the task is creating its job');
  if (settled) {
    task = settled.task;
    if (isFinal(task.status)) return { state: 'final' };
    if (task.upstream_job_id) return { state: 'started', job_id: task.upstream_job_id };
    if (settled.outcome === 'ambiguous') {
      throw new UpstreamOutcomeUnknownError("more than one upstream job may be this task's; none was adopted");
    }
    if (settled.outcome !== 'none') throw new UpstreamClaimHeldError('the task moved while its claim was settled');
    previous = task.upstream_claim_id;
  }
  // The claim comes first: from here until a job is recorded or the lease runs out, nothing refunds the task.
  const claim = newClaim(deps.now(), (deps.newClaimId ?? randomClaimId)(), claimSeed(task, deps.random ?? randomSeed));
  if (!(await deps.tasks.claimUpstream(task.task_id, claim, previous))) {
    const latest = await loadTask(taskId, deps.tasks);
    if (isFinal(latest.status)) {
      await releaseSlot(latest, deps);
      return { state: 'final' };
    }
    if (latest.upstream_job_id) return { state: 'started', job_id: latest.upstream_job_id };
    throw new UpstreamClaimHeldError('another start of the task claimed it first');
  }
  const claimed: TaskRecord = {
    ...task,
    upstream_claim_id: claim.id,
    upstream_claim_at: claim.at,
    upstream_claim_until: claim.until,
    upstream_seed: claim.seed,
  };
  const { jobId, expiresAt } = await createUpstreamJob(claimed, claim.id, deps);
  const recorded = await deps.tasks.recordUpstreamJob(task.task_id, jobId, deps.now().toISOString(), expiresAt);
  // The job exists whatever follows: a failure to note the account's success must not fail the step.
  await jobAccepted(task, deps).catch((error: unknown) => deps.onDispatchError?.(error));
  if (recorded.upstream_job_id === jobId) return { state: 'started', job_id: jobId };
  // Only a claim that outlived its lease gets here (the task ended, or another start recorded its own job): the
  // job we just made belongs to no task, and the upstream would bill a video nobody collects. Cancel it.
  deps.onJobOrphaned?.(task.task_id, jobId, 'the task moved while its job was created');
  await cancelBestEffort(providerOf(task, deps), jobId, accountOf(task), (error) =>
    deps.onOrphanJobCancelFailure?.(task.task_id, jobId, error),
  );
  // Another run's job, still going, keeps the slot; a task that ended gives it back.
  if (isFinal(recorded.status) || !recorded.upstream_job_id) {
    await releaseSlot(recorded, deps);
    return { state: 'final' };
  }
  return { state: 'started', job_id: recorded.upstream_job_id };
}

/**
 * An upstream that cannot take the job now is no reason to fail (docs/upstream-capacity.md): the task gives its slot
 * back and returns to the waiting room, keeping its place. A 429 (rate limits, or the account's cap reached
 * through another client of the key) cools the account down for a while; a refused key or account (401/403)
 * takes the account out of use until an operator enables it again (alarmed). Only the deadline ends the wait.
 * A create the upstream refused made nothing: its claim is dropped, so a cancel need not wait for the lease.
 */
async function createUpstreamJob(
  task: TaskRecord,
  claimId: string,
  deps: LifecycleDeps,
): Promise<{ jobId: string; expiresAt: string }> {
  const now = deps.now();
  const provider = providerOf(task, deps);
  const expiresAfterSeconds = upstreamExpirySeconds(task.deadline_at, now, provider.jobExpirySeconds);
  const request = jobRequestOf(task, { expiresAfterSeconds, callbackUrl: deps.callbackUrl(task) });
  try {
    const { jobId } = await provider.createJob(request);
    return { jobId, expiresAt: new Date(now.getTime() + expiresAfterSeconds * 1000).toISOString() };
  } catch (error) {
    // Only an outcome the adapter could not know (a timeout, a lost answer) keeps the claim: it may have a job.
    if (madeNoJob(error)) {
      await deps.tasks.releaseUpstreamClaim(task.task_id, claimId);
    }
    if (error instanceof UpstreamBusyError || error instanceof UpstreamAccountError) {
      const penalty =
        error instanceof UpstreamBusyError ? await coolDown(task, error, deps) : { disable: error.message };
      await releaseSlot(task, deps, penalty);
      throw new WaitingForUpstreamError(`${error.message}; back to the waiting room until ${task.deadline_at}`);
    }
    throw error;
  }
}

/**
 * A 429 on the account: it cools for a random time below a bound that doubles with each 429 in a row (full
 * jitter); a refusal for concurrency also cuts its in-flight limit (docs/upstream-capacity.md).
 */
async function coolDown(task: TaskRecord, error: UpstreamBusyError, deps: LifecycleDeps): Promise<AccountPenalty> {
  const accounts = await deps.capacity.accounts(task.upstream_provider);
  const account = task.upstream_slot ? accountOfSlot(accounts, task.upstream_slot) : undefined;
  const streak = (account?.cool_streak ?? 0) + 1;
  const waitMs = coolDownMs(streak, deps.jitter ?? Math.random, CAPACITY_RULES);
  const coolUntil = new Date(deps.now().getTime() + waitMs).toISOString();
  if (account && error instanceof UpstreamConcurrencyError) return { coolUntil, inflightLimit: cutLimit(account) };
  return { coolUntil };
}

async function loadTask(taskId: string, tasks: TaskRepository): Promise<TaskRecord> {
  const task = await tasks.get(taskId);
  if (!task) throw new TaskNotFoundError(`task ${taskId} does not exist`);
  return task;
}
