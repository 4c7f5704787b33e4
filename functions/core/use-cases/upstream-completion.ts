/**
 * Pushed completion (docs/task-lifecycle.md, "Completion"). Primary course:
 * 1. The execution's AwaitCompletion step registers its task token on the task and checks the job once.
 * 2. Whoever next sees the job final (Ark's callback, a status query, that check) re-reads it from the
 *    upstream, records the move (conditional writes), gives the slot back and answers the token.
 * 3. The step's timeout is the fallback poll: it starts again with a new token and checks again.
 */
import type { TaskRepository } from '../ports/task-repository.js';
import type { VideoProvider } from '../ports/video-provider.js';
import type { TaskRecord } from '../task.js';
import { isFinal } from '../task-status.js';
import { UpstreamAccountError, UpstreamBusyError, UpstreamTransientError } from '../upstream-errors.js';
import {
  describeFailure,
  GenerationTimedOutError,
  jobFailure,
  privateWordsOf,
  TaskNotFoundError,
} from '../workflow-errors.js';
import { UpstreamJobFailedError } from '../workflow-errors.js';
import { NotFoundError } from '../api-error.js';
import { DEFAULT_ACCOUNT } from '../ports/upstream-capacity.js';
import type { WaitingRoomDeps } from './waiting-room.js';
import { releaseQueuedSlot, releaseSlot } from './waiting-room.js';
import { webhookNotice } from './webhook-notice.js';

export interface CompletionDeps extends WaitingRoomDeps {
  tasks: TaskRepository;
  providers: Readonly<Record<string, VideoProvider>>;
  /** Told when the upstream could not be read (the look is then no news). */
  onUpstreamError?: (task: TaskRecord, error: unknown) => void;
}

/** What the execution keeps after the wait (`$.upstream`). */
export type UpstreamProgress =
  | { state: 'final'; notify?: boolean }
  | { state: 'succeeded'; job_id: string; provider: string; video_url: string; video_key: string };

/**
 * How long an upstream job cancelled under a live task is taken for a customer's cancel still recording its
 * refund (the cancel stops the job first, then refunds): the task is left to it meanwhile, so that it ends
 * `refunded`, not `failed`. A job cancelled longer ago (by an operator, say) fails the task; one cancelled at a
 * time the upstream does not report is left to the task's deadline.
 */
export const CANCEL_SETTLE_MS = 30_000;

/** Ark counts the expiry from its own clock and reports `expired` on a later read: a little slack. */
export const UPSTREAM_EXPIRY_GRACE_MS = 5 * 60_000;

/** Where a task's video lives in our bucket: under its account, so an account's videos share a prefix. */
export function videoKeyOf(task: Pick<TaskRecord, 'account_id' | 'task_id'>): string {
  return `videos/${task.account_id}/${task.task_id}.mp4`;
}

/**
 * When the wait gives up: the task's deadline, or, for a job whose upstream expiry comes later (Ark's
 * minimum hour), that expiry: until then the job may still finish, and be billed.
 */
export function pollDeadline(task: Pick<TaskRecord, 'deadline_at' | 'upstream_expires_at'>): number {
  const deadline = Date.parse(task.deadline_at);
  if (!task.upstream_expires_at) return deadline;
  return Math.max(deadline, Date.parse(task.upstream_expires_at) + UPSTREAM_EXPIRY_GRACE_MS);
}

/** Step AwaitCompletion, each try: register the token, then look once (the job may be done already). */
export async function awaitCompletion(taskId: string, token: string, deps: CompletionDeps): Promise<void> {
  const task = await deps.tasks.get(taskId);
  if (!task) throw new TaskNotFoundError(`task ${taskId} does not exist`);
  if (!isFinal(task.status)) {
    const deadline = pollDeadline(task);
    if (deps.now().getTime() > deadline) {
      throw new GenerationTimedOutError(`no result from the generator by ${new Date(deadline).toISOString()}`);
    }
    // Also marks the task alive for the reconciler (updated_at), once per try.
    await deps.tasks.registerWake(taskId, token, deps.now().toISOString());
  }
  const progress = await checkUpstream(task, deps);
  if (progress) await answer(token, progress, taskId, deps);
}

/**
 * A hint that the job may have ended (Ark's callback, a status query that saw it): re-read it from the
 * upstream and, if it is final, settle it and wake the execution. True when the job was found final.
 */
export async function settleFromHint(task: TaskRecord | undefined, deps: CompletionDeps): Promise<boolean> {
  if (!task || isFinal(task.status) || !task.upstream_job_id) return false;
  const progress = await checkUpstream(task, deps);
  if (!progress) return false;
  await wakeExecution(task.task_id, progress, deps);
  return true;
}

/** Answers the execution's wait with the job's end, if it waits (the token is read after the move). */
export async function wakeExecution(taskId: string, progress: UpstreamProgress, deps: CompletionDeps) {
  const token = (await deps.tasks.get(taskId))?.wake_token;
  // No token yet: the execution is still between its create and its wait, whose first check settles it.
  if (token) await answer(token, progress, taskId, deps);
}

