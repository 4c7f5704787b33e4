/** The state machine's steps: StartUpstream, PollUpstream, TransferVideo, CompleteTask, FailAndRefund. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { TaskRecord } from '../../../functions/core/task.js';
import type { TaskStatus } from '../../../functions/core/task-status.js';
import {
  ContentModerationError,
  UpstreamAccountError,
  UpstreamBusyError,
  UpstreamConfigurationError,
  UpstreamJobNotFoundError,
  UpstreamRejectedError,
  UpstreamTransientError,
} from '../../../functions/core/upstream-errors.js';
import {
  CANCEL_SETTLE_MS,
  completeTask,
  failAndRefund,
  pollUpstreamJob,
  startUpstreamJob,
  transferVideo,
  pollDeadline,
  UPSTREAM_EXPIRY_GRACE_MS,
  upstreamExpirySeconds,
  videoKeyOf,
} from '../../../functions/core/use-cases/lifecycle-steps.js';
import type { LifecycleDeps } from '../../../functions/core/use-cases/lifecycle-steps.js';
import { HEARTBEAT_MS } from '../../../functions/core/use-cases/lifecycle-steps.js';
import {
  GenerationInProgressError,
  GenerationTimedOutError,
  TaskNotFoundError,
  UpstreamJobFailedError,
  WaitingForUpstreamError,
} from '../../../functions/core/workflow-errors.js';
import { ACCOUNT, TASK_ID, taskRecord } from '../../support/task-records.js';
import { FakeProvider, FakeSigner, FakeTransfer, HOUR, InMemoryTasks, NOW } from '../fakes.js';
import { rejection } from '../support.js';

describe('lifecycle steps', () => {
  let tasks: InMemoryTasks;
  let provider: FakeProvider;
  let now: Date;
  let deps: LifecycleDeps;

  const use = (...records: TaskRecord[]) => {
    tasks = new InMemoryTasks(...records);
    deps = { tasks, providers: { ark: provider }, now: () => now };
  };

  beforeEach(() => {
    provider = new FakeProvider();
    now = NOW;
    use(taskRecord());
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

    it('creates the upstream job from the stored generation and records it (pending → running)', async () => {
      use(taskRecord({ generation: { ...taskRecord().generation, seed: 42 } }));
      const progress = await startUpstreamJob(TASK_ID, deps);
      expect(progress).toEqual({ state: 'started', job_id: 'job-1' });
      expect(provider.created).toEqual([
        {
          upstreamModel: 'seedance-1-5-pro',
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
        },
      ]);
      expect(await tasks.get(TASK_ID)).toMatchObject({
        status: 'running',
        upstream_job_id: 'job-1',
        // When Ark expires the job unfinished: the poll loop waits for it until then.
        upstream_expires_at: new Date(NOW.getTime() + HOUR).toISOString(),
      });
    });

    it('gives the job what is left of the deadline, within Ark’s 3600…259200 s', async () => {
      use(taskRecord({ deadline_at: new Date(NOW.getTime() + 6 * HOUR).toISOString() }));
      await startUpstreamJob(TASK_ID, deps);
      expect(provider.created[0]?.expiresAfterSeconds).toBe(6 * 3600);
      expect(upstreamExpirySeconds(new Date(NOW.getTime() + 1500).toISOString(), NOW)).toBe(3600);
      expect(upstreamExpirySeconds(new Date(NOW.getTime() + 2 * HOUR + 1).toISOString(), NOW)).toBe(7201);
      expect(upstreamExpirySeconds(new Date(NOW.getTime() + 100 * HOUR).toISOString(), NOW)).toBe(259_200);
    });

    it.each([
      ['429 (busy: rate limit, 120 unfinished tasks)', new UpstreamBusyError('QuotaExceeded')],
      ['401/403 (key or account: alarmed)', new UpstreamAccountError('AccountOverdueError')],
    ])('an upstream refusing with %s → WaitingForUpstreamError: the task waits, nothing refunded', async (_, error) => {
      provider.createError = error;
      const thrown = await rejection(startUpstreamJob(TASK_ID, deps));
      expect(thrown).toBeInstanceOf(WaitingForUpstreamError);
      expect(thrown.name).toBe('WaitingForUpstreamError');
      expect(thrown.message).toContain(error.message);
      expect(tasks.recordUpstreamJobCalls).toBe(0);
      expect(tasks.refunds).toEqual([]);
      // Marked alive for the reconciler while it waits.
      expect(await tasks.get(TASK_ID)).toMatchObject({ status: 'pending', updated_at: NOW.toISOString() });
      // Once the upstream has room, the same task starts.
      provider.createError = undefined;
      expect(await startUpstreamJob(TASK_ID, deps)).toEqual({ state: 'started', job_id: 'job-1' });
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
    ])('%s is not a wait: it reaches the state machine as it is', async (error) => {
      provider.createError = error;
      expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBe(error);
    });

    it('sends no seed when none was asked', async () => {
      await startUpstreamJob(TASK_ID, deps);
      expect('seed' in (provider.created[0] as object)).toBe(false);
    });

    it('run twice, it creates the job once and returns the same job id', async () => {
      const first = await startUpstreamJob(TASK_ID, deps);
      const second = await startUpstreamJob(TASK_ID, deps);
      expect(provider.created).toHaveLength(1);
      expect(tasks.recordUpstreamJobCalls).toBe(1);
      expect(second).toEqual(first);
    });

    it('a task cancelled while its job was being created: the new job is cancelled upstream, the task stays final', async () => {
      cancelWhileCreating();
      expect(await startUpstreamJob(TASK_ID, deps)).toEqual({ state: 'final' });
      expect(provider.cancelled).toEqual(['job-1']);
      expect(await tasks.get(TASK_ID)).toMatchObject({ status: 'refunded' });
      expect((await tasks.get(TASK_ID))?.upstream_job_id).toBeUndefined();
    });

    it('an orphan job that cannot be cancelled is reported, and the step still ends', async () => {
      const failures: unknown[] = [];
      deps.onOrphanJobCancelFailure = (taskId, jobId, error) => failures.push([taskId, jobId, error]);
      provider.cancelError = new Error('upstream down');
      cancelWhileCreating();
      expect(await startUpstreamJob(TASK_ID, deps)).toEqual({ state: 'final' });
      expect(failures).toEqual([[TASK_ID, 'job-1', provider.cancelError]]);
    });

    it('an orphan job already generating is reported (it will bill); one cancelled is not', async () => {
      const failures: unknown[] = [];
      deps.onOrphanJobCancelFailure = (_taskId, _jobId, error) => failures.push((error as Error).message);
      provider.cancelOutcome = { outcome: 'refused', state: 'running' };
      cancelWhileCreating();
      expect(await startUpstreamJob(TASK_ID, deps)).toEqual({ state: 'final' });
      expect(failures).toEqual(['upstream job job-1 is running: it could not be cancelled and may be billed']);
    });

    it('reuses a stored upstream_job_id and never calls createJob', async () => {
      use(taskRecord({ status: 'running', upstream_job_id: 'job-stored' }));
      expect(await startUpstreamJob(TASK_ID, deps)).toEqual({ state: 'started', job_id: 'job-stored' });
      expect(provider.created).toEqual([]);
    });

    it.each(['success', 'failed', 'refunded'] as const)('a %s task is left alone', async (status) => {
      use(taskRecord({ status }));
      expect(await startUpstreamJob(TASK_ID, deps)).toEqual({ state: 'final' });
      expect(provider.created).toEqual([]);
    });

    it('a task past its deadline without a job (restarted late) gets none: GenerationTimedOutError', async () => {
      now = new Date(Date.parse(taskRecord().deadline_at) + 1);
      expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBeInstanceOf(GenerationTimedOutError);
      expect(provider.created).toEqual([]);
      use(taskRecord({ status: 'running', upstream_job_id: 'job-9' }));
      expect(await startUpstreamJob(TASK_ID, deps)).toEqual({ state: 'started', job_id: 'job-9' });
    });

    it('a failed create records nothing, so the job is not taken as created', async () => {
      provider.createError = new UpstreamRejectedError('prompt refused');
      expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBeInstanceOf(UpstreamRejectedError);
      expect(tasks.recordUpstreamJobCalls).toBe(0);
      expect((await tasks.get(TASK_ID))?.upstream_job_id).toBeUndefined();
    });

    it('an unknown task → TaskNotFoundError', async () => {
      use();
      expect(await rejection(startUpstreamJob(TASK_ID, deps))).toBeInstanceOf(TaskNotFoundError);
    });

    it('a provider without an adapter is an error', async () => {
      use(taskRecord({ upstream_provider: 'nobody' }));
      expect((await rejection(startUpstreamJob(TASK_ID, deps))).message).toContain('nobody');
    });
  });

  describe('pollUpstreamJob', () => {
    beforeEach(() => use(taskRecord({ status: 'running', upstream_job_id: 'job-1' })));

    it.each([{ state: 'queued' } as const, { state: 'running' } as const])(
      '%j → GenerationInProgressError, which the state retries as its poll loop',
      async (status) => {
        provider.status = status;
        const error = await rejection(pollUpstreamJob(TASK_ID, deps));
        expect(error).toBeInstanceOf(GenerationInProgressError);
        expect(error.name).toBe('GenerationInProgressError');
        expect(provider.polled).toEqual(['job-1']);
        expect((await tasks.get(TASK_ID))?.status).toBe('running');
      },
    );

    it('an upstream briefly unavailable → GenerationInProgressError: polled again, not failed', async () => {
      provider.getError = new UpstreamTransientError('503 Service Unavailable');
      const error = await rejection(pollUpstreamJob(TASK_ID, deps));
      expect(error).toBeInstanceOf(GenerationInProgressError);
      expect(error.message).toContain('503 Service Unavailable');
      expect((await tasks.get(TASK_ID))?.status).toBe('running');
    });

    it('still generating: marks the task alive (updated_at) for the reconciler, at most every HEARTBEAT_MS', async () => {
      use(taskRecord({ status: 'running', upstream_job_id: 'job-1', updated_at: '2026-11-21T09:59:00.000Z' }));
      await rejection(pollUpstreamJob(TASK_ID, deps));
      expect(await tasks.get(TASK_ID)).toMatchObject({ status: 'running', updated_at: NOW.toISOString() });
      // The next poll within the interval writes nothing.
      now = new Date(NOW.getTime() + HEARTBEAT_MS - 1);
      await rejection(pollUpstreamJob(TASK_ID, deps));
      expect(tasks.touched).toEqual([TASK_ID]);
      now = new Date(NOW.getTime() + HEARTBEAT_MS);
      provider.getError = new UpstreamTransientError('503 Service Unavailable');
      await rejection(pollUpstreamJob(TASK_ID, deps));
      expect(tasks.touched).toEqual([TASK_ID, TASK_ID]);
    });

    it('a mark that fails (DynamoDB throttled) does not fail the poll: the loop goes on', async () => {
      tasks.touch = async () => {
        throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      };
      expect(await rejection(pollUpstreamJob(TASK_ID, deps))).toBeInstanceOf(GenerationInProgressError);
    });

    it.each([new UpstreamBusyError('429 QuotaExceeded'), new UpstreamAccountError('401 AuthenticationError')])(
      'an upstream refusing the poll (%s) → polled again: the job goes on upstream',
      async (error) => {
        provider.getError = error;
        const thrown = await rejection(pollUpstreamJob(TASK_ID, deps));
        expect(thrown).toBeInstanceOf(GenerationInProgressError);
        expect(thrown.message).toContain(error.message);
      },
    );

    it('any other upstream error is not taken for a pause', async () => {
      provider.getError = new UpstreamJobNotFoundError('gone');
      expect(await rejection(pollUpstreamJob(TASK_ID, deps))).toBeInstanceOf(UpstreamJobNotFoundError);
    });

    it('succeeded → the task moves to transferring, and the step returns the upstream video URL', async () => {
      provider.status = { state: 'succeeded', videoUrl: 'https://upstream.example.com/v.mp4' };
      expect(await pollUpstreamJob(TASK_ID, deps)).toEqual({
        state: 'succeeded',
        job_id: 'job-1',
        video_url: 'https://upstream.example.com/v.mp4',
        video_key: `videos/${ACCOUNT}/${TASK_ID}.mp4`,
      });
      expect(await tasks.get(TASK_ID)).toMatchObject({ status: 'transferring', updated_at: NOW.toISOString() });
    });

    it('succeeded, and a status query already made the task transferring → still succeeded', async () => {
      use(taskRecord({ status: 'transferring', upstream_job_id: 'job-1' }));
      provider.status = { state: 'succeeded', videoUrl: 'https://upstream.example.com/v.mp4' };
      expect((await pollUpstreamJob(TASK_ID, deps)).state).toBe('succeeded');
    });

    it('succeeded, but a cancel made the task final between the read and the move → final', async () => {
      provider.status = { state: 'succeeded', videoUrl: 'https://upstream.example.com/v.mp4' };
      const cancelFirst = {
        ...tasks,
        get: tasks.get.bind(tasks),
        moveTo: async (...args: Parameters<InMemoryTasks['moveTo']>) => {
          await tasks.refund((await tasks.get(TASK_ID)) as TaskRecord, 'refunded', '', NOW.toISOString());
          return tasks.moveTo(...args);
        },
      } as unknown as InMemoryTasks;
      expect(await pollUpstreamJob(TASK_ID, { ...deps, tasks: cancelFirst })).toEqual({ state: 'final' });
      expect((await tasks.get(TASK_ID))?.status).toBe('refunded');
    });

    it('a task without an upstream job id → TaskNotFoundError (StartUpstream always stores one first)', async () => {
      use(taskRecord({ status: 'pending' }));
      expect(await rejection(pollUpstreamJob(TASK_ID, deps))).toBeInstanceOf(TaskNotFoundError);
    });

    it('failed → UpstreamJobFailedError with the upstream message', async () => {
      provider.status = { state: 'failed', message: 'content policy violation' };
      const error = await rejection(pollUpstreamJob(TASK_ID, deps));
      expect(error).toBeInstanceOf(UpstreamJobFailedError);
      expect(error.message).toBe('content policy violation');
    });

    it('output moderation → ContentModerationError: the reason says what to change', async () => {
      provider.status = {
        state: 'failed',
        message: 'The request failed because the output video may contain sensitive information.',
        cause: { kind: 'moderation', content: 'output', concern: 'sensitive' },
      };
      const error = await rejection(pollUpstreamJob(TASK_ID, deps));
      expect(error).toBeInstanceOf(ContentModerationError);
      expect(error.message).toBe(
        "the upstream's content moderation refused the generated video: it may contain sensitive content; change " +
          'the prompt or the references and submit again (upstream: The request failed because the output video ' +
          'may contain sensitive information.)',
      );
    });

    it('expired upstream → GenerationTimedOutError', async () => {
      provider.status = { state: 'failed', message: 'expired', cause: { kind: 'expired' } };
      const error = await rejection(pollUpstreamJob(TASK_ID, deps));
      expect(error).toBeInstanceOf(GenerationTimedOutError);
      expect(error.message).toBe('the upstream gave up on the job before it finished');
    });

    it('cancelled upstream → UpstreamJobFailedError', async () => {
      provider.status = { state: 'cancelled' };
      const error = await rejection(pollUpstreamJob(TASK_ID, deps));
      expect(error).toBeInstanceOf(UpstreamJobFailedError);
      expect(error.message).toBe('the generator cancelled the task');
    });

    it('cancelled upstream moments ago (a customer’s cancel refunding) → polled again, then failed if still live', async () => {
      provider.status = {
        state: 'cancelled',
        cancelledAt: new Date(NOW.getTime() - CANCEL_SETTLE_MS + 1).toISOString(),
      };
      expect(await rejection(pollUpstreamJob(TASK_ID, deps))).toBeInstanceOf(GenerationInProgressError);
      provider.status = { state: 'cancelled', cancelledAt: new Date(NOW.getTime() - CANCEL_SETTLE_MS).toISOString() };
      expect(await rejection(pollUpstreamJob(TASK_ID, deps))).toBeInstanceOf(UpstreamJobFailedError);
    });

    it('after the deadline → GenerationTimedOutError, without asking the upstream', async () => {
      now = new Date(Date.parse(taskRecord().deadline_at) + 1);
      const error = await rejection(pollUpstreamJob(TASK_ID, deps));
      expect(error).toBeInstanceOf(GenerationTimedOutError);
      expect(error.message).toContain(taskRecord().deadline_at);
      expect(provider.polled).toEqual([]);
    });

    it('a job that Ark keeps past the deadline (its minimum hour) is polled until it expires there', async () => {
      const expiresAt = new Date(Date.parse(taskRecord().deadline_at) + 20 * 60_000).toISOString();
      use(taskRecord({ status: 'running', upstream_job_id: 'job-1', upstream_expires_at: expiresAt }));
      // After our deadline Ark may still finish it, and bill it: no refund yet, the video is still to come.
      now = new Date(Date.parse(taskRecord().deadline_at) + 10 * 60_000);
      expect(await rejection(pollUpstreamJob(TASK_ID, deps))).toBeInstanceOf(GenerationInProgressError);
      provider.status = { state: 'succeeded', videoUrl: 'https://cdn.example.com/late.mp4' };
      expect(await pollUpstreamJob(TASK_ID, deps)).toMatchObject({ state: 'succeeded', job_id: 'job-1' });
      // Past Ark's expiry (and a little slack for it to say so): timed out, refunded as usual.
      use(taskRecord({ status: 'running', upstream_job_id: 'job-1', upstream_expires_at: expiresAt }));
      now = new Date(Date.parse(expiresAt) + UPSTREAM_EXPIRY_GRACE_MS + 1);
      expect(await rejection(pollUpstreamJob(TASK_ID, deps))).toBeInstanceOf(GenerationTimedOutError);
      expect(pollDeadline(taskRecord({ upstream_expires_at: expiresAt }))).toBe(
        Date.parse(expiresAt) + UPSTREAM_EXPIRY_GRACE_MS,
      );
      // An expiry before the deadline changes nothing.
      expect(pollDeadline(taskRecord({ upstream_expires_at: NOW.toISOString() }))).toBe(
        Date.parse(taskRecord().deadline_at),
      );
    });

    it('at the deadline itself the upstream is still asked', async () => {
      now = new Date(taskRecord().deadline_at);
      expect(await rejection(pollUpstreamJob(TASK_ID, deps))).toBeInstanceOf(GenerationInProgressError);
      expect(provider.polled).toEqual(['job-1']);
    });

    it.each(['success', 'failed', 'refunded'] as const)('a %s task → final, upstream not asked', async (status) => {
      use(taskRecord({ status, upstream_job_id: 'job-1' }));
      expect(await pollUpstreamJob(TASK_ID, deps)).toEqual({ state: 'final' });
      expect(provider.polled).toEqual([]);
    });
  });

  describe('transferVideo', () => {
    it('copies the upstream file to the key PollUpstream chose: videos/<account>/<task>.mp4', async () => {
      expect(videoKeyOf(taskRecord())).toBe(`videos/${ACCOUNT}/${TASK_ID}.mp4`);
      const transfer = new FakeTransfer();
      const result = await transferVideo('https://upstream.example.com/v.mp4', videoKeyOf(taskRecord()), { transfer });
      expect(result).toEqual({ video_key: `videos/${ACCOUNT}/${TASK_ID}.mp4`, bytes: 1_234_567 });
      expect(transfer.copies).toEqual([
        { sourceUrl: 'https://upstream.example.com/v.mp4', key: `videos/${ACCOUNT}/${TASK_ID}.mp4` },
      ]);
    });
  });

  describe('completeTask', () => {
    const key = `videos/${ACCOUNT}/${TASK_ID}.mp4`;

    it('transferring → success with the signed URL and finished_at', async () => {
      use(taskRecord({ status: 'transferring', upstream_job_id: 'job-1' }));
      const signer = new FakeSigner();
      expect(await completeTask(TASK_ID, key, { tasks, signer, now: () => now })).toEqual({ status: 'success' });
      expect(await tasks.get(TASK_ID)).toMatchObject({
        status: 'success',
        finished_at: NOW.toISOString(),
        video_key: key,
        video_url: `https://videos.example.com/${key}?signed=${NOW.getTime()}`,
        video_url_expires_at: new Date(NOW.getTime() + 24 * HOUR).toISOString(),
      });
    });

    it.each(['success', 'failed', 'refunded', 'pending'] as const)('a %s task is unchanged', async (status) => {
      use(taskRecord({ status }));
      const result = await completeTask(TASK_ID, key, { tasks, signer: new FakeSigner(), now: () => now });
      expect(result).toEqual({ status: 'unchanged' });
      expect((await tasks.get(TASK_ID))?.status).toBe(status);
    });
  });

  describe('failAndRefund', () => {
    const error = { Error: 'UpstreamJobFailedError', Cause: JSON.stringify({ errorMessage: 'content policy' }) };
    const cancelFailures: unknown[] = [];
    const refundDeps = () => ({
      tasks,
      providers: { ark: provider },
      now: () => now,
      onUpstreamCancelFailure: (_taskId: string, _jobId: string, failure: unknown) => cancelFailures.push(failure),
    });
    beforeEach(() => (cancelFailures.length = 0));

    it.each(['pending', 'running'] as const)(
      'a %s task with an upstream job: refunded first, then its job is cancelled, once however often it runs',
      async (status) => {
        use(taskRecord({ status, upstream_job_id: 'job-7' }));
        const cancelsAtRefund: string[][] = [];
        const refund = tasks.refund.bind(tasks);
        tasks.refund = async (...args) => {
          cancelsAtRefund.push([...provider.cancelled]);
          return refund(...args);
        };
        expect(await failAndRefund(TASK_ID, error, refundDeps())).toEqual({ status: 'failed', refunded: true });
        expect(await failAndRefund(TASK_ID, error, refundDeps())).toMatchObject({ refunded: false });
        expect(cancelsAtRefund).toEqual([[]]);
        expect(provider.cancelled).toEqual(['job-7']);
      },
    );

    it('a transferring task: its job has succeeded upstream, nothing to cancel', async () => {
      use(taskRecord({ status: 'transferring', upstream_job_id: 'job-7' }));
      expect((await failAndRefund(TASK_ID, error, refundDeps())).refunded).toBe(true);
      expect(provider.cancelled).toEqual([]);
    });

    it('a task already final (a cancel won): no refund and no upstream call', async () => {
      use(taskRecord({ status: 'refunded', upstream_job_id: 'job-7' }));
      expect((await failAndRefund(TASK_ID, error, refundDeps())).refunded).toBe(false);
      expect(provider.cancelled).toEqual([]);
    });

    it('a job already generating (refused) is reported; one failed or gone upstream is not', async () => {
      const outcomes = [
        { outcome: 'refused', state: 'running' },
        { outcome: 'refused', state: 'failed' },
        { outcome: 'not-found' },
      ] as const;
      for (const outcome of outcomes) {
        use(taskRecord({ status: 'running', upstream_job_id: 'job-7' }));
        provider.cancelOutcome = outcome;
        expect((await failAndRefund(TASK_ID, error, refundDeps())).refunded).toBe(true);
      }
      expect(cancelFailures.map((failure) => (failure as Error).message)).toEqual([
        'upstream job job-7 is running: it could not be cancelled and may be billed',
      ]);
    });

    it('a cancel the upstream refuses is reported; the refund stands', async () => {
      use(taskRecord({ status: 'running', upstream_job_id: 'job-7' }));
      provider.cancelError = new UpstreamRejectedError('Ark refused to cancel running task job-7');
      expect(await failAndRefund(TASK_ID, error, refundDeps())).toEqual({ status: 'failed', refunded: true });
      expect(cancelFailures).toEqual([provider.cancelError]);
      expect((await tasks.get(TASK_ID))?.status).toBe('failed');
    });

    it.each(['pending', 'running', 'transferring'] as const)(
      'a %s task fails and is refunded with the customer-facing reason',
      async (status) => {
        use(taskRecord({ status }));
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
      use(taskRecord({ status }));
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
      use();
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
