/**
 * StartUpstream against a cancel, in every order of their store and upstream calls (and of the upstream
 * starting the job), explored one schedule at a time: a refunded task never has a job that can bill, and a
 * job that bills is always the live task's. Then a start that dies between create and record.
 */
import { describe, expect, it } from 'vitest';
import type { CancelOutcome, ProviderJobRequest } from '../../../functions/core/ports/video-provider.js';
import type { TaskRecord } from '../../../functions/core/task.js';
import { UpstreamOutcomeUnknownError } from '../../../functions/core/upstream-errors.js';
import { cancelTask } from '../../../functions/core/use-cases/cancel-task.js';
import { failAndRefund } from '../../../functions/core/use-cases/fail-and-refund.js';
import { startUpstreamJob } from '../../../functions/core/use-cases/start-upstream-job.js';
import type { LifecycleDeps } from '../../../functions/core/use-cases/start-upstream-job.js';
import { UPSTREAM_CLAIM_LEASE_MS } from '../../../functions/core/use-cases/upstream-claim.js';
import { UpstreamClaimHeldError } from '../../../functions/core/workflow-errors.js';
import { TASK_ID, taskRecord } from '../../support/task-records.js';
import { CALLER, countHeldSlots, FakeProvider, FakeWorkflow, InMemoryTasks, NOW, waitingRoom } from '../fakes.js';
import { rejection } from '../support.js';

/** Jobs as Ark keeps them: queued until the upstream starts them, then no longer cancellable. */
class ArkLikeProvider extends FakeProvider {
  readonly states = new Map<string, 'queued' | 'running' | 'cancelled'>();

  override async createJob(request: ProviderJobRequest): Promise<{ jobId: string }> {
    const created = await super.createJob(request);
    this.states.set(created.jobId, 'queued');
    return created;
  }

  override async cancelJob(jobId: string): Promise<CancelOutcome> {
    this.cancelled.push(jobId);
    const state = this.states.get(jobId);
    if (state === undefined) return { outcome: 'not-found' };
    if (state === 'running') return { outcome: 'refused', state: 'running' };
    this.states.set(jobId, 'cancelled');
    return { outcome: 'cancelled' };
  }

  /** The upstream starts every queued job. */
  runQueued(): void {
    for (const [jobId, state] of this.states) if (state === 'queued') this.states.set(jobId, 'running');
  }
}

type Actor = 'start' | 'cancel' | 'ark';

/**
 * Runs the actors with each call of theirs to the store or the upstream held at a gate, and lets one through
 * at a time in the order `choices` gives (then the first waiting actor); records how many could go at each
 * point, so that the caller can enumerate every order.
 */
class Schedule {
  private readonly parked = new Map<Actor, { label: string; go: () => void }>();
  readonly options: number[] = [];
  readonly taken: string[] = [];

  constructor(private readonly choices: readonly number[]) {}

  gate(actor: Actor, label: string): Promise<void> {
    return new Promise((go) => this.parked.set(actor, { label, go }));
  }

  /** Every call of `target`'s methods waits at the gate first. */
  gated<T extends object>(actor: Actor, name: string, target: T): T {
    return new Proxy(target, {
      get: (object, property, receiver) => {
        const value: unknown = Reflect.get(object, property, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          await this.gate(actor, `${name}.${String(property)}`);
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        };
      },
    });
  }

  async run(actors: Record<Actor, () => Promise<unknown>>): Promise<Record<Actor, unknown>> {
    const outcomes = {} as Record<Actor, unknown>;
    const done = new Set<Actor>();
    for (const [actor, body] of Object.entries(actors) as [Actor, () => Promise<unknown>][]) {
      void body().then(
        (value) => ((outcomes[actor] = value), done.add(actor)),
        (error: unknown) => ((outcomes[actor] = error), done.add(actor)),
      );
    }
    for (;;) {
      // The fakes answer in microtasks only: one turn of the event loop brings each actor to a gate or its end.
      await new Promise((resolve) => setImmediate(resolve));
      const waiting = [...this.parked.keys()].sort();
      if (waiting.length === 0) break;
      const depth = this.options.length;
      this.options.push(waiting.length);
      const actor = waiting[this.choices[depth] ?? 0] as Actor;
      const { label, go } = this.parked.get(actor)!;
      this.parked.delete(actor);
      this.taken.push(`${actor}:${label}`);
      go();
    }
    expect([...done].sort()).toEqual(['ark', 'cancel', 'start']);
    return outcomes;
  }
}

/** A pending task holding a slot, as the waiting room leaves it for StartUpstream. */
function startable(): TaskRecord {
  return taskRecord({ status: 'pending', upstream_slot: 'ark#default', upstream_account: 'default' });
}

async function runSchedule(choices: readonly number[]) {
  const tasks = new InMemoryTasks(startable());
  const room = waitingRoom(tasks);
  countHeldSlots(tasks, room.capacity);
  const provider = new ArkLikeProvider();
  const schedule = new Schedule(choices);
  const deps = (actor: Actor) => ({
    ...room,
    tasks: schedule.gated(actor, 'tasks', tasks),
    providers: { ark: schedule.gated(actor, 'upstream', provider) },
    now: () => NOW,
  });
  const startDeps: LifecycleDeps = {
    ...deps('start'),
    callbackUrl: () => undefined,
    checkSeconds: { callback: 900, polling: 20 },
  };
  const outcomes = await schedule.run({
    start: () => startUpstreamJob(TASK_ID, startDeps),
    cancel: () =>
      cancelTask(CALLER, TASK_ID, { ...deps('cancel'), workflow: new FakeWorkflow(), onCleanupError: () => {} }),
    ark: async () => {
      await schedule.gate('ark', 'starts queued jobs');
      provider.runQueued();
    },
  });
  return { tasks, provider, schedule, outcomes, task: (await tasks.get(TASK_ID))! };
}

