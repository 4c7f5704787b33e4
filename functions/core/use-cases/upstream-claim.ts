/**
 * The claim StartUpstream writes before it asks the upstream for a job, and what anyone who meets it does:
 * a live claim without a job may still make one (nothing refunds the task meanwhile); an expired one is
 * settled by looking upstream for the job its create may have made, which is adopted or, for a task that
 * ended, cancelled. docs/task-lifecycle.md, "Claims before upstream creates".
 */
import type { TaskRepository, UpstreamClaim } from '../ports/task-repository.js';
import { DEFAULT_ACCOUNT } from '../ports/upstream-capacity.js';
import type { ProviderJobRequest, VideoProvider } from '../ports/video-provider.js';
import type { TaskRecord } from '../task.js';
import { isFinal } from '../task-status.js';
import { UpstreamClaimHeldError } from '../workflow-errors.js';

/**
 * How long a claim is live: longer than StartUpstream can run (its Lambda timeout, 50 s in
 * lib/ship/cdk/service-functions.ts, which checks this), with room for clocks that disagree by seconds. After it,
 * the claimant is dead or done: a job its create made is visible upstream by then.
 */
export const UPSTREAM_CLAIM_LEASE_MS = 120_000;
/** Slack either side of the claim when matching the upstream's creation times (whole seconds, its own clock). */
export const CLAIM_MATCH_SLACK_MS = 30_000;

export type ClaimState = 'none' | 'job' | 'live' | 'expired';

/** `job`: a job is recorded (any claim is spent). `live`/`expired`: a claim without a job, by its lease. */
export function claimState(
  task: Pick<TaskRecord, 'upstream_job_id' | 'upstream_claim_id' | 'upstream_claim_until'>,
  now: Date,
): ClaimState {
  if (task.upstream_job_id) return 'job';
  if (!task.upstream_claim_id || !task.upstream_claim_until) return 'none';
  return now.getTime() < Date.parse(task.upstream_claim_until) ? 'live' : 'expired';
}

/** Seconds until a live claim runs out (at least 1): when to ask again. */
export function claimSecondsLeft(task: Pick<TaskRecord, 'upstream_claim_until'>, now: Date): number {
  const left = Date.parse(task.upstream_claim_until ?? '') - now.getTime();
  return Number.isFinite(left) ? Math.max(1, Math.ceil(left / 1000)) : 1;
}

export function newClaim(now: Date, id: string, seed: number): UpstreamClaim {
  return {
    id,
    at: now.toISOString(),
    until: new Date(now.getTime() + UPSTREAM_CLAIM_LEASE_MS).toISOString(),
    seed,
  };
}

/**
 * The customer's seed, when given (-1 asks the upstream to pick one, so it is no seed), else a random one picked now:
 * a job made under the claim then carries a seed no other job of ours is likely to share.
 */
export function claimSeed(task: Pick<TaskRecord, 'generation'>, random: () => number): number {
  const seed = task.generation.seed;
  return seed !== undefined && seed >= 0 ? seed : random();
}

export function accountOf(task: Pick<TaskRecord, 'upstream_account'>): string {
  return task.upstream_account ?? DEFAULT_ACCOUNT;
}

/** The job request made for the task (everything but what only we use), with its claim's seed. */
export function jobRequestOf(
  task: TaskRecord,
  options: { expiresAfterSeconds: number; callbackUrl?: string | undefined },
): ProviderJobRequest {
  const { modelId: _modelId, modelName: _modelName, webhookUrl: _webhookUrl, ...generation } = task.generation;
  return {
    upstreamModel: task.upstream_model,
    account: accountOf(task),
    ...generation,
    ...(task.upstream_seed !== undefined && { seed: task.upstream_seed }),
    expiresAfterSeconds: options.expiresAfterSeconds,
    ...(options.callbackUrl && { callbackUrl: options.callbackUrl }),
  };
}

