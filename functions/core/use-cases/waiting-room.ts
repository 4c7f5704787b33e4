/**
 * The waiting room (docs/upstream-capacity.md). Primary course:
 * 1. The execution's WaitForUpstreamSlot step enters its task with a task token, then dispatches.
 * 2. Dispatch gives free slots to the oldest waiting tasks (one transaction each) and wakes them.
 * 3. Whoever ends a job gives its slot back and dispatches again: a freed slot is taken at once.
 * Only the task's deadline fails a waiting task; the step's timeout re-enters it, in case a wake was lost.
 */
import type { TaskRecord } from '../task.js';
import { isFinal } from '../task-status.js';
import type { TaskRepository } from '../ports/task-repository.js';
import type { TaskWaker } from '../ports/task-waker.js';
import type {
  AccountPenalty,
  AssignOptions,
  UpstreamAccount,
  UpstreamCapacity,
  WaitingEntry,
} from '../ports/upstream-capacity.js';
import { accountIdOf } from '../ports/upstream-capacity.js';
import { CAPACITY_RULES, freeOf, isCooling } from '../upstream-account-rules.js';
import { GenerationTimedOutError, TaskNotFoundError } from '../workflow-errors.js';

export interface WaitingRoomDeps {
  capacity: UpstreamCapacity;
  tasks: Pick<TaskRepository, 'get'>;
  waker: TaskWaker;
  now: () => Date;
  /** A new unguessable token, for the upstream's callback URL. */
  newToken: () => string;
  /** Waits `ms` (a dispatch backs off when other writers of an account's counter keep winning). */
  pause: (ms: number) => Promise<void>;
  /** Told when a dispatch after a release failed: the reconciler's next dispatch (every minute) serves the room. */
  onDispatchError?: (error: unknown) => void;
  /** Told when a dispatch stops before serving the room: contended for its whole patience, or past its hard stop. */
  onContended?: (rounds: number, elapsedMs: number) => void;
}

/** What WaitForUpstreamSlot's token is answered with (the state keeps none of it). */
export const SLOT_TAKEN = { slot: 'taken' } as const;

/**
 * How long a dispatch keeps trying while its transactions lose to others on the account's counter (other
 * entrants, releases): giving up early would leave an entrant waiting for the state's 2-minute safety net.
 * Past `hardStopMs` no round starts, however few were contended: on a store so busy that each round takes
 * seconds, the caller must still answer within its own timeout (a cancel, an upstream callback: seen in CI).
 */
export interface DispatchPace {
  patienceMs: number;
  hardStopMs: number;
}
/** An entrant's or the reconciler's dispatch: their functions have 50 s, the longest of any caller. */
export const DISPATCH_PACE: DispatchPace = { patienceMs: 6_000, hardStopMs: 30_000 };
/**
 * A release's dispatch is shorter: it runs in the step or request that ended the job (the upstream callback
 * and a status query have 10 s), and the entrants and the reconciler dispatch too.
 */
const RELEASE_PACE: DispatchPace = { patienceMs: 2_000, hardStopMs: 4_000 };
/** A hard stop on rounds, whatever the clock says; each re-reads the accounts and the head of the room. */
const MAX_ROUNDS = 200;
/**
 * Contended rounds in a row before the patience may end a dispatch: on a busy store one round can outlast
 * the patience (seen locally), and giving up after it would leave the wake to the safety nets.
 */
const MIN_CONTENDED_ROUNDS = 5;
/** Entries found taken by another dispatcher before a round stops and re-reads the room. */
const TAKEN_BEFORE_REREAD = 3;
/** Longest back-off between contended rounds (full jitter below it, doubling from 20 ms at the first). */
const MAX_BACKOFF_MS = 200;

export function waitingPosition(task: Pick<TaskRecord, 'created_at' | 'task_id'>): string {
  return `${task.created_at}#${task.task_id}`;
}

