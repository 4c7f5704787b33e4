/**
 * The state machine's steps StartUpstream, TransferVideo, CompleteTask and FailAndRefund (the wait for a slot
 * and for the job's end: waiting-room.test.ts and upstream-completion.test.ts).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { UpstreamAccount } from '../../../functions/core/ports/upstream-capacity.js';
import type { TaskRecord } from '../../../functions/core/task.js';
import type { TaskStatus } from '../../../functions/core/task-status.js';
import { CAPACITY_RULES } from '../../../functions/core/upstream-account-rules.js';
import {
  ContentModerationError,
  UpstreamAccountError,
  UpstreamBusyError,
  UpstreamConcurrencyError,
  UpstreamConfigurationError,
  UpstreamRejectedError,
  UpstreamTransientError,
} from '../../../functions/core/upstream-errors.js';
import { completeTask } from '../../../functions/core/use-cases/complete-task.js';
import { failAndRefund } from '../../../functions/core/use-cases/fail-and-refund.js';
import type { RefundDeps } from '../../../functions/core/use-cases/fail-and-refund.js';
import { startUpstreamJob, upstreamExpirySeconds } from '../../../functions/core/use-cases/start-upstream-job.js';
import type { LifecycleDeps } from '../../../functions/core/use-cases/start-upstream-job.js';
import { transferVideo } from '../../../functions/core/use-cases/transfer-video.js';
import { videoKeyOf } from '../../../functions/core/use-cases/upstream-completion.js';
import { dispatch, waitForSlot } from '../../../functions/core/use-cases/waiting-room.js';
import {
  GenerationTimedOutError,
  TaskNotFoundError,
  WaitingForUpstreamError,
} from '../../../functions/core/workflow-errors.js';
import { ACCOUNT, TASK_ID, taskRecord } from '../../support/task-records.js';
import type { TaskRecordFields } from '../../support/task-records.js';
import {
  countHeldSlots,
  FakeSigner,
  FakeTransfer,
  HOUR,
  InMemoryTasks,
  KeyedFakeProvider,
  NOW,
  waitingRoom,
} from '../fakes.js';
import type { InMemoryCapacity, RecordingWaker } from '../fakes.js';
import { rejection } from '../support.js';

const SLOT = 'ark#default';
const CHECK_SECONDS = { callback: 900, polling: 20 };
const callbackUrlOf = (task: TaskRecord) =>
  task.callback_token ? `https://api.example.com/cb/${task.task_id}/${task.callback_token}` : undefined;

/** A task the waiting room gave a slot of `account` (with its callback secret). */
function holding(fields: TaskRecordFields = {}, account = 'default'): TaskRecord {
  return taskRecord({
    upstream_slot: `ark#${account}`,
    upstream_account: account,
    callback_token: 'secret-1',
    ...fields,
  });
}

