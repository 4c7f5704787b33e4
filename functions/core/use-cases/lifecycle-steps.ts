/**
 * The steps of the task lifecycle that the state machine calls (statemachine/task-lifecycle.asl.json).
 * Each step that decides anything re-reads the task, so a step run twice, or resumed after a crash, does
 * no harm: the upstream job is created once, and money moves only in the refund's one-time transaction.
 */
import { ARK_EXPIRY_SECONDS } from '../ark-contract.js';
import type { TaskRepository } from '../ports/task-repository.js';
import { DEFAULT_ACCOUNT } from '../ports/upstream-capacity.js';
import type { VideoProvider } from '../ports/video-provider.js';
import type { VideoTransfer, VideoUrlSigner } from '../ports/video-storage.js';
import type { TaskRecord } from '../task.js';
import { isFinal } from '../task-status.js';
import { UpstreamAccountError, UpstreamBusyError } from '../upstream-errors.js';
import type { StepError } from '../workflow-errors.js';
import {
  describeFailure,
  GenerationTimedOutError,
  TaskNotFoundError,
  WaitingForUpstreamError,
} from '../workflow-errors.js';
import type { WaitingRoomDeps } from './waiting-room.js';
import { leaveWaitingRoom, releaseSlot } from './waiting-room.js';

/**
 * The job's `execution_expires_after`: what is left of the task's deadline, within Ark's bounds (ark-notes
 * "Create body": 3600 … 259200 s), so that a job still unfinished at the deadline expires upstream (unbilled)
 * instead of generating a video nobody collects. A deadline under an hour away still gives the job Ark's
 * minimum hour; the wait then lasts until that expiry (pollDeadline), as Ark bills a job that finishes
 * before it: the customer gets the video late rather than us paying for one we refunded.
 */
export function upstreamExpirySeconds(deadlineAt: string, now: Date): number {
  const left = Math.ceil((Date.parse(deadlineAt) - now.getTime()) / 1000);
  return Math.min(Math.max(left, ARK_EXPIRY_SECONDS.min), ARK_EXPIRY_SECONDS.max);
}

/** How long an account that answered 429 gets no new job (the task that met it pauses as long: see the ASL). */
export const ACCOUNT_COOL_DOWN_MS = 10_000;

export interface LifecycleDeps extends WaitingRoomDeps {
  tasks: TaskRepository;
  providers: Readonly<Record<string, VideoProvider>>;
  /** The upstream's callback URL for a task (DESIGN §3 row 33); undefined: no callbacks, polling only. */
  callbackUrl: (task: TaskRecord) => string | undefined;
  /**
   * AwaitCompletion's fallback poll (its timeout), in seconds: `callback` for a job that reports its end, so
   * only a lost callback waits for it; `polling` for one that cannot (no callback URL configured).
   */
  checkSeconds: { callback: number; polling: number };
  /** Told when a job made for a task that ended meanwhile could not be cancelled upstream. */
  onOrphanJobCancelFailure?: (taskId: string, jobId: string, error: unknown) => void;
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
  const task = await loadTask(taskId, deps.tasks);
  if (isFinal(task.status)) return { state: 'final' };
  if (task.upstream_job_id) return { state: 'started', job_id: task.upstream_job_id };
  // A task restarted after its deadline (its execution timed out, or never ran) gets no job it could not use.
  if (deps.now().getTime() > Date.parse(task.deadline_at)) {
    throw new GenerationTimedOutError(`the task was not started by ${task.deadline_at}`);
  }
  // Only the waiting room hands out slots; a task here without one goes back there.
  if (!task.upstream_slot) throw new WaitingForUpstreamError('the task holds no upstream slot');
  const { jobId, expiresAt } = await createUpstreamJob(task, deps);
  const recorded = await deps.tasks.recordUpstreamJob(task.task_id, jobId, deps.now().toISOString(), expiresAt);
  if (recorded.upstream_job_id === jobId) return { state: 'started', job_id: jobId };
  // A cancel (or another final move) came between our read and our write: the job we just made belongs
  // to no task, and the upstream would bill a video nobody collects. Cancel it, best effort.
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
 * An upstream that cannot take the job now is no reason to fail (DESIGN §3 row 32): the task gives its slot
 * back and returns to the waiting room, keeping its place. A 429 (rate limits, or the account's cap reached
 * through another client of the key) cools the account down for a while; a refused key or account (401/403)
 * takes the account out of use until an operator enables it again (alarmed). Only the deadline ends the wait.
 */
async function createUpstreamJob(task: TaskRecord, deps: LifecycleDeps): Promise<{ jobId: string; expiresAt: string }> {
  const now = deps.now();
  // The fields ProviderJobRequest leaves out; every other field of the generation goes upstream as stored.
  const { modelId: _modelId, modelName: _modelName, webhookUrl: _webhookUrl, ...generation } = task.generation;
  const expiresAfterSeconds = upstreamExpirySeconds(task.deadline_at, now);
  const callbackUrl = deps.callbackUrl(task);
  try {
    const { jobId } = await providerOf(task, deps).createJob({
      upstreamModel: task.upstream_model,
      account: accountOf(task),
      ...generation,
      expiresAfterSeconds,
      ...(callbackUrl && { callbackUrl }),
    });
    return { jobId, expiresAt: new Date(now.getTime() + expiresAfterSeconds * 1000).toISOString() };
  } catch (error) {
    if (error instanceof UpstreamBusyError || error instanceof UpstreamAccountError) {
      const penalty =
        error instanceof UpstreamBusyError
          ? { coolUntil: new Date(now.getTime() + ACCOUNT_COOL_DOWN_MS).toISOString() }
          : { disable: error.message };
      await releaseSlot(task, deps, penalty);
      throw new WaitingForUpstreamError(`${error.message}; back to the waiting room until ${task.deadline_at}`);
    }
    throw error;
  }
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

export interface RefundDeps extends WaitingRoomDeps {
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
 */
export async function failAndRefund(taskId: string, error: StepError, deps: RefundDeps) {
  const task = await deps.tasks.get(taskId);
  if (!task) return { status: 'missing', refunded: false };
  if (isFinal(task.status)) {
    await releaseSlot(task, deps);
    return { status: task.status, refunded: false };
  }
  const refunded = await deps.tasks.refund(task, 'failed', describeFailure(error), deps.now().toISOString());
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

export function accountOf(task: Pick<TaskRecord, 'upstream_account'>): string {
  return task.upstream_account ?? DEFAULT_ACCOUNT;
}

function providerOf(task: TaskRecord, deps: Pick<LifecycleDeps, 'providers'>): VideoProvider {
  const provider = deps.providers[task.upstream_provider];
  if (!provider) throw new Error(`no adapter for upstream provider ${task.upstream_provider}`);
  return provider;
}
