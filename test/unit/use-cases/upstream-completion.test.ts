/**
 * Pushed completion (docs/task-lifecycle.md, "Completion"): the AwaitCompletion step (token registered, job checked once), the
 * upstream's callback (a hint: the job is read again) and a status query settle a finished job once, give its
 * slot back once and wake the execution once.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../functions/core/api-error.js';
import type { UpstreamAccount } from '../../../functions/core/ports/upstream-capacity.js';
import type { TaskRecord } from '../../../functions/core/task.js';
import {
  ContentModerationError,
  UpstreamAccountError,
  UpstreamBusyError,
  UpstreamJobNotFoundError,
  UpstreamTransientError,
} from '../../../functions/core/upstream-errors.js';
import { refreshFromUpstream } from '../../../functions/core/use-cases/refresh-from-upstream.js';
import type { CompletionDeps } from '../../../functions/core/use-cases/upstream-completion.js';
import {
  acceptCallback,
  awaitCompletion,
  CANCEL_SETTLE_MS,
  checkUpstream,
  pollDeadline,
  settleFromHint,
  UPSTREAM_EXPIRY_GRACE_MS,
  videoKeyOf,
  wakeExecution,
} from '../../../functions/core/use-cases/upstream-completion.js';
import { waitForSlot } from '../../../functions/core/use-cases/waiting-room.js';
import { GenerationTimedOutError, TaskNotFoundError } from '../../../functions/core/workflow-errors.js';
import { ACCOUNT, TASK_ID, taskRecord } from '../../support/task-records.js';
import type { TaskRecordFields } from '../../support/task-records.js';
import { countHeldSlots, InMemoryTasks, KeyedFakeProvider, NOW } from '../fakes.js';
import { waitingRoom } from '../fakes.js';
import type { InMemoryCapacity, RecordingWaker } from '../fakes.js';
import { rejection } from '../support.js';

const SLOT = 'ark#default';
const SECRET = 'secret-1';
const VIDEO = 'https://upstream.example.com/v.mp4';
const SUCCEEDED = {
  state: 'succeeded',
  job_id: 'job-1',
  provider: 'ark',
  video_url: VIDEO,
  video_key: `videos/${ACCOUNT}/${TASK_ID}.mp4`,
};

/** A task whose job runs upstream, holding its slot, with its callback secret. */
const generating = (fields: TaskRecordFields = {}) =>
  taskRecord({
    status: 'running',
    upstream_job_id: 'job-1',
    upstream_slot: SLOT,
    upstream_account: 'default',
    callback_token: SECRET,
    ...fields,
  });