export interface ClaimDeps {
  tasks: Pick<TaskRepository, 'get' | 'recordUpstreamJob'>;
  providers: Readonly<Record<string, VideoProvider>>;
  now: () => Date;
  /** A job made under a claim whose answer was lost, found upstream and recorded for its task. */
  onJobAdopted?: (taskId: string, jobId: string) => void;
  /** A job made for a task that had ended (or could not be told apart): cancelled if it still could be. */
  onJobOrphaned?: (taskId: string, jobId: string, reason: string) => void;
}

/**
 * What looking upstream for an expired claim's job found: `task` re-read after any adoption. `ambiguous`:
 * more than one job matched (only possible for identical requests with the customer's own seed): none is
 * adopted, as another task's job must never become this one's.
 */
export interface SettledClaim {
  task: TaskRecord;
  outcome: 'adopted' | 'none' | 'ambiguous' | 'moved';
}

/**
 * Settles an expired claim without a job: the upstream is asked for the jobs its create may have made; one
 * found is recorded for the task (adopted), so whoever called goes on as for any recorded job. A task that
 * moved meanwhile (a job recorded, another claim, an end) is answered as it is now (`moved`).
 */
export async function settleExpiredClaim(task: TaskRecord, deps: ClaimDeps): Promise<SettledClaim> {
  const claimAt = Date.parse(task.upstream_claim_at ?? '');
  const claimUntil = Date.parse(task.upstream_claim_until ?? '');
  const request = jobRequestOf(task, { expiresAfterSeconds: 0 });
  const found = await providerOf(task, deps).findJobs({
    request,
    createdFrom: new Date(claimAt - CLAIM_MATCH_SLACK_MS).toISOString(),
    createdTo: new Date(claimUntil + CLAIM_MATCH_SLACK_MS).toISOString(),
  });
  if (found.length > 1) {
    for (const jobId of found) deps.onJobOrphaned?.(task.task_id, jobId, 'ambiguous');
    return { task, outcome: 'ambiguous' };
  }
  const [jobId] = found;
  if (jobId === undefined) {
    const latest = (await deps.tasks.get(task.task_id)) ?? task;
    const same = latest.upstream_claim_id === task.upstream_claim_id && !latest.upstream_job_id;
    return { task: latest, outcome: same && !isFinal(latest.status) ? 'none' : 'moved' };
  }
  const recorded = await deps.tasks.recordUpstreamJob(task.task_id, jobId, deps.now().toISOString());
  if (recorded.upstream_job_id === jobId) {
    deps.onJobAdopted?.(task.task_id, jobId);
    return { task: recorded, outcome: 'adopted' };
  }
  // The task ended, or has another job: this one is nobody's.
  await cancelOrphan(task, jobId, deps);
  return { task: recorded, outcome: 'moved' };
}

/**
 * A lifecycle step that meets a claim without a job: a live one is waited for (`whileLive` thrown as
 * UpstreamClaimHeldError, which the state machine retries), an expired one settled. Undefined: no such claim.
 */
export async function settleClaimWithoutJob(
  task: TaskRecord,
  deps: ClaimDeps,
  whileLive: string,
): Promise<SettledClaim | undefined> {
  const state = claimState(task, deps.now());
  if (state === 'live') throw new UpstreamClaimHeldError(whileLive);
  return state === 'expired' ? settleExpiredClaim(task, deps) : undefined;
}

/** Cancels a job no task will collect, best effort, and reports it (it may bill: alarmed). */
export async function cancelOrphan(task: TaskRecord, jobId: string, deps: ClaimDeps): Promise<void> {
  try {
    const result = await providerOf(task, deps).cancelJob(jobId, accountOf(task));
    const billable = result.outcome === 'refused' && result.state !== 'failed';
    deps.onJobOrphaned?.(task.task_id, jobId, billable ? `${result.state}: not cancellable` : 'cancelled');
  } catch (error) {
    deps.onJobOrphaned?.(task.task_id, jobId, `cancel failed: ${(error as Error).message}`);
  }
}

export function providerOf(task: TaskRecord, deps: Pick<ClaimDeps, 'providers'>): VideoProvider {
  const provider = deps.providers[task.upstream_provider];
  if (!provider) throw new Error(`no adapter for upstream provider ${task.upstream_provider}`);
  return provider;
}
