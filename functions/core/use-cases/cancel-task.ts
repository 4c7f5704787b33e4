/**
 * POST /api/v1/video/tasks/{id}/cancel (docs/task-lifecycle.md, "Cancel", beyond spec). Only a task whose upstream job has
 * not started may be cancelled: the job is cancelled upstream first, and the refund follows once the upstream
 * confirms (a started job is generated and billed whatever we do). The refund is one conditional transaction,
 * so a cancel racing the task's own end still refunds at most once.
 */
import { InternalError, InvalidRequestError, RateLimitedError } from '../api-error.js';
import type { TaskRepository } from '../ports/task-repository.js';
import type { CancelOutcome, VideoProvider } from '../ports/video-provider.js';
import type { TaskWorkflow } from '../ports/workflow-starter.js';
import { toTaskView } from '../task.js';
import type { TaskRecord, TaskView } from '../task.js';
import { isFinal } from '../task-status.js';
import type { Caller } from './authenticate.js';
import { findOwnTask } from './get-task.js';
import type { ClaimDeps } from './upstream-claim.js';
import { accountOf, claimSecondsLeft, claimState, settleExpiredClaim } from './upstream-claim.js';
import type { WaitingRoomDeps } from './waiting-room.js';
import { leaveWaitingRoom, releaseSlot } from './waiting-room.js';

export const CANCELLED_MESSAGE = 'cancelled by the client';
export const GENERATION_STARTED_MESSAGE = 'generation has started and can no longer be cancelled';
export const STARTING_MESSAGE = 'the task is being started upstream: nothing was refunded; retry in a few seconds';
/** What a cancel that meets a start in progress asks the client to wait (the start takes seconds). */
const STARTING_RETRY_SECONDS = 3;

export interface CancelTaskDeps extends WaitingRoomDeps, ClaimDeps {
  tasks: TaskRepository;
  workflow: Pick<TaskWorkflow, 'stop'>;
  providers: Readonly<Record<string, VideoProvider>>;
  now: () => Date;
  onCleanupError: (task: TaskRecord, step: string, error: unknown) => void;
  /**
   * Awaits the clean-up after a refund for as long as the caller can still answer (the default: all of it).
   * The answer must not be lost to a slow store once the money has moved; what is left is idempotent.
   */
  awaitCleanup?: (cleanup: Promise<void>) => Promise<void>;
}

/** `refunded`: this call refunded the task (a repeated cancel answers the task without refunding again). */
export interface CancelResult {
  task: TaskView;
  refunded: boolean;
}

export async function cancelTask(
  caller: Caller | Promise<Caller>,
  taskId: string | undefined,
  deps: CancelTaskDeps,
): Promise<CancelResult> {
  const task = await findOwnTask(caller, taskId, deps.tasks);
  if (task.status === 'refunded') return { task: toTaskView(task), refunded: false };
  // Transferring: the job has succeeded upstream, and Ark bills it.
  if (task.status === 'transferring') throw new InvalidRequestError(GENERATION_STARTED_MESSAGE);
  if (task.status !== 'pending' && task.status !== 'running') throw notCancellable(task);

  // A few rounds: StartUpstream may claim the task or record a job between our read and our refund; then the
  // refund (conditional on both) fails, and the task is looked at again.
  let current = task;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    // A claim without a job may still make one. Live: the start is seconds from recording it (or failing),
    // so the client asks again then (429 and Retry-After: nothing moved). Expired: its job is looked for
    // upstream, and one found is cancelled as any recorded job.
    let expiredClaim: string | undefined;
    const claim = claimState(current, deps.now());
    if (claim === 'live') {
      const seconds = Math.min(STARTING_RETRY_SECONDS, claimSecondsLeft(current, deps.now()));
      throw new RateLimitedError(seconds, STARTING_MESSAGE);
    }
    if (claim === 'expired') {
      const settled = await settleUpstream(current, deps);
      current = settled.task;
      if (isFinal(current.status)) break;
      if (!current.upstream_job_id && settled.outcome !== 'moved') expiredClaim = current.upstream_claim_id;
    }
    const jobId = current.upstream_job_id;
    if (jobId) {
      const outcome = await cancelUpstream(current, jobId, deps);
      if (outcome.outcome === 'refused' && outcome.state !== 'failed') {
        throw new InvalidRequestError(GENERATION_STARTED_MESSAGE);
      }
    }
    // Cancelled upstream, unknown there (nothing generates), failed there, or no job: nothing will be billed.
    const now = deps.now().toISOString();
    const refunded = await deps.tasks.refund(current, 'refunded', CANCELLED_MESSAGE, now, {
      withoutJob: !jobId,
      ...(expiredClaim && { expiredClaim }),
    });
    if (refunded) return { task: toTaskView(await afterRefund(current, now, deps)), refunded: true };
    const latest = (await deps.tasks.get(task.task_id)) ?? current;
    // Someone ended the task first: another cancel (answered alike), or the task's own end.
    if (latest.status === 'refunded') return { task: toTaskView(latest), refunded: false };
    if (isFinal(latest.status)) throw notCancellable(latest);
    const moved =
      latest.upstream_job_id !== current.upstream_job_id || latest.upstream_claim_id !== current.upstream_claim_id;
    if (!moved) throw notCancellable(latest);
    current = latest;
  }
  if (current.status === 'refunded') return { task: toTaskView(current), refunded: false };
  throw notCancellable(current);
}