describe('lifecycle steps', () => {
  let tasks: InMemoryTasks;
  let capacity: InMemoryCapacity;
  let waker: RecordingWaker;
  let provider: KeyedFakeProvider;
  let now: Date;
  let deps: LifecycleDeps;

  const use = (records: TaskRecord[], accounts: Partial<UpstreamAccount>[] = [{}]) => {
    tasks = new InMemoryTasks(...records);
    const room = waitingRoom(tasks, accounts);
    ({ capacity, waker } = room);
    countHeldSlots(tasks, capacity);
    deps = {
      tasks,
      providers: { ark: provider },
      now: () => now,
      ...room,
      callbackUrl: callbackUrlOf,
      checkSeconds: CHECK_SECONDS,
    };
  };
  const account = (name = 'default') => capacity.accountsById.get(`ark#${name}`);

  beforeEach(() => {
    provider = new KeyedFakeProvider();
    now = NOW;
    use([holding()]);
  });

  describe('startUpstreamJob', () => {
    /** The customer's cancel lands between StartUpstream's read of the task and its write of the job id. */
    const cancelWhileCreating = () => {
      const create = provider.createJob.bind(provider);
      provider.createJob = async (request) => {
        const job = await create(request);
        await tasks.moveTo(TASK_ID, 'refunded', {}, NOW.toISOString());
        return job;
      };
    };

    it('creates the job from the stored generation with the slot’s account and the callback URL (the task stays pending: the job is queued)', async () => {
      use([holding({ generation: { seed: 42 } })]);
      const progress = await startUpstreamJob(TASK_ID, deps);
      expect(progress).toEqual({ state: 'started', job_id: 'job-1', check_seconds: CHECK_SECONDS.callback });
      expect(provider.created).toEqual([
        {
          upstreamModel: 'seedance-1-5-pro',
          account: 'default',
          prompt: 'A red fox trots through fresh snow',
          resolution: '720p',
          ratio: '16:9',
          durationSeconds: 5,
          seed: 42,
          generateAudio: true,
          imageMode: 'first_frame',
          imageUrls: ['https://cdn.example.com/fox.png'],
          videoUrls: [],
          audioUrls: [],
          // 59 minutes to the deadline: Ark's minimum hour.
          expiresAfterSeconds: 3600,
          callbackUrl: `https://api.example.com/cb/${TASK_ID}/secret-1`,
        },
      ]);
      expect(await tasks.get(TASK_ID)).toMatchObject({
        status: 'pending',
        upstream_job_id: 'job-1',
        // When Ark expires the job unfinished: the wait for its end lasts until then.
        upstream_expires_at: new Date(NOW.getTime() + HOUR).toISOString(),
        // The slot stays the task's until the job is final.
        upstream_slot: SLOT,
      });
      expect(account()?.in_use).toBe(1);
    });

    it('makes the job with the account whose slot the task holds, not another', async () => {
      use([holding({}, 'second')], [{ name: 'default' }, { name: 'second' }]);
      await startUpstreamJob(TASK_ID, deps);
      expect(provider.created.map((request) => request.account)).toEqual(['second']);
    });

    it('no callback URL (none configured, or no secret): no callbackUrl sent, and the wait polls (check_seconds)', async () => {
      use([holding({ callback_token: undefined })]);
      expect(await startUpstreamJob(TASK_ID, deps)).toEqual({
        state: 'started',
        job_id: 'job-1',
        check_seconds: CHECK_SECONDS.polling,
      });
      expect('callbackUrl' in (provider.created[0] as object)).toBe(false);
      // A job that reports its end by callback waits the long fallback.
      use([holding()]);
      expect((await startUpstreamJob(TASK_ID, deps)).check_seconds).toBe(CHECK_SECONDS.callback);
    });

    it('gives the job what is left of the deadline, within Ark’s 3600…259200 s', async () => {
      use([holding({ deadline_at: new Date(NOW.getTime() + 6 * HOUR).toISOString() })]);
      await startUpstreamJob(TASK_ID, deps);
      expect(provider.created[0]?.expiresAfterSeconds).toBe(6 * 3600);
      expect(upstreamExpirySeconds(new Date(NOW.getTime() + 1500).toISOString(), NOW, provider.jobExpirySeconds)).toBe(
        3600,
      );
      expect(
        upstreamExpirySeconds(new Date(NOW.getTime() + 2 * HOUR + 1).toISOString(), NOW, provider.jobExpirySeconds),
      ).toBe(7201);
      expect(
        upstreamExpirySeconds(new Date(NOW.getTime() + 100 * HOUR).toISOString(), NOW, provider.jobExpirySeconds),
      ).toBe(259_200);
    });

    it('a task holding no slot → WaitingForUpstreamError (back to the waiting room), no job made', async () => {
      use([taskRecord()]);
      const thrown = await rejection(startUpstreamJob(TASK_ID, deps));
      expect(thrown).toBeInstanceOf(WaitingForUpstreamError);
      expect(thrown.name).toBe('WaitingForUpstreamError');
      expect(provider.created).toEqual([]);
      expect(tasks.recordUpstreamJobCalls).toBe(0);
      expect(tasks.refunds).toEqual([]);
    });

    it('429: the slot is given back, the account cools down, WaitingForUpstreamError, nothing refunded', async () => {
      deps.jitter = () => 0.5;
      provider.createError = new UpstreamBusyError('QuotaExceeded');
      const thrown = await rejection(startUpstreamJob(TASK_ID, deps));
      expect(thrown).toBeInstanceOf(WaitingForUpstreamError);
      expect(thrown.message).toContain('QuotaExceeded');
      expect(tasks.recordUpstreamJobCalls).toBe(0);
      expect(tasks.refunds).toEqual([]);
      expect((await tasks.get(TASK_ID))?.status).toBe('pending');
      expect((await tasks.get(TASK_ID))?.upstream_slot).toBeUndefined();
      // The first 429 in a row: a random wait below 10 s (half of it here).
      const coolMs = CAPACITY_RULES.coolBaseMs / 2;
      expect(account()).toMatchObject({
        in_use: 0,
        inflight: 0,
        enabled: true,
        cool_streak: 1,
        cool_until: new Date(NOW.getTime() + coolMs).toISOString(),
      });
      // Back in the waiting room: the cooling account gives it nothing…
      await waitForSlot(TASK_ID, 'slot-2', deps);
      expect((await tasks.get(TASK_ID))?.upstream_slot).toBeUndefined();
      expect(waker.answers).toEqual([]);
      // …until the cool-down is over; then the same task starts, as the account's one probe.
      now = new Date(NOW.getTime() + coolMs + 1);
      expect(await dispatch('ark', deps)).toBe(1);
      expect(waker.answers.map((answer) => answer.token)).toEqual(['slot-2']);
      expect(account()?.probe_until).toBeDefined();
      provider.createError = undefined;
      expect(await startUpstreamJob(TASK_ID, deps)).toMatchObject({ state: 'started', job_id: 'job-1' });
      // The probe was accepted: the cooling is over.
      expect(account()).toMatchObject({ cool_streak: 0, in_use: 1, inflight: 1 });
      expect(account()?.probe_until).toBeUndefined();
    });

    it('429s in a row: each bound doubles up to the cap (full jitter below it); one probe at a time', async () => {
      const waits: number[] = [];
      deps.jitter = () => 0.999;
      provider.createError = new UpstreamBusyError('QuotaExceeded');
      for (let round = 0; round < 8; round += 1) {
        await rejection(startUpstreamJob(TASK_ID, deps));
        const coolUntil = Date.parse(account()?.cool_until ?? '');
        waits.push(coolUntil - now.getTime());
        now = new Date(coolUntil + 1);
        await waitForSlot(TASK_ID, `slot-${round}`, deps);
        expect((await tasks.get(TASK_ID))?.upstream_slot).toBe('ark#default');
      }
      const bounds = [10, 20, 40, 80, 160, 300, 300, 300].map((s) => s * 1000);
      waits.forEach((wait, i) => expect(wait).toBe(Math.floor(0.999 * (bounds[i] ?? 0))));
      expect(account()?.cool_streak).toBe(8);
      // The probe holds the lease: a second waiting task gets nothing while it lives.
      tasks.tasks.set('t-2', { ...taskRecord({ task_id: 't-2', created_at: '2026-01-02T00:00:00.000Z' }) });
      await waitForSlot('t-2', 'slot-other', deps);
      expect((await tasks.get('t-2'))?.upstream_slot).toBeUndefined();
    });

    it('InflightBatchsizeExceeded: the in-flight limit is cut to half of what the upstream held; success raises it', async () => {
      use([holding({ upstream_slot_phase: 'queued' })], [{ inflight: 40, inflight_limit: 100, inflight_ceiling: 100 }]);
      deps.jitter = () => 0;
      provider.createError = new UpstreamConcurrencyError('InflightBatchsizeExceeded');
      expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBeInstanceOf(WaitingForUpstreamError);
      // 41 in flight with ours: the upstream refused at 40, so the limit is 20; ours went back.
      expect(account()).toMatchObject({ inflight: 40, inflight_limit: 20, cool_streak: 1 });
      // Accepted jobs raise it by one per limit's worth (20), never above the ceiling.
      capacity.accountsById.get('ark#default')!.inflight = 0;
      provider.createError = undefined;
      now = new Date(NOW.getTime() + 1);
      await waitForSlot(TASK_ID, 'slot-2', deps);
      await startUpstreamJob(TASK_ID, deps);
      expect(account()).toMatchObject({ inflight_limit: 20, inflight_accepted: 1, cool_streak: 0 });
      for (let i = 0; i < 19; i += 1) await capacity.accepted('ark#default', NOW.toISOString());
      expect(account()).toMatchObject({ inflight_limit: 21, inflight_accepted: 0 });
      capacity.accountsById.get('ark#default')!.inflight_limit = 100;
      for (let i = 0; i < 200; i += 1) await capacity.accepted('ark#default', NOW.toISOString());
      expect(account()?.inflight_limit).toBe(100);
    });

    it('401/403: the slot is given back and the account disabled (an operator’s job), WaitingForUpstreamError', async () => {
      use([holding()], [{ name: 'default' }, { name: 'spare', capacity: 1 }]);
      provider.createError = new UpstreamAccountError('AccountOverdueError');
      expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBeInstanceOf(WaitingForUpstreamError);
      expect(tasks.refunds).toEqual([]);
      expect(account()).toMatchObject({ in_use: 0, enabled: false, disabled_reason: 'AccountOverdueError' });
      // Back in the waiting room, the task gets a slot of the other account, and its job is made there.
      await waitForSlot(TASK_ID, 'slot-2', deps);
      expect(await tasks.get(TASK_ID)).toMatchObject({ upstream_slot: 'ark#spare', upstream_account: 'spare' });
      provider.createError = undefined;
      await startUpstreamJob(TASK_ID, deps);
      expect(provider.created.map((request) => request.account)).toEqual(['spare']);
    });

    it('the slot a 429 gave back goes to nobody while its account cools', async () => {
      const waiting = taskRecord({ task_id: 'task-next', created_at: '2026-11-21T09:59:30.000Z' });
      // The other account is full, held by a task outside this test.
      use(
        [holding(), waiting],
        [
          { name: 'default', capacity: 1 },
          { name: 'other', capacity: 1, in_use: 1 },
        ],
      );
      await waitForSlot('task-next', 'slot-next', deps);
      expect(waker.answers).toEqual([]);
      provider.createError = new UpstreamBusyError('QuotaExceeded');
      await rejection(startUpstreamJob(TASK_ID, deps));
      expect(account()?.in_use).toBe(0);
      expect((await tasks.get('task-next'))?.upstream_slot).toBeUndefined();
      expect(waker.answers).toEqual([]);
    });

    it('a task still waiting at its deadline times out (the usual refund), never for the wait itself', async () => {
      provider.createError = new UpstreamBusyError('ServerOverloaded');
      now = new Date(taskRecord().deadline_at);
      expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBeInstanceOf(WaitingForUpstreamError);
      now = new Date(Date.parse(taskRecord().deadline_at) + 1);
      expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBeInstanceOf(GenerationTimedOutError);
    });

    it.each([
      new ContentModerationError('text', 'sensitive', 'InputTextSensitiveContentDetected'),
      new UpstreamConfigurationError('ModelNotOpen'),
      new UpstreamTransientError('500'),
    ])('%s is not a wait: it reaches the state machine as it is (the slot stays for FailAndRefund)', async (error) => {
      provider.createError = error;
      expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBe(error);
      expect((await tasks.get(TASK_ID))?.upstream_slot).toBe(SLOT);
      expect(account()?.cool_until).toBeUndefined();
    });

    it('with no seed asked, sends one picked at the claim and keeps it on the task (it tells the job apart)', async () => {
      deps.random = () => 7;
      await startUpstreamJob(TASK_ID, deps);
      expect(provider.created[0]?.seed).toBe(7);
      expect((await tasks.get(TASK_ID))?.upstream_seed).toBe(7);
    });

    it('run twice, it creates the job once and returns the same job id', async () => {
      const first = await startUpstreamJob(TASK_ID, deps);
      const second = await startUpstreamJob(TASK_ID, deps);
      expect(provider.created).toHaveLength(1);
      expect(tasks.recordUpstreamJobCalls).toBe(1);
      expect(second).toEqual(first);
    });

    it('a task cancelled while its job was being created: the new job is cancelled upstream, the slot given back', async () => {
      cancelWhileCreating();
      expect(await startUpstreamJob(TASK_ID, deps)).toMatchObject({ state: 'final' });
      expect(provider.cancels).toEqual([{ jobId: 'job-1', account: 'default' }]);
      expect(await tasks.get(TASK_ID)).toMatchObject({ status: 'refunded' });
      expect((await tasks.get(TASK_ID))?.upstream_job_id).toBeUndefined();
      expect((await tasks.get(TASK_ID))?.upstream_slot).toBeUndefined();
      expect(account()?.in_use).toBe(0);
    });

    // BUG (production): startJob gives the slot back whenever its job was not the one recorded, also when
    // another run's job was recorded and still generates: the account then admits one job too many. Remove
    // `.fails` once fixed (see the report).
    it('another run recorded its job first: ours is cancelled, the slot stays with the live job', async () => {
      const create = provider.createJob.bind(provider);
      provider.createJob = async (request) => {
        const job = await create(request);
        await tasks.recordUpstreamJob(TASK_ID, 'job-other', NOW.toISOString());
        return job;
      };
      expect(await startUpstreamJob(TASK_ID, deps)).toMatchObject({ state: 'started', job_id: 'job-other' });
      expect(provider.cancelled).toEqual(['job-1']);
      expect((await tasks.get(TASK_ID))?.upstream_slot).toBe(SLOT);
      expect(account()?.in_use).toBe(1);
    });

    it('an orphan job that cannot be cancelled is reported, and the step still ends', async () => {
      const failures: unknown[] = [];
      deps.onOrphanJobCancelFailure = (taskId, jobId, error) => failures.push([taskId, jobId, error]);
      provider.cancelError = new Error('upstream down');
      cancelWhileCreating();
      expect(await startUpstreamJob(TASK_ID, deps)).toMatchObject({ state: 'final' });
      expect(failures).toEqual([[TASK_ID, 'job-1', provider.cancelError]]);
      expect(account()?.in_use).toBe(0);
    });

    it('an orphan job already generating is reported (it will bill); one cancelled is not', async () => {
      const failures: unknown[] = [];
      deps.onOrphanJobCancelFailure = (_taskId, _jobId, error) => failures.push((error as Error).message);
      provider.cancelOutcome = { outcome: 'refused', state: 'running' };
      cancelWhileCreating();
      expect(await startUpstreamJob(TASK_ID, deps)).toMatchObject({ state: 'final' });
      expect(failures).toEqual(['upstream job job-1 is running: it could not be cancelled and may be billed']);
    });

    it('reuses a stored upstream_job_id and never calls createJob', async () => {
      use([holding({ status: 'running', upstream_job_id: 'job-stored' })]);
      expect(await startUpstreamJob(TASK_ID, deps)).toMatchObject({ state: 'started', job_id: 'job-stored' });
      expect(provider.created).toEqual([]);
    });

    it.each(['success', 'failed', 'refunded'] as const)('a %s task is left alone', async (status) => {
      use([taskRecord({ status })]);
      expect(await startUpstreamJob(TASK_ID, deps)).toMatchObject({ state: 'final' });
      expect(provider.created).toEqual([]);
    });

    it('a task past its deadline without a job (restarted late) gets none: GenerationTimedOutError', async () => {
      now = new Date(Date.parse(taskRecord().deadline_at) + 1);
      expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBeInstanceOf(GenerationTimedOutError);
      expect(provider.created).toEqual([]);
      use([holding({ status: 'running', upstream_job_id: 'job-9' })]);
      expect(await startUpstreamJob(TASK_ID, deps)).toMatchObject({ state: 'started', job_id: 'job-9' });
    });

    it('a failed create records nothing, so the job is not taken as created', async () => {
      provider.createError = new UpstreamRejectedError('prompt refused');
      expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBeInstanceOf(UpstreamRejectedError);
      expect(tasks.recordUpstreamJobCalls).toBe(0);
      expect((await tasks.get(TASK_ID))?.upstream_job_id).toBeUndefined();
    });

    it('an unknown task → TaskNotFoundError', async () => {
      use([]);
      expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBeInstanceOf(TaskNotFoundError);
    });

    it('a provider without an adapter is an error', async () => {
      use([holding({ upstream_provider: 'nobody' })]);
      expect((await rejection(startUpstreamJob(TASK_ID, deps))).message).toContain('nobody');
    });
  });

  describe('transferVideo', () => {
    it('copies the upstream file to the key AwaitCompletion chose, labelled with the job and the task', async () => {
      expect(videoKeyOf(taskRecord())).toBe(`videos/${ACCOUNT}/${TASK_ID}.mp4`);
      const transfer = new FakeTransfer();
      const input = {
        taskId: TASK_ID,
        jobId: 'cgt-job-1',
        provider: 'ark',
        sourceUrl: 'https://upstream.example.com/v.mp4',
        videoKey: videoKeyOf(taskRecord()),
      };
      const deps = { transfer, producerOf: (provider: string) => `producer-of-${provider}`, propagator: 'op-1' };
      const result = await transferVideo(input, deps);
      const aigc = {
        content_producer: 'producer-of-ark',
        produce_id: 'cgt-job-1',
        content_propagator: 'op-1',
        propagate_id: TASK_ID,
      };
      expect(result).toEqual({ video_key: `videos/${ACCOUNT}/${TASK_ID}.mp4`, bytes: 1_234_567, aigc });
      expect(transfer.copies).toEqual([
        {
          sourceUrl: 'https://upstream.example.com/v.mp4',
          key: `videos/${ACCOUNT}/${TASK_ID}.mp4`,
          label: {
            Label: '1',
            ContentProducer: 'producer-of-ark',
            ProduceID: 'cgt-job-1',
            ReservedCode1: '',
            ContentPropagator: 'op-1',
            PropagateID: TASK_ID,
            ReservedCode2: '',
          },
        },
      ]);
    });
  });

  describe('completeTask', () => {
    const key = `videos/${ACCOUNT}/${TASK_ID}.mp4`;

    it('transferring → success with the signed URL and finished_at', async () => {
      use([taskRecord({ status: 'transferring', upstream_job_id: 'job-1' })]);
      const signer = new FakeSigner();
      expect(await completeTask(TASK_ID, key, null, { tasks, signer, now: () => now })).toEqual({ status: 'success' });
      expect(await tasks.get(TASK_ID)).toMatchObject({
        status: 'success',
        finished_at: NOW.toISOString(),
        video_key: key,
        video_url: `https://videos.example.com/${key}?signed=${NOW.getTime()}`,
        video_url_expires_at: new Date(NOW.getTime() + 24 * HOUR).toISOString(),
      });
    });

    it.each(['success', 'failed', 'refunded', 'pending'] as const)('a %s task is unchanged', async (status) => {
      use([taskRecord({ status })]);
      const result = await completeTask(TASK_ID, key, null, { tasks, signer: new FakeSigner(), now: () => now });
      expect(result).toEqual({ status: 'unchanged' });
      expect((await tasks.get(TASK_ID))?.status).toBe(status);
    });
  });

  describe('failAndRefund', () => {
    const error = { Error: 'UpstreamJobFailedError', Cause: JSON.stringify({ errorMessage: 'content policy' }) };
    const cancelFailures: unknown[] = [];
    const refundDeps = (): RefundDeps => ({
      ...deps,
      onUpstreamCancelFailure: (_taskId: string, _jobId: string, failure: unknown) => cancelFailures.push(failure),
    });
    beforeEach(() => (cancelFailures.length = 0));

    it.each(['pending', 'running'] as const)(
      'a %s task with an upstream job: refunded first, then its job is cancelled, once however often it runs',
      async (status) => {
        use([holding({ status, upstream_job_id: 'job-7' })]);
        const cancelsAtRefund: string[][] = [];
        const refund = tasks.refund.bind(tasks);
        tasks.refund = async (...args) => {
          cancelsAtRefund.push([...provider.cancelled]);
          return refund(...args);
        };
        expect(await failAndRefund(TASK_ID, error, refundDeps())).toEqual({ status: 'failed', refunded: true });
        expect(await failAndRefund(TASK_ID, error, refundDeps())).toMatchObject({ refunded: false });
        expect(cancelsAtRefund).toEqual([[]]);
        // With the key of the account the job was made with.
        expect(provider.cancels).toEqual([{ jobId: 'job-7', account: 'default' }]);
      },
    );

    it('gives the slot back once, and the next waiting task takes it at once', async () => {
      const waiting = taskRecord({ task_id: 'task-next', created_at: '2026-11-21T09:59:30.000Z' });
      use([holding({ status: 'running', upstream_job_id: 'job-7' }), waiting], [{ capacity: 1 }]);
      await waitForSlot('task-next', 'slot-next', deps);
      expect(waker.answers).toEqual([]);
      await failAndRefund(TASK_ID, error, refundDeps());
      await failAndRefund(TASK_ID, error, refundDeps());
      expect((await tasks.get(TASK_ID))?.upstream_slot).toBeUndefined();
      expect((await tasks.get('task-next'))?.upstream_slot).toBe(SLOT);
      expect(waker.answers.map((answer) => answer.token)).toEqual(['slot-next']);
      expect(account()?.in_use).toBe(1);
    });

    it('a task that failed while waiting leaves the waiting room (it takes no slot later)', async () => {
      use([taskRecord()], [{ capacity: 1, in_use: 1 }]);
      await waitForSlot(TASK_ID, 'slot-1', deps);
      expect(capacity.queue.size).toBe(1);
      expect(await failAndRefund(TASK_ID, error, refundDeps())).toEqual({ status: 'failed', refunded: true });
      expect(capacity.queue.size).toBe(0);
    });

    it('a task someone else ended (a cancel won) still gives its slot back here: no refund, no upstream call', async () => {
      use([holding({ status: 'refunded', upstream_job_id: 'job-7' })]);
      expect(await failAndRefund(TASK_ID, error, refundDeps())).toEqual({ status: 'refunded', refunded: false });
      expect(provider.cancelled).toEqual([]);
      expect(tasks.refunds).toEqual([]);
      expect(account()?.in_use).toBe(0);
    });

    it('a transferring task: its job has succeeded upstream, nothing to cancel', async () => {
      use([taskRecord({ status: 'transferring', upstream_job_id: 'job-7' })]);
      expect((await failAndRefund(TASK_ID, error, refundDeps())).refunded).toBe(true);
      expect(provider.cancelled).toEqual([]);
    });

    it('a job already generating (refused) is reported; one failed or gone upstream is not', async () => {
      const outcomes = [
        { outcome: 'refused', state: 'running' },
        { outcome: 'refused', state: 'failed' },
        { outcome: 'not-found' },
      ] as const;
      for (const outcome of outcomes) {
        use([holding({ status: 'running', upstream_job_id: 'job-7' })]);
        provider.cancelOutcome = outcome;
        expect((await failAndRefund(TASK_ID, error, refundDeps())).refunded).toBe(true);
      }
      expect(cancelFailures.map((failure) => (failure as Error).message)).toEqual([
        'upstream job job-7 is running: it could not be cancelled and may be billed',
      ]);
    });

    it('a cancel the upstream refuses is reported; the refund stands', async () => {
      use([holding({ status: 'running', upstream_job_id: 'job-7' })]);
      provider.cancelError = new UpstreamRejectedError('Ark refused to cancel running task job-7');
      expect(await failAndRefund(TASK_ID, error, refundDeps())).toEqual({ status: 'failed', refunded: true });
      expect(cancelFailures).toEqual([provider.cancelError]);
      expect((await tasks.get(TASK_ID))?.status).toBe('failed');
      expect(account()?.in_use).toBe(0);
    });

    it.each(['pending', 'running', 'transferring'] as const)(
      'a %s task fails and is refunded with the customer-facing reason',
      async (status) => {
        use([taskRecord({ status })]);
        expect(await failAndRefund(TASK_ID, error, refundDeps())).toEqual({
          status: 'failed',
          refunded: true,
        });
        expect(tasks.refunds).toEqual([
          { taskId: TASK_ID, to: 'failed', errorMessage: 'generation failed: content policy' },
        ]);
        expect(await tasks.get(TASK_ID)).toMatchObject({
          status: 'failed',
          error_message: 'generation failed: content policy',
        });
      },
    );

    it.each(['success', 'failed', 'refunded'] as const)('a %s task: does nothing', async (status: TaskStatus) => {
      use([taskRecord({ status })]);
      expect(await failAndRefund(TASK_ID, error, refundDeps())).toEqual({ status, refunded: false });
      expect(tasks.refunds).toEqual([]);
      expect((await tasks.get(TASK_ID))?.status).toBe(status);
    });

    it('run twice, it refunds once', async () => {
      await failAndRefund(TASK_ID, error, refundDeps());
      expect(await failAndRefund(TASK_ID, error, refundDeps())).toEqual({
        status: 'failed',
        refunded: false,
      });
      expect(tasks.refunds).toHaveLength(1);
    });

    it('a missing task: nothing to refund', async () => {
      use([]);
      expect(await failAndRefund(TASK_ID, error, refundDeps())).toEqual({
        status: 'missing',
        refunded: false,
      });
    });

    it('an unknown error is stored without internals', async () => {
      await failAndRefund(TASK_ID, { Error: 'TypeError', Cause: 'x is undefined at /var/task' }, refundDeps());
      expect((await tasks.get(TASK_ID))?.error_message).toBe('internal error while processing the task');
    });
  });
});
