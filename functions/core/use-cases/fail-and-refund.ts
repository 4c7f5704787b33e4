/**
 * FailAndRefund (docs/task-lifecycle.md, "The state machine"). Primary course: a claim without a job is waited
 * for or settled; the task fails and is refunded in one once-only transaction; only the run that refunded
 * cancels its upstream job, best effort; the task leaves the waiting room and gives its slot back.
 */
import type { TaskRepository } from '../ports/task-repository.js';
import type { VideoProvider } from '../ports/video-provider.js';
import { isFinal } from '../task-status.js';
import type { StepError } from '../workflow-errors.js';
import { describeFailure, privateWordsOf, UpstreamClaimHeldError } from '../workflow-errors.js';
import { cancelBestEffort } from './cancel-best-effort.js';
import type { ClaimDeps } from './upstream-claim.js';
import { accountOf, providerOf, settleClaimWithoutJob } from './upstream-claim.js';
import type { WaitingRoomDeps } from './waiting-room.js';
import { leaveWaitingRoom, releaseSlot } from './waiting-room.js';

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
  const settled = await settleClaimWithoutJob(task, deps, "the task's job may still be being created");
  if (settled) {
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
