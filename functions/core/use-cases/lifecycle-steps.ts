/**
 * The steps of the task lifecycle that the state machine calls (statemachine/task-lifecycle.asl.json).
 * Each step that decides anything re-reads the task, so a step run twice, or resumed after a crash, does
 * no harm: the upstream job is created once, and money moves only in the refund's one-time transaction.
 */
import { ARK_EXPIRY_SECONDS } from '../ark-contract.js';
import type { TaskRepository } from '../ports/task-repository.js';
import type { ProviderJobStatus, VideoProvider } from '../ports/video-provider.js';
import type { VideoTransfer, VideoUrlSigner } from '../ports/video-storage.js';
import type { TaskRecord } from '../task.js';
import { isFinal } from '../task-status.js';
import { UpstreamAccountError, UpstreamBusyError, UpstreamTransientError } from '../upstream-errors.js';
import type { StepError } from '../workflow-errors.js';
import {
  describeFailure,
  GenerationInProgressError,
  GenerationTimedOutError,
  jobFailure,
  TaskNotFoundError,
  UpstreamJobFailedError,
  WaitingForUpstreamError,
} from '../workflow-errors.js';

/**
 * How often a poll marks its task alive (updated_at), at most: one write a minute at the loop's cadence. The
 * reconciler looks only at tasks untouched for RECONCILE_MIN_AGE_SECONDS (default 120 s), which must stay above
 * this plus the longest wait between polls (60 s), so that a live execution is not described every minute.
 */
export const HEARTBEAT_MS = 30_000;

/**
 * The job's `execution_expires_after`: what is left of the task's deadline, within Ark's bounds (ark-notes
 * "Create body": 3600 … 259200 s), so that a job still unfinished at the deadline expires upstream (unbilled)
 * instead of generating a video nobody collects. A deadline under an hour away still gives the job Ark's
 * minimum hour; the poll loop then waits for the job until that expiry (pollDeadline), as Ark bills a job that
 * finishes before it: the customer gets the video late rather than us paying for one we refunded.
 */
export function upstreamExpirySeconds(deadlineAt: string, now: Date): number {
  const left = Math.ceil((Date.parse(deadlineAt) - now.getTime()) / 1000);
  return Math.min(Math.max(left, ARK_EXPIRY_SECONDS.min), ARK_EXPIRY_SECONDS.max);
}

/**
 * How long an upstream job cancelled under a live task is taken for a customer's cancel still recording its
 * refund (the cancel stops the job first, then refunds): the poll leaves the task to it meanwhile, so that the
 * task ends `refunded`, not `failed`. A job cancelled longer ago (by an operator, say) fails the task.
 */
export const CANCEL_SETTLE_MS = 30_000;

export interface LifecycleDeps {
  tasks: TaskRepository;
  providers: Readonly<Record<string, VideoProvider>>;
  now: () => Date;
  /** Told when a job made for a task that ended meanwhile could not be cancelled upstream. */
  onOrphanJobCancelFailure?: (taskId: string, jobId: string, error: unknown) => void;
}

/** What the state machine keeps after the poll loop (`$.upstream`). */
export type UpstreamProgress =
  { state: 'final' } | { state: 'succeeded'; job_id: string; video_url: string; video_key: string };

/** Where a task's video lives in our bucket: under its account, so an account's videos share a prefix. */
export function videoKeyOf(task: Pick<TaskRecord, 'account_id' | 'task_id'>): string {
  return `videos/${task.account_id}/${task.task_id}.mp4`;
}

/** StartUpstream: the job exists (created now or before) and the task is running, unless it ended meanwhile. */
export type StartOutcome = { state: 'final' } | { state: 'started'; job_id: string };

export async function startUpstreamJob(taskId: string, deps: LifecycleDeps): Promise<StartOutcome> {
  const task = await loadTask(taskId, deps.tasks);
  if (isFinal(task.status)) return { state: 'final' };
  if (task.upstream_job_id) return { state: 'started', job_id: task.upstream_job_id };
  // A task restarted after its deadline (its execution timed out, or never ran) gets no job it could not use.
  if (deps.now().getTime() > Date.parse(task.deadline_at)) {
    throw new GenerationTimedOutError(`the task was not started by ${task.deadline_at}`);
  }
  const { jobId, expiresAt } = await createUpstreamJob(task, deps);
  const recorded = await deps.tasks.recordUpstreamJob(task.task_id, jobId, deps.now().toISOString(), expiresAt);
  if (recorded.upstream_job_id === jobId) return { state: 'started', job_id: jobId };
  // A cancel (or another final move) came between our read and our write: the job we just made belongs
  // to no task, and the upstream would bill a video nobody collects. Cancel it, best effort.
  await cancelBestEffort(providerOf(task, deps), jobId, (error) =>
    deps.onOrphanJobCancelFailure?.(task.task_id, jobId, error),
  );
  return isFinal(recorded.status) || !recorded.upstream_job_id
    ? { state: 'final' }
    : { state: 'started', job_id: recorded.upstream_job_id };
}