describe('StartUpstream and a cancel, in every order of their steps', () => {
  it('never refunds a task whose job can bill, never leaves a billing job to a refunded task', async () => {
    let explored = 0;
    let choices: number[] = [];
    for (;;) {
      const { task, provider, schedule, tasks } = await runSchedule(choices);
      explored += 1;
      const where = schedule.taken.join(' → ');
      const billing = [...provider.states].filter(([, state]) => state === 'running').map(([jobId]) => jobId);
      expect(provider.jobs.length, where).toBeLessThanOrEqual(1);
      expect(tasks.refunds.length, where).toBeLessThanOrEqual(1);
      if (task.status === 'refunded') {
        // Every job made was cancelled upstream before it could run.
        expect(billing, where).toEqual([]);
      }
      for (const jobId of billing) {
        // A job that bills is the task's, and the task was not refunded.
        expect(task.upstream_job_id, where).toBe(jobId);
        expect(task.status, where).not.toBe('refunded');
      }
      // The next schedule: the deepest point with an order not yet tried.
      const taken = schedule.options.map((_, depth) => choices[depth] ?? 0);
      let depth = taken.length - 1;
      while (depth >= 0 && (taken[depth] as number) + 1 >= (schedule.options[depth] as number)) depth -= 1;
      if (depth < 0) break;
      choices = [...taken.slice(0, depth), (taken[depth] as number) + 1];
    }
    expect(explored).toBeGreaterThan(20);
  });

  it('a cancel during the create answers 429 (retry shortly) and moves no money', async () => {
    // start: get, claim, then the create waits; the cancel goes first from there.
    const { outcomes, tasks } = await runSchedule([2, 2, 1]);
    expect(tasks.refunds).toEqual([]);
    expect(outcomes.cancel).toMatchObject({ code: 429, retryAfterSeconds: 3 });
  });
});

describe('a start that dies between creating the job and recording it', () => {
  const setUp = () => {
    const tasks = new InMemoryTasks(startable());
    const room = waitingRoom(tasks);
    countHeldSlots(tasks, room.capacity);
    const provider = new ArkLikeProvider();
    let now = NOW;
    provider.clock = () => now;
    const deps: LifecycleDeps = {
      ...room,
      tasks,
      providers: { ark: provider },
      now: () => now,
      callbackUrl: () => undefined,
      checkSeconds: { callback: 900, polling: 20 },
    };
    // The job is made upstream; the answer never reaches the store (the process dies, the step times out).
    const create = provider.createJob.bind(provider);
    provider.createJob = async (request) => {
      await create(request);
      throw new UpstreamOutcomeUnknownError('the process died before recording the job');
    };
    const restore = () => (provider.createJob = create);
    return { tasks, provider, deps, restore, later: (ms: number) => (now = new Date(now.getTime() + ms)) };
  };

  it('the retry adopts the job it made instead of creating a second one', async () => {
    const { tasks, provider, deps, restore, later } = setUp();
    const adopted: string[] = [];
    deps.onJobAdopted = (_taskId, jobId) => adopted.push(jobId);
    expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBeInstanceOf(UpstreamOutcomeUnknownError);
    restore();
    // While the claim is live its create may still be going: the retry waits rather than create.
    expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBeInstanceOf(UpstreamClaimHeldError);
    later(UPSTREAM_CLAIM_LEASE_MS);
    expect(await startUpstreamJob(TASK_ID, deps)).toMatchObject({ state: 'started', job_id: 'job-1' });
    expect(provider.jobs.map((job) => job.jobId)).toEqual(['job-1']);
    expect(await tasks.get(TASK_ID)).toMatchObject({ status: 'pending', upstream_job_id: 'job-1' });
    expect(adopted).toEqual(['job-1']);
  });

  it('the refund after the failure waits out the claim, then adopts the job and cancels it before refunding', async () => {
    const { tasks, provider, deps, later } = setUp();
    await rejection(startUpstreamJob(TASK_ID, deps));
    const error = { Error: 'UpstreamOutcomeUnknownError', Cause: 'lost' };
    expect(await rejection(failAndRefund(TASK_ID, error, deps))).toBeInstanceOf(UpstreamClaimHeldError);
    expect(tasks.refunds).toEqual([]);
    later(UPSTREAM_CLAIM_LEASE_MS);
    expect(await failAndRefund(TASK_ID, error, deps)).toMatchObject({ refunded: true });
    expect(provider.cancelled).toEqual(['job-1']);
    expect(provider.states.get('job-1')).toBe('cancelled');
  });

  it('a cancel after the lease finds the job upstream and cancels it before it refunds', async () => {
    const { tasks, provider, deps, later } = setUp();
    await rejection(startUpstreamJob(TASK_ID, deps));
    const cancel = () =>
      cancelTask(CALLER, TASK_ID, { ...deps, workflow: new FakeWorkflow(), onCleanupError: () => {} });
    expect(await rejection(cancel())).toMatchObject({ code: 429 });
    later(UPSTREAM_CLAIM_LEASE_MS);
    expect(await cancel()).toMatchObject({ refunded: true });
    expect(provider.states.get('job-1')).toBe('cancelled');
    expect(tasks.refunds).toHaveLength(1);
  });
});