/** Step WaitForUpstreamSlot: the token is answered now (a slot is held, or nothing is left to wait for) or by a dispatch. */
export async function waitForSlot(taskId: string, token: string, deps: WaitingRoomDeps): Promise<void> {
  const task = await deps.tasks.get(taskId);
  if (!task) throw new TaskNotFoundError(`task ${taskId} does not exist`);
  if (holdsOrNeedsNoSlot(task)) {
    await deps.waker.succeed(token, SLOT_TAKEN);
    return;
  }
  if (deps.now().getTime() > Date.parse(task.deadline_at)) {
    await deps.capacity.leave(task.upstream_provider, waitingPosition(task));
    throw new GenerationTimedOutError(`no upstream capacity for the task by ${task.deadline_at}`);
  }
  const entry: WaitingEntry = {
    provider: task.upstream_provider,
    position: waitingPosition(task),
    task_id: taskId,
    token,
    entered_at: deps.now().toISOString(),
  };
  await deps.capacity.enqueue(entry);
  // A dispatcher may have given the task a slot on its previous entry (an earlier try of this step) between
  // the read above and this entry: the new token would wait in a stale entry until the state's timeout.
  if (holdsOrNeedsNoSlot(await deps.tasks.get(taskId))) {
    await deps.capacity.leave(task.upstream_provider, entry.position, token);
    await deps.waker.succeed(token, SLOT_TAKEN);
    return;
  }
  // One slot at most: under a backlog every entering task dispatches, and each serving the whole room
  // would make n tasks do n² reads. The reconciler's dispatch (every minute) serves all that is free.
  await dispatch(task.upstream_provider, deps, 1);
}

/**
 * Gives up to `limit` of the provider's free slots to its oldest waiting tasks and wakes them. Returns how
 * many it served.
 */
export async function dispatch(
  provider: string,
  deps: WaitingRoomDeps,
  limit = Number.POSITIVE_INFINITY,
  pace = DISPATCH_PACE,
): Promise<number> {
  let served = 0;
  const startedAt = deps.now().getTime();
  let contended = 0;
  for (let round = 0; round < MAX_ROUNDS && served < limit; round += 1) {
    const elapsedMs = deps.now().getTime() - startedAt;
    if (round > 0 && elapsedMs >= pace.hardStopMs) {
      deps.onContended?.(round, elapsedMs);
      return served;
    }
    const free = freeSlots(await usableAccounts(provider, deps), deps.now());
    if (free <= 0) return served;
    const oldest = await deps.capacity.oldest(provider, free);
    if (oldest.length === 0) return served;
    // Read again after the room: a slot taken meanwhile went to one of these oldest, so only the first `free`
    // of them may still be owed one. An entry past them would overtake an older one still waiting.
    const accounts = await usableAccounts(provider, deps);
    const now = deps.now();
    // Those all are owed a slot now, so their order among themselves does not matter: shuffled, concurrent
    // dispatchers (a burst of entrants, a wave of releases) mostly try different entries, not the same first.
    const candidates = shuffle(oldest.slice(0, freeSlots(accounts, now)));
    let taken = 0;
    let progressed = false;
    for (const entry of candidates) {
      const account = mostFree(accounts, now);
      if (!account || served >= limit || taken >= TAKEN_BEFORE_REREAD) break;
      const options = assignOptions(account, now);
      const outcome = await deps.capacity.assign(entry, account, deps.newToken(), now.toISOString(), options);
      if (outcome === 'assigned') {
        account.in_use += 1;
        account.inflight = (account.inflight ?? 0) + 1;
        if (options.probe) account.probe_until = options.probe.until;
        served += 1;
        progressed = true;
        // A token that no longer waits is fine: the task holds its slot, and its wait's next try sees it.
        await deps.waker.succeed(entry.token, SLOT_TAKEN);
      } else if (outcome === 'account-full') {
        account.enabled = false; // for this round only: a fresh read comes next
        progressed = true;
      } else if (outcome === 'task-not-waiting') {
        // A stale entry: its place goes to the next one. Its token, if it still waits, is answered as
        // WaitForUpstreamSlot answers a task that holds a slot or has ended: the next step sees which.
        await deps.capacity.leave(provider, entry.position, entry.token);
        await deps.waker.succeed(entry.token, SLOT_TAKEN);
        progressed = true;
      } else {
        // Another writer won (or the entry was entered again): the head moved, so re-read it soon.
        taken += 1;
      }
    }
    if (progressed) contended = 0;
    else if (taken > 0) {
      contended += 1;
      const elapsedMs = deps.now().getTime() - startedAt;
      if (elapsedMs >= pace.patienceMs && contended >= MIN_CONTENDED_ROUNDS) {
        deps.onContended?.(round + 1, elapsedMs);
        return served;
      }
      await deps.pause(Math.random() * Math.min(MAX_BACKOFF_MS, 10 * 2 ** contended));
    }
  }
  return served;
}

/**
 * Gives the task's slot back (if it still holds one) and lets the next waiting task have it. `penalty`: the
 * upstream refused the job on that account (429: cool it down; 401/403: disable it).
 */