/**
 * An upstream that cannot take the job now (busy: 429; our key or account refused: alarmed) is no reason to
 * fail: the task waits, and the state's first retrier creates again later. Only the task's deadline, checked
 * above on every try, ends the wait (with the usual timed-out refund): that retrier's attempts count over the
 * state's whole life, so it is given more than the execution's 12 h can use, as is the poll loop's.
 */
async function createUpstreamJob(task: TaskRecord, deps: LifecycleDeps): Promise<{ jobId: string; expiresAt: string }> {
  const now = deps.now();
  // The fields ProviderJobRequest leaves out; every other field of the generation goes upstream as stored.
  const { modelId: _modelId, modelName: _modelName, webhookUrl: _webhookUrl, ...generation } = task.generation;
  const expiresAfterSeconds = upstreamExpirySeconds(task.deadline_at, now);
  try {
    const { jobId } = await providerOf(task, deps).createJob({
      upstreamModel: task.upstream_model,
      ...generation,
      expiresAfterSeconds,
    });
    return { jobId, expiresAt: new Date(now.getTime() + expiresAfterSeconds * 1000).toISOString() };
  } catch (error) {
    if (error instanceof UpstreamBusyError || error instanceof UpstreamAccountError) {
      await markAlive(task, now, deps);
      throw new WaitingForUpstreamError(`${error.message}; trying again until ${task.deadline_at}`);
    }
    throw error;
  }
}

/**
 * PollUpstream, one try of the state's poll loop. A job still generating throws GenerationInProgressError,
 * which the state's first retrier answers by polling again later: Step Functions bills one transition per
 * poll that way, against three for a Wait → Task → Choice loop. A job that succeeded moves the task to
 * `transferring` here (a status query may have done it first; a cancel that won makes the task final).
 */
export async function pollUpstreamJob(taskId: string, deps: LifecycleDeps): Promise<UpstreamProgress> {
  const task = await loadTask(taskId, deps.tasks);
  if (isFinal(task.status)) return { state: 'final' };
  const now = deps.now();
  const deadline = pollDeadline(task);
  if (now.getTime() > deadline) {
    throw new GenerationTimedOutError(`no result from the generator by ${new Date(deadline).toISOString()}`);
  }
  const jobId = task.upstream_job_id;
  if (!jobId) throw new TaskNotFoundError(`task ${taskId} has no upstream job to poll`);
  const job = await askUpstream(task, jobId, now, deps);
  switch (job.state) {
    case 'succeeded': {
      const moved = await deps.tasks.moveTo(taskId, 'transferring', {}, now.toISOString());
      if (!moved && isFinal((await loadTask(taskId, deps.tasks)).status)) return { state: 'final' };
      return { state: 'succeeded', job_id: jobId, video_url: job.videoUrl, video_key: videoKeyOf(task) };
    }
    case 'failed':
      throw jobFailure(job);
    case 'cancelled':
      if (cancelledJustNow(job, now)) {
        throw await stillGenerating(task, now, deps, `upstream job ${jobId} was just cancelled; awaiting the refund`);
      }
      throw new UpstreamJobFailedError('the generator cancelled the task');
    default:
      throw await stillGenerating(task, now, deps, `upstream job ${jobId} is ${job.state}`);
  }
}

function cancelledJustNow(job: Extract<ProviderJobStatus, { state: 'cancelled' }>, now: Date): boolean {
  return job.cancelledAt !== undefined && now.getTime() - Date.parse(job.cancelledAt) < CANCEL_SETTLE_MS;
}

/** Ark counts the expiry from its own clock and reports `expired` on a later read: a little slack. */
export const UPSTREAM_EXPIRY_GRACE_MS = 5 * 60_000;

/**
 * When the poll loop gives up: the task's deadline, or, for a job whose upstream expiry comes later (Ark's
 * minimum hour), that expiry: until then the job may still finish, and be billed.
 */
