/**
 * The steps of the task lifecycle that the state machine calls (statemachine/task-lifecycle.asl.json).
 * Each step that decides anything re-reads the task, so a step run twice, or resumed after a crash, does
 * no harm: the upstream job is created once, and money moves only in the refund's one-time transaction.
 */
import type { TaskRepository } from '../ports/task-repository.js';
import type { VideoProvider } from '../ports/video-provider.js';
import type { VideoTransfer, VideoUrlSigner } from '../ports/video-storage.js';
import type { TaskRecord } from '../task.js';
import { isFinal } from '../task-status.js';
import {
  ContentModerationError,
  UpstreamAccountError,
  UpstreamBusyError,
  UpstreamConcurrencyError,
  UpstreamConfigurationError,
  UpstreamOutcomeUnknownError,
  UpstreamRejectedError,
  UpstreamTransientError,
} from '../upstream-errors.js';
import type { StepError } from '../workflow-errors.js';
import {
  describeFailure,
  GenerationTimedOutError,
  privateWordsOf,
  TaskNotFoundError,
  UpstreamClaimHeldError,
  WaitingForUpstreamError,
} from '../workflow-errors.js';
import type { ClaimDeps } from './upstream-claim.js';
import {
  accountOf,
  claimSeed,
  claimState,
  jobRequestOf,
  newClaim,
  providerOf,
  settleExpiredClaim,
} from './upstream-claim.js';
import type { AccountPenalty } from '../ports/upstream-capacity.js';
import { CAPACITY_RULES, coolDownMs, cutLimit } from '../upstream-account-rules.js';
import type { WaitingRoomDeps } from './waiting-room.js';
import { accountOfSlot, jobAccepted, leaveWaitingRoom, releaseSlot } from './waiting-room.js';

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

export { accountOf };

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

/** Errors of a create that the upstream answered with a refusal, or that was never sent: no job exists. */
function madeNothing(error: unknown): boolean {
  return [
    UpstreamRejectedError,
    UpstreamTransientError,
    UpstreamBusyError,
    UpstreamAccountError,
    UpstreamConfigurationError,
    ContentModerationError,
  ].some((kind) => error instanceof kind);
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
  const state = claimState(task, deps.now());
  if (state === 'live') throw new UpstreamClaimHeldError('another start of the task is creating its job');
  if (state === 'expired') {
    const settled = await settleExpiredClaim(task, deps);
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
    if (madeNothing(error)) {
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

export interface TransferDeps {
  transfer: VideoTransfer;
}

/** TransferVideo: AwaitCompletion hands over the key, so this step needs no table (and its bundle no DynamoDB). */
export async function transferVideo(sourceUrl: string, videoKey: string, deps: TransferDeps) {
  const { bytes } = await deps.transfer.copy(sourceUrl, videoKey);
  return { video_key: videoKey, bytes };
}

export interface CompleteDeps {
  tasks: TaskRepository;
  signer: VideoUrlSigner;
  now: () => Date;
}

export async function completeTask(taskId: string, videoKey: string, deps: CompleteDeps) {
  const now = deps.now();
  const signed = await deps.signer.sign(videoKey, now);
  const moved = await deps.tasks.moveTo(
    taskId,
    'success',
    {
      finished_at: now.toISOString(),
      video_key: videoKey,
      video_url: signed.url,
      video_url_expires_at: signed.expiresAt,
    },
    now.toISOString(),
  );
  return { status: moved ? 'success' : 'unchanged' };
}

export interface RefundDeps extends WaitingRoomDeps, ClaimDeps {
  tasks: TaskRepository;
  /** Adapters with a short timeout: the refund step has seconds, not minutes. */
  providers: Readonly<Record<string, VideoProvider>>;
  /** Told when the upstream job of a task just failed could not be cancelled. */
  onUpstreamCancelFailure?: (taskId: string, jobId: string, error: unknown) => void;
}

/**
 * Fails the task and refunds it in one transaction that succeeds at most once, however often it runs. Then,
 * only in the run whose transaction refunded (as a cancel does: the refund decides who cleans up), the upstream
 * job is cancelled, best effort: a job still queued stops there instead of generating a video nobody collects.
 * The refund comes first so that an upstream that is slow or down never delays or fails it. A transferring
 * task's job has already succeeded: nothing to stop. Whoever ended the task, its slot (or its place in the
 * waiting room) is given back here too: the slot transaction is once-only as well.
 * A claim without a job (a start that died or lost its create's answer) is waited for while live (the state
 * machine retries UpstreamClaimHeldError), then settled: a job found upstream is adopted and cancelled as any.
 */
export async function failAndRefund(taskId: string, error: StepError, deps: RefundDeps) {
  let task = await deps.tasks.get(taskId);
  if (!task) return { status: 'missing', refunded: false };
  if (isFinal(task.status)) {
    await releaseSlot(task, deps);
    return { status: task.status, refunded: false };
  }
  let expiredClaim: string | undefined;
  const state = claimState(task, deps.now());
  if (state === 'live') throw new UpstreamClaimHeldError("the task's job may still be being created");
  if (state === 'expired') {
    const settled = await settleExpiredClaim(task, deps);
    task = settled.task;
    // Ambiguous: every candidate was reported (alarmed); none is this task's for sure, so none is cancelled.
    if (!task.upstream_job_id && settled.outcome !== 'moved') expiredClaim = task.upstream_claim_id;
  }
  const now = deps.now().toISOString();
  const refunded = await deps.tasks.refund(
    task,
    'failed',
    describeFailure(error, privateWordsOf(deps.providers)),
    now,
    {
      ...(expiredClaim && { expiredClaim }),
    },
  );
  if (!refunded) {
    const latest = await deps.tasks.get(taskId);
    // Not final: a claim came between our read and the refund (a restarted execution's start); try again.
    if (latest && !isFinal(latest.status)) throw new UpstreamClaimHeldError('the task was claimed meanwhile');
  }
  const jobId = task.upstream_job_id;
  if (refunded && jobId && task.status !== 'transferring') {
    await cancelBestEffort(providerOf(task, deps), jobId, accountOf(task), (cancelError) =>
      deps.onUpstreamCancelFailure?.(taskId, jobId, cancelError),
    );
  }
  await leaveWaitingRoom(task, deps);
  await releaseSlot(task, deps);
  return { status: 'failed', refunded };
}

/**
 * Cancels a job no task will collect. `report` hears of a job that goes on to bill (it was running or had
 * succeeded: Ark bills successes) and of a cancel that could not be sent; never thrown, as the task's own
 * outcome is already decided.
 */
async function cancelBestEffort(
  provider: VideoProvider,
  jobId: string,
  account: string,
  report: (error: unknown) => void,
) {
  try {
    const result = await provider.cancelJob(jobId, account);
    if (result.outcome === 'refused' && result.state !== 'failed') {
      report(new Error(`upstream job ${jobId} is ${result.state}: it could not be cancelled and may be billed`));
    }
  } catch (error) {
    report(error);
  }
}

async function loadTask(taskId: string, tasks: TaskRepository): Promise<TaskRecord> {
  const task = await tasks.get(taskId);
  if (!task) throw new TaskNotFoundError(`task ${taskId} does not exist`);
  return task;
}