/** An upstream that cannot be asked leaves the task as it is, as for a cancel of a recorded job. */
async function settleUpstream(task: TaskRecord, deps: CancelTaskDeps) {
  try {
    return await settleExpiredClaim(task, deps);
  } catch (error) {
    deps.onCleanupError(task, 'upstream', error);
    throw new InternalError('the generator could not be reached to cancel the task; nothing was refunded: try again');
  }
}

/** The outcome is needed before any money moves: an upstream that cannot be asked leaves the task as it is. */
async function cancelUpstream(task: TaskRecord, jobId: string, deps: CancelTaskDeps): Promise<CancelOutcome> {
  const provider = deps.providers[task.upstream_provider];
  if (!provider) throw new InternalError(`no adapter for upstream provider ${task.upstream_provider}`);
  try {
    return await provider.cancelJob(jobId, accountOf(task));
  } catch (error) {
    deps.onCleanupError(task, 'upstream', error);
    throw new InternalError('the generator could not be reached to cancel the task; nothing was refunded: try again');
  }
}

/**
 * The money has moved, so the answer is the refunded task whatever the clean-up meets and however long it
 * would take (a busy store, say): an execution left running ends at its next step, which finds the task
 * final; a slot still held or a stale place in the waiting room is dealt with by the reconciler.
 */
async function afterRefund(task: TaskRecord, now: string, deps: CancelTaskDeps): Promise<TaskRecord> {
  const reported = (step: string) => (error: unknown) => {
    deps.onCleanupError(task, step, error);
    return undefined;
  };
  // What the refund wrote, answered when the read below fails or comes too late.
  const refunded: TaskRecord = {
    ...task,
    status: 'refunded',
    error_message: CANCELLED_MESSAGE,
    finished_at: now,
    refunded_at: now,
    updated_at: now,
  };
  let latest: TaskRecord | undefined;
  const cleanup = async () => {
    // Read again: a slot may have been given to the task between our read and the refund.
    latest = await deps.tasks.get(task.task_id).catch(reported('read'));
    const current = latest ?? refunded;
    await deps.workflow.stop(current.execution_name ?? current.task_id, CANCELLED_MESSAGE).catch(reported('stop'));
    // The slot (or the place in the waiting room) goes to the next task.
    await leaveWaitingRoom(task, deps).catch(reported('waiting room'));
    await releaseSlot(current, deps).catch(reported('slot'));
  };
  await (deps.awaitCleanup ?? ((work) => work))(cleanup());
  return latest ?? refunded;
}

function notCancellable(task: TaskRecord): InvalidRequestError {
  return new InvalidRequestError(`only pending or running tasks can be cancelled; this task is ${task.status}`);
}