describe('upstream completion', () => {
  let tasks: InMemoryTasks;
  let capacity: InMemoryCapacity;
  let waker: RecordingWaker;
  let provider: KeyedFakeProvider;
  let now: Date;
  let deps: CompletionDeps;

  const use = (records: TaskRecord[], accounts: Partial<UpstreamAccount>[] = [{}]) => {
    tasks = new InMemoryTasks(...records);
    const room = waitingRoom(tasks, accounts);
    ({ capacity, waker } = room);
    countHeldSlots(tasks, capacity);
    deps = { ...room, tasks, providers: { ark: provider }, now: () => now };
  };
  const stored = async () => (await tasks.get(TASK_ID)) as TaskRecord;
  const inUse = () => capacity.accountsById.get(SLOT)?.in_use;

  beforeEach(() => {
    provider = new KeyedFakeProvider();
    now = NOW;
    use([generating()]);
  });

  describe('awaitCompletion', () => {
    it.each([{ state: 'queued' } as const, { state: 'running' } as const])(
      '%j: the token is registered (the task marked alive), the job read once with its account, no answer yet',
      async (status) => {
        provider.status = status;
        await awaitCompletion(TASK_ID, 'wake-1', deps);
        expect(provider.reads).toEqual([{ jobId: 'job-1', account: 'default' }]);
        expect(await stored()).toMatchObject({
          status: 'running',
          wake_token: 'wake-1',
          updated_at: NOW.toISOString(),
        });
        // Queued, the job holds its slot; running, the slot (taken before phases here) is given back.
        expect((await stored()).upstream_slot).toBe(status.state === 'queued' ? SLOT : undefined);
        expect(waker.answers).toEqual([]);
      },
    );

    it('a task made before accounts existed reads its job with the default key', async () => {
      use([generating({ upstream_account: undefined })]);
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect(provider.reads).toEqual([{ jobId: 'job-1', account: 'default' }]);
    });

    it.each([
      new UpstreamTransientError('503 Service Unavailable'),
      new UpstreamBusyError('429 QuotaExceeded'),
      new UpstreamAccountError('401 AuthenticationError'),
    ])('an upstream that cannot be read now (%s) is no news: the wait goes on', async (error) => {
      provider.getError = error;
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect(waker.answers).toEqual([]);
      expect(await stored()).toMatchObject({ status: 'running', wake_token: 'wake-1', upstream_slot: SLOT });
      expect(tasks.refunds).toEqual([]);
    });

    it('any other upstream error is not taken for a pause', async () => {
      provider.getError = new UpstreamJobNotFoundError('gone');
      expect(await rejection(awaitCompletion(TASK_ID, 'wake-1', deps))).toBeInstanceOf(UpstreamJobNotFoundError);
    });

    it('succeeded → transferring, the slot given back, and the token answered with the video to copy', async () => {
      provider.status = { state: 'succeeded', videoUrl: VIDEO };
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect(waker.answers).toEqual([{ token: 'wake-1', output: SUCCEEDED }]);
      expect(await stored()).toMatchObject({ status: 'transferring', updated_at: NOW.toISOString() });
      expect((await stored()).upstream_slot).toBeUndefined();
      expect(inUse()).toBe(0);
      expect(videoKeyOf(taskRecord())).toBe(SUCCEEDED.video_key);
    });

    it('succeeded, the freed slot goes at once to the next waiting task', async () => {
      const next = taskRecord({ task_id: 'task-next', created_at: '2026-11-21T09:59:30.000Z' });
      use([generating(), next], [{ capacity: 1 }]);
      await waitForSlot('task-next', 'slot-next', deps);
      expect(waker.answers).toEqual([]);
      provider.status = { state: 'succeeded', videoUrl: VIDEO };
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect(waker.answers.map((answer) => answer.token).sort()).toEqual(['slot-next', 'wake-1']);
      expect((await tasks.get('task-next'))?.upstream_slot).toBe(SLOT);
      expect(inUse()).toBe(1);
    });

    it('succeeded, and a status query already made the task transferring → still answered succeeded', async () => {
      use([generating({ status: 'transferring', upstream_slot: undefined })]);
      provider.status = { state: 'succeeded', videoUrl: VIDEO };
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect(waker.answers).toEqual([{ token: 'wake-1', output: SUCCEEDED }]);
    });

    it('succeeded, but a cancel made the task final between the read and the move → final, slot given back', async () => {
      provider.status = { state: 'succeeded', videoUrl: VIDEO };
      const moveTo = tasks.moveTo.bind(tasks);
      tasks.moveTo = async (...args) => {
        await tasks.refund(await stored(), 'refunded', 'cancelled by the client', NOW.toISOString());
        return moveTo(...args);
      };
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect(waker.answers).toEqual([{ token: 'wake-1', output: { state: 'final', notify: false } }]);
      expect((await stored()).status).toBe('refunded');
      expect(inUse()).toBe(0);
    });

    it('failed → failed and refunded once with the upstream message, the slot given back, answered final', async () => {
      use([generating({ generation: { webhookUrl: 'https://hooks.example.com/done' } })]);
      provider.status = { state: 'failed', message: 'content policy violation' };
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      await awaitCompletion(TASK_ID, 'wake-2', deps);
      expect(tasks.refunds).toEqual([
        { taskId: TASK_ID, to: 'failed', errorMessage: 'generation failed: content policy violation' },
      ]);
      // The execution queues the failure webhook (the task has one).
      expect(waker.answers[0]).toEqual({ token: 'wake-1', output: { state: 'final', notify: true } });
      expect((await stored()).upstream_slot).toBeUndefined();
      expect(inUse()).toBe(0);
      // A final task is answered at once and the upstream not asked again.
      expect(provider.reads).toHaveLength(1);
    });

    it('output moderation → refunded with a reason that says what to change', async () => {
      provider.status = {
        state: 'failed',
        message: 'The request failed because the output video may contain sensitive information.',
        cause: { kind: 'moderation', content: 'output', concern: 'sensitive' },
      };
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      // The upstream's own words are for operators (the execution's history), not the customer's reason.
      const expected = new ContentModerationError('output', 'sensitive').message;
      expect((await stored()).error_message).toBe(expected);
      expect(expected).toContain('change the prompt or the references');
    });

    it('expired upstream → refunded as timed out', async () => {
      provider.status = { state: 'failed', message: 'expired', cause: { kind: 'expired' } };
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect((await stored()).error_message).toBe(
        'generation timed out: the upstream gave up on the job before it finished',
      );
      expect(waker.answers).toHaveLength(1);
    });

    it('cancelled upstream at a time it does not say (Model Studio) → left to the cancel: still waiting', async () => {
      provider.status = { state: 'cancelled' };
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect(waker.answers).toEqual([]);
      expect((await stored()).status).toBe('running');
    });

    it('cancelled upstream long ago (by an operator, say) → failed and refunded', async () => {
      provider.status = { state: 'cancelled', cancelledAt: new Date(NOW.getTime() - CANCEL_SETTLE_MS).toISOString() };
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect(await stored()).toMatchObject({
        status: 'failed',
        error_message: 'generation failed: the generator cancelled the task',
      });
      expect(inUse()).toBe(0);
    });

    it('cancelled upstream moments ago (a customer’s cancel refunding) → still waiting, then failed if still live', async () => {
      provider.status = {
        state: 'cancelled',
        cancelledAt: new Date(NOW.getTime() - CANCEL_SETTLE_MS + 1).toISOString(),
      };
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect(waker.answers).toEqual([]);
      expect((await stored()).status).toBe('running');
      provider.status = { state: 'cancelled', cancelledAt: new Date(NOW.getTime() - CANCEL_SETTLE_MS).toISOString() };
      await awaitCompletion(TASK_ID, 'wake-2', deps);
      expect((await stored()).status).toBe('failed');
      expect(waker.answers.map((answer) => answer.token)).toEqual(['wake-2']);
    });

    it('after the deadline → GenerationTimedOutError, without asking the upstream or registering the token', async () => {
      now = new Date(Date.parse(taskRecord().deadline_at) + 1);
      const error = await rejection(awaitCompletion(TASK_ID, 'wake-1', deps));
      expect(error).toBeInstanceOf(GenerationTimedOutError);
      expect(error.message).toContain(taskRecord().deadline_at);
      expect(provider.reads).toEqual([]);
      expect((await stored()).wake_token).toBeUndefined();
    });

    it('at the deadline itself the upstream is still asked', async () => {
      now = new Date(taskRecord().deadline_at);
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect(provider.reads).toHaveLength(1);
    });

    it('a job that Ark keeps past the deadline (its minimum hour) is awaited until it expires there', async () => {
      const expiresAt = new Date(Date.parse(taskRecord().deadline_at) + 20 * 60_000).toISOString();
      use([generating({ upstream_expires_at: expiresAt })]);
      // After our deadline Ark may still finish it, and bill it: no refund yet, the video is still to come.
      now = new Date(Date.parse(taskRecord().deadline_at) + 10 * 60_000);
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect(waker.answers).toEqual([]);
      provider.status = { state: 'succeeded', videoUrl: VIDEO };
      await awaitCompletion(TASK_ID, 'wake-2', deps);
      expect(waker.answers).toEqual([{ token: 'wake-2', output: SUCCEEDED }]);
      // Past Ark's expiry (and a little slack for it to say so): timed out, refunded as usual.
      use([generating({ upstream_expires_at: expiresAt })]);
      now = new Date(Date.parse(expiresAt) + UPSTREAM_EXPIRY_GRACE_MS + 1);
      expect(await rejection(awaitCompletion(TASK_ID, 'wake-3', deps))).toBeInstanceOf(GenerationTimedOutError);
      expect(pollDeadline(taskRecord({ upstream_expires_at: expiresAt }))).toBe(
        Date.parse(expiresAt) + UPSTREAM_EXPIRY_GRACE_MS,
      );
      // An expiry before the deadline changes nothing.
      expect(pollDeadline(taskRecord({ upstream_expires_at: NOW.toISOString() }))).toBe(
        Date.parse(taskRecord().deadline_at),
      );
    });

    it.each(['success', 'failed', 'refunded'] as const)(
      'a %s task → answered final at once, upstream not asked',
      async (status) => {
        use([generating({ status, upstream_slot: undefined })]);
        await awaitCompletion(TASK_ID, 'wake-1', deps);
        expect(waker.answers).toEqual([{ token: 'wake-1', output: { state: 'final', notify: false } }]);
        expect(provider.reads).toEqual([]);
        expect((await stored()).wake_token).toBeUndefined();
      },
    );

    it('an unknown task → TaskNotFoundError', async () => {
      use([]);
      expect(await rejection(awaitCompletion(TASK_ID, 'wake-1', deps))).toBeInstanceOf(TaskNotFoundError);
    });
  });

  describe('checkUpstream', () => {
    it('a job that started moves a pending task to running and gives its queued slot back (it stays in flight)', async () => {
      use([generating({ status: 'pending', upstream_slot_phase: 'queued' })]);
      provider.status = { state: 'queued' };
      expect(await checkUpstream(await stored(), deps)).toBeUndefined();
      expect((await stored()).status).toBe('pending');
      const before = { ...capacity.accountsById.get('ark#default') };
      provider.status = { state: 'running' };
      expect(await checkUpstream(await stored(), deps)).toBeUndefined();
      expect(await stored()).toMatchObject({ status: 'running', upstream_slot_phase: 'running' });
      expect(capacity.accountsById.get('ark#default')).toMatchObject({
        in_use: (before.in_use ?? 0) - 1,
        inflight: before.inflight,
      });
      // Seen running again: nothing more is given back.
      expect(await checkUpstream(await stored(), deps)).toBeUndefined();
      expect(capacity.accountsById.get('ark#default')?.in_use).toBe((before.in_use ?? 0) - 1);
    });

    it('a task without a job yet: nothing to read', async () => {
      use([taskRecord()]);
      expect(await checkUpstream(await stored(), deps)).toBeUndefined();
      expect(provider.reads).toEqual([]);
    });

    it('a provider without an adapter is an error', async () => {
      use([generating({ upstream_provider: 'nobody' })]);
      expect((await rejection(checkUpstream(await stored(), deps))).message).toContain('nobody');
    });
  });

  describe('the upstream’s callback (acceptCallback)', () => {
    it('a wrong secret → NotFoundError, and nothing is read upstream', async () => {
      provider.status = { state: 'succeeded', videoUrl: VIDEO };
      for (const secret of ['secret-2', 'secret-', 'secret-11', '', SECRET.toUpperCase()]) {
        expect(await rejection(acceptCallback(TASK_ID, secret, deps))).toBeInstanceOf(NotFoundError);
      }
      expect(provider.reads).toEqual([]);
      expect((await stored()).status).toBe('running');
    });

    it('an unknown task, or one without a secret: the same NotFoundError', async () => {
      const unknown = await rejection(acceptCallback('00000000-0000-4000-8000-000000000000', SECRET, deps));
      expect(unknown).toBeInstanceOf(NotFoundError);
      use([generating({ callback_token: undefined })]);
      const secretless = await rejection(acceptCallback(TASK_ID, '', deps));
      expect(secretless).toBeInstanceOf(NotFoundError);
      expect(secretless.message).toBe(unknown.message);
      expect(provider.reads).toEqual([]);
    });

    it('the right secret: the job is read again (the callback’s word is not taken) and the registered token answered once', async () => {
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      // The callback says the job ended; the upstream still says it runs: nothing moves.
      await acceptCallback(TASK_ID, SECRET, deps);
      expect(provider.reads).toHaveLength(2);
      expect((await stored()).status).toBe('running');
      expect(waker.answers).toEqual([]);

      provider.status = { state: 'succeeded', videoUrl: VIDEO };
      await acceptCallback(TASK_ID, SECRET, deps);
      await acceptCallback(TASK_ID, SECRET, deps);
      expect(waker.answers).toEqual([{ token: 'wake-1', output: SUCCEEDED }]);
      expect((await stored()).status).toBe('transferring');
      expect(inUse()).toBe(0);
    });

    it('a failed job reported by callback: refunded once, the execution woken with final', async () => {
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      provider.status = { state: 'failed', message: 'content policy' };
      await acceptCallback(TASK_ID, SECRET, deps);
      await acceptCallback(TASK_ID, SECRET, deps);
      expect(tasks.refunds).toHaveLength(1);
      expect(waker.answers).toEqual([{ token: 'wake-1', output: { state: 'final', notify: false } }]);
      // The second callback found the task final: nothing read.
      expect(provider.reads).toHaveLength(2);
    });

    it('a callback before the execution registered its token settles the task; the wait then answers itself', async () => {
      provider.status = { state: 'succeeded', videoUrl: VIDEO };
      await acceptCallback(TASK_ID, SECRET, deps);
      expect((await stored()).status).toBe('transferring');
      expect(waker.answers).toEqual([]);
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect(waker.answers).toEqual([{ token: 'wake-1', output: SUCCEEDED }]);
      expect(inUse()).toBe(0);
    });

    it('a callback that claims the job is queued reads nothing; one that says it runs records the start', async () => {
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      use([generating({ status: 'pending' })]);
      await acceptCallback(TASK_ID, SECRET, deps, 'queued');
      expect(provider.reads).toHaveLength(1);
      expect((await stored()).status).toBe('pending');
      await acceptCallback(TASK_ID, SECRET, deps, 'running');
      expect(provider.reads).toHaveLength(2);
      expect((await stored()).status).toBe('running');
      provider.status = { state: 'succeeded', videoUrl: VIDEO };
      await acceptCallback(TASK_ID, SECRET, deps, 'succeeded');
      expect(provider.reads).toHaveLength(3);
    });

    it('settleFromHint: a final task, or one without a job, is not read', async () => {
      use([generating({ status: 'refunded' })]);
      expect(await settleFromHint(await stored(), deps)).toBe(false);
      use([taskRecord({ callback_token: SECRET })]);
      expect(await settleFromHint(await stored(), deps)).toBe(false);
      expect(await settleFromHint(undefined, deps)).toBe(false);
      expect(provider.reads).toEqual([]);
    });

    it('wakeExecution without a registered token answers nothing', async () => {
      await wakeExecution(TASK_ID, { state: 'final' }, deps);
      expect(waker.answers).toEqual([]);
    });
  });

  describe('a status query (refreshFromUpstream)', () => {
    it('a finished job found by a GET is settled and the waiting execution woken', async () => {
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      provider.status = { state: 'succeeded', videoUrl: VIDEO };
      const task = await refreshFromUpstream(await stored(), deps);
      expect(task.status).toBe('transferring');
      expect(waker.answers).toEqual([{ token: 'wake-1', output: SUCCEEDED }]);
      expect(inUse()).toBe(0);
    });

    it('a job still running: nothing answered, its queued slot given back (it stays in flight)', async () => {
      await awaitCompletion(TASK_ID, 'wake-1', deps);
      expect((await refreshFromUpstream(await stored(), deps)).status).toBe('running');
      expect(waker.answers).toEqual([]);
      expect(inUse()).toBe(0);
      // A slot taken before phases: given back whole (it was never counted in flight).
      expect((await stored()).upstream_slot).toBeUndefined();
    });
  });

  describe('a callback, a GET and the wait racing on a succeeded job', () => {
    const orders = [
      ['callback', 'get', 'await'],
      ['callback', 'await', 'get'],
      ['get', 'callback', 'await'],
      ['get', 'await', 'callback'],
      ['await', 'callback', 'get'],
      ['await', 'get', 'callback'],
    ] as const;

    it.each(orders.flatMap((order) => [[...order, 'at once'] as const, [...order, 'one after another'] as const]))(
      '%s, %s, %s (%s): moved to transferring once, the slot given back once, the token answered once',
      async (first, second, third, timing) => {
        const next = taskRecord({ task_id: 'task-next', created_at: '2026-11-21T09:59:30.000Z' });
        use([generating(), next], [{ capacity: 1 }]);
        await waitForSlot('task-next', 'slot-next', deps);
        provider.status = { state: 'succeeded', videoUrl: VIDEO };
        const moves: string[] = [];
        const moveTo = tasks.moveTo.bind(tasks);
        tasks.moveTo = async (taskId, to, fields, at) => {
          const moved = await moveTo(taskId, to, fields, at);
          if (moved) moves.push(`${taskId}→${to}`);
          return moved;
        };
        let releases = 0;
        const releaseSlot = capacity.release.bind(capacity);
        capacity.release = async (...args) => {
          const released = await releaseSlot(...args);
          if (released) releases += 1;
          return released;
        };
        const seen = await stored();
        const run = {
          callback: () => acceptCallback(TASK_ID, SECRET, deps),
          get: () => refreshFromUpstream(seen, deps),
          await: () => awaitCompletion(TASK_ID, 'wake-1', deps),
        };
        if (timing === 'at once') await Promise.all([run[first](), run[second](), run[third]()]);
        else for (const step of [first, second, third]) await run[step]();

        expect(moves).toEqual([`${TASK_ID}→transferring`]);
        expect(releases).toBe(1);
        expect(waker.answers.filter((answer) => answer.token === 'wake-1')).toEqual([
          { token: 'wake-1', output: SUCCEEDED },
        ]);
        // The freed slot went to the waiting task, once.
        expect(waker.answers.filter((answer) => answer.token === 'slot-next')).toHaveLength(1);
        expect(inUse()).toBe(1);
        expect((await stored()).status).toBe('transferring');
      },
    );
  });
});