export function pollDeadline(task: Pick<TaskRecord, 'deadline_at' | 'upstream_expires_at'>): number {
  const deadline = Date.parse(task.deadline_at);
  if (!task.upstream_expires_at) return deadline;
  return Math.max(deadline, Date.parse(task.upstream_expires_at) + UPSTREAM_EXPIRY_GRACE_MS);
}

/**
 * A brief upstream outage (5xx, 429, a timeout) is not the job's end, nor is a key or bill an operator must
 * fix (alarmed): the loop polls again later, until the task's deadline. Step Functions counts a retrier's
 * attempts over the whole life of the state, so a retrier of its own would fail a long generation after a
 * handful of hiccups spread over hours.
 */
async function askUpstream(task: TaskRecord, jobId: string, now: Date, deps: LifecycleDeps) {
  try {
    return await providerOf(task, deps).getJob(jobId);
  } catch (error) {
    if (
      error instanceof UpstreamTransientError ||
      error instanceof UpstreamBusyError ||
      error instanceof UpstreamAccountError
    ) {
      throw await stillGenerating(task, now, deps, `upstream unavailable (${error.message}); polling again`);
    }
    throw error;
  }
}

/** The error that makes the loop poll again, after marking the task alive for the reconciler. */
async function stillGenerating(task: TaskRecord, now: Date, deps: LifecycleDeps, message: string) {
  await markAlive(task, now, deps);
  return new GenerationInProgressError(message);
}

/**
 * Marks a task that waits in a retrier alive for the reconciler, at most every HEARTBEAT_MS. Best effort: a
 * missed mark costs the reconciler one look at a running execution, no more.
 */
async function markAlive(task: TaskRecord, now: Date, deps: Pick<LifecycleDeps, 'tasks'>): Promise<void> {
  if (now.getTime() - Date.parse(task.updated_at) >= HEARTBEAT_MS) {
    await deps.tasks.touch(task.task_id, now.toISOString()).catch(() => false);
  }
}

export interface TransferDeps {
  transfer: VideoTransfer;
}

/** TransferVideo: PollUpstream hands over the key, so this step needs no table (and its bundle no DynamoDB). */
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

export interface RefundDeps {
  tasks: TaskRepository;
  /** Adapters with a short timeout: the refund step has seconds, not minutes. */
  providers: Readonly<Record<string, VideoProvider>>;
  now: () => Date;
  /** Told when the upstream job of a task just failed could not be cancelled. */
  onUpstreamCancelFailure?: (taskId: string, jobId: string, error: unknown) => void;
}

/**
 * Fails the task and refunds it in one transaction that succeeds at most once, however often it runs. Then,
 * only in the run whose transaction refunded (as a cancel does: the refund decides who cleans up), the upstream
 * job is cancelled, best effort: a job still queued stops there instead of generating a video nobody collects.
 * The refund comes first so that an upstream that is slow or down never delays or fails it. A transferring
 * task's job has already succeeded: nothing to stop.
 */
export async function failAndRefund(taskId: string, error: StepError, deps: RefundDeps) {
  const task = await deps.tasks.get(taskId);
  if (!task || isFinal(task.status)) return { status: task?.status ?? 'missing', refunded: false };
  const refunded = await deps.tasks.refund(task, 'failed', describeFailure(error), deps.now().toISOString());
  const jobId = task.upstream_job_id;
  if (refunded && jobId && task.status !== 'transferring') {
    await cancelBestEffort(providerOf(task, deps), jobId, (cancelError) =>
      deps.onUpstreamCancelFailure?.(taskId, jobId, cancelError),
    );
  }
  return { status: 'failed', refunded };
}

/**
 * Cancels a job no task will collect. `report` hears of a job that goes on to bill (it was running or had
 * succeeded: Ark bills successes) and of a cancel that could not be sent; never thrown, as the task's own
 * outcome is already decided.
 */
async function cancelBestEffort(provider: VideoProvider, jobId: string, report: (error: unknown) => void) {
  try {
    const result = await provider.cancelJob(jobId);
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

function providerOf(task: TaskRecord, deps: Pick<LifecycleDeps, 'providers'>): VideoProvider {
  const provider = deps.providers[task.upstream_provider];
  if (!provider) throw new Error(`no adapter for upstream provider ${task.upstream_provider}`);
  return provider;
}