export async function releaseSlot(
  task: Pick<TaskRecord, 'task_id' | 'upstream_provider' | 'upstream_slot'>,
  deps: WaitingRoomDeps,
  penalty?: AccountPenalty,
): Promise<boolean> {
  if (!task.upstream_slot) return false;
  const released = await deps.capacity.release(task.task_id, task.upstream_slot, deps.now().toISOString(), penalty);
  // The slot is back either way; a caller that moved money (a cancel, a refund) must not fail over a wake.
  if (released)
    await dispatch(task.upstream_provider, deps, 1, RELEASE_PACE).catch((error: unknown) =>
      deps.onDispatchError?.(error),
    );
  return released;
}

/**
 * The task's job runs upstream: its queued slot goes back to the account (it stays in flight) and the next
 * waiting task may have it. False when the task held no queued slot.
 */
export async function releaseQueuedSlot(
  task: Pick<TaskRecord, 'task_id' | 'upstream_provider' | 'upstream_slot'>,
  deps: WaitingRoomDeps,
): Promise<boolean> {
  if (!task.upstream_slot) return false;
  const started = await deps.capacity.started(task.task_id, task.upstream_slot, deps.now().toISOString());
  if (started)
    await dispatch(task.upstream_provider, deps, 1, RELEASE_PACE).catch((error: unknown) =>
      deps.onDispatchError?.(error),
    );
  return started;
}

/**
 * The upstream accepted the task's job: a cooling account's probe succeeded, so the room is served again at
 * once; and the account's in-flight limit grows a little (docs/upstream-capacity.md, "Jobs in flight").
 */
export async function jobAccepted(
  task: Pick<TaskRecord, 'upstream_provider' | 'upstream_slot'>,
  deps: WaitingRoomDeps,
): Promise<void> {
  if (!task.upstream_slot) return;
  const coolingEnded = await deps.capacity.accepted(task.upstream_slot, deps.now().toISOString());
  if (coolingEnded)
    await dispatch(task.upstream_provider, deps).catch((error: unknown) => deps.onDispatchError?.(error));
}

/** A task that ends while waiting leaves the room (a stale entry would also be dropped by the next dispatch). */
export async function leaveWaitingRoom(task: TaskRecord, deps: Pick<WaitingRoomDeps, 'capacity'>): Promise<void> {
  if (!task.upstream_slot && !task.upstream_job_id) {
    await deps.capacity.leave(task.upstream_provider, waitingPosition(task));
  }
}

/** 1 for the next task to start; undefined when the task is not waiting for a slot. */
export async function queuePosition(
  task: TaskRecord,
  deps: Pick<WaitingRoomDeps, 'capacity'>,
): Promise<number | undefined> {
  if (task.status !== 'pending' || task.upstream_slot || task.upstream_job_id) return undefined;
  return (await deps.capacity.countBefore(task.upstream_provider, waitingPosition(task))) + 1;
}

function holdsOrNeedsNoSlot(task: TaskRecord | undefined): boolean {
  return !task || isFinal(task.status) || Boolean(task.upstream_slot || task.upstream_job_id);
}

async function usableAccounts(provider: string, deps: WaitingRoomDeps): Promise<UpstreamAccount[]> {
  const now = deps.now();
  return (await deps.capacity.accounts(provider)).filter((account) => freeOf(account, now) > 0);
}

function freeSlots(accounts: UpstreamAccount[], now: Date): number {
  return accounts.reduce((sum, account) => sum + freeOf(account, now), 0);
}

function mostFree(accounts: UpstreamAccount[], now: Date): UpstreamAccount | undefined {
  let best: UpstreamAccount | undefined;
  let bestFree = 0;
  for (const account of accounts) {
    const free = freeOf(account, now);
    if (free > bestFree) [best, bestFree] = [account, free];
  }
  return best;
}

/** One of the master account's keys (they share its slots), and the probe's lease if the account cools. */
function assignOptions(account: UpstreamAccount, now: Date): AssignOptions {
  const keys = account.keys?.length ? account.keys : [account.name];
  const key = keys[Math.floor(Math.random() * keys.length)] ?? account.name;
  if (!isCooling(account)) return { key };
  const until = new Date(now.getTime() + CAPACITY_RULES.probeLeaseMs).toISOString();
  return { key, probe: { streak: account.cool_streak ?? 0, until } };
}

/** The account a task's slot names, among those read. */
export function accountOfSlot(accounts: UpstreamAccount[], slot: string): UpstreamAccount | undefined {
  return accounts.find((account) => accountIdOf(account.provider, account.name) === slot);
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}