/**
 * Reads the job; a final one is recorded: succeeded → transferring (the execution copies the video), failed
 * → failed and refunded (one conditional transaction, whoever runs it first). Either way the slot is given
 * back at once: the job no longer counts upstream. A job seen running moves the task to `running` and gives
 * its queued slot back. Undefined while the job runs or cannot be read now.
 */
export async function checkUpstream(task: TaskRecord, deps: CompletionDeps): Promise<UpstreamProgress | undefined> {
  if (isFinal(task.status)) return { state: 'final' };
  const jobId = task.upstream_job_id;
  if (!jobId) return undefined;
  const job = await readJob(task, jobId, deps);
  if (!job) return undefined;
  const now = deps.now();
  switch (job.state) {
    case 'succeeded': {
      const moved = await deps.tasks.moveTo(task.task_id, 'transferring', {}, now.toISOString());
      await releaseSlot(task, deps);
      if (!moved && isFinal((await deps.tasks.get(task.task_id))?.status ?? 'failed')) return { state: 'final' };
      return {
        state: 'succeeded',
        job_id: jobId,
        provider: task.upstream_provider,
        video_url: job.videoUrl,
        video_key: videoKeyOf(task),
      };
    }
    case 'failed':
      return fail(task, jobFailure(job, task), deps);
    case 'running':
      // The job left the upstream's queue: its queued slot goes back (it stays in flight) and the customer
      // sees `running` now, whoever looked (the execution itself has no use for it: it waits for the end).
      if (task.status === 'pending') await deps.tasks.moveTo(task.task_id, 'running', {}, now.toISOString());
      if (task.upstream_slot_phase !== 'running') await releaseQueuedSlot(task, deps);
      return undefined;
    case 'cancelled':
      // Only a customer's cancel (or an operator) stops a job, and the cancel stops it before it refunds: a job
      // cancelled moments ago, or at a time the upstream does not say (Model Studio), is left to that cancel, so the
      // task ends `refunded` with no webhook whoever sees the cancellation first. One nobody refunds fails at its
      // deadline (docs/task-lifecycle.md, "Cancel").
      if (job.cancelledAt === undefined || now.getTime() - Date.parse(job.cancelledAt) < CANCEL_SETTLE_MS) {
        return undefined;
      }
      return fail(task, new UpstreamJobFailedError('the generator cancelled the task'), deps);
    default:
      return undefined;
  }
}

async function fail(task: TaskRecord, error: Error, deps: CompletionDeps): Promise<UpstreamProgress> {
  const message = describeFailure({ Error: error.name, Cause: error.message }, privateWordsOf(deps.providers));
  await deps.tasks.refund(task, 'failed', message, deps.now().toISOString());
  await releaseSlot(task, deps);
  return { state: 'final' };
}

/** An upstream briefly unavailable (or our key refused: alarmed) is no news: the next look may tell. */
async function readJob(task: TaskRecord, jobId: string, deps: CompletionDeps) {
  const provider = deps.providers[task.upstream_provider];
  if (!provider) throw new Error(`no adapter for upstream provider ${task.upstream_provider}`);
  try {
    return await provider.getJob(jobId, task.upstream_account ?? DEFAULT_ACCOUNT);
  } catch (error) {
    if (
      error instanceof UpstreamTransientError ||
      error instanceof UpstreamBusyError ||
      error instanceof UpstreamAccountError
    ) {
      deps.onUpstreamError?.(task, error);
      return undefined;
    }
    throw error;
  }
}

async function answer(token: string, progress: UpstreamProgress, taskId: string, deps: CompletionDeps) {
  const output =
    progress.state === 'final' ? { ...progress, notify: await webhookNotice(taskId, 'failed', deps.tasks) } : progress;
  await deps.waker.succeed(token, output);
}

/**
 * The upstream's callback for a task (POST <callback URL>): its body is never trusted (Ark signs nothing);
 * the secret in the URL only decides whether the hint is worth a read of the job. Unknown task or wrong
 * secret: NotFoundError, the same answer for both. A callback that says the job is still queued is not worth
 * one (nothing would move); one that says it runs is: the task shows `running` without anyone asking.
 */
export async function acceptCallback(
  taskId: string,
  secret: string,
  deps: CompletionDeps,
  claimedStatus?: string,
): Promise<void> {
  const task = await deps.tasks.get(taskId);
  if (!task?.callback_token || !sameSecret(task.callback_token, secret)) {
    throw new NotFoundError('no such callback');
  }
  if (claimedStatus === 'queued') return;
  await settleFromHint(task, deps);
}

/** Compares in time independent of where the strings differ. */
function sameSecret(expected: string, given: string): boolean {
  let difference = expected.length ^ given.length;
  for (let i = 0; i < expected.length; i += 1) {
    difference |= expected.charCodeAt(i) ^ (given.charCodeAt(i % Math.max(given.length, 1)) || 0);
  }
  return difference === 0;
}
