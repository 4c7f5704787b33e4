/** The use cases of functions/core/use-cases, driven through small in-memory fakes of their ports. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../../functions/core/api-error.js';
import {
  AuthenticationError,
  ForbiddenError,
  InsufficientBalanceError,
  InvalidRequestError,
  NotFoundError,
  RateLimitedError,
} from '../../functions/core/api-error.js';
import { hashApiKey } from '../../functions/core/api-key.js';
import type { ApiKeyRecord } from '../../functions/core/ports/accounts.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { TRANSFERRING_MESSAGE } from '../../functions/core/task.js';
import type { TaskStatus } from '../../functions/core/task-status.js';
import {
  UpstreamJobNotFoundError,
  UpstreamOutcomeUnknownError,
  UpstreamRejectedError,
  UpstreamTransientError,
} from '../../functions/core/upstream-errors.js';
import { authenticate } from '../../functions/core/use-cases/authenticate.js';
import { CANCELLED_MESSAGE, cancelTask } from '../../functions/core/use-cases/cancel-task.js';
import type { Caller } from '../../functions/core/use-cases/authenticate.js';
import { getBalance } from '../../functions/core/use-cases/get-balance.js';
import { getTask } from '../../functions/core/use-cases/get-task.js';
import {
  completeTask,
  failAndRefund,
  pollUpstreamJob,
  startUpstreamJob,
  transferVideo,
  videoKeyOf,
} from '../../functions/core/use-cases/lifecycle-steps.js';
import type { LifecycleDeps } from '../../functions/core/use-cases/lifecycle-steps.js';
import { listModels } from '../../functions/core/use-cases/list-models.js';
import { submitTask } from '../../functions/core/use-cases/submit-task.js';
import type { SubmitTaskDeps } from '../../functions/core/use-cases/submit-task.js';
import {
  describeFailure,
  GenerationInProgressError,
  GenerationTimedOutError,
  TaskNotFoundError,
  UpstreamJobFailedError,
  VideoDownloadInterruptedError,
  VideoRejectedError,
} from '../../functions/core/workflow-errors.js';
import {
  ACCOUNT,
  FakeLimiter,
  FakeProvider,
  FakeSigner,
  FakeTransfer,
  FakeWorkflow,
  InMemoryAccounts,
  InMemoryCatalog,
  InMemoryKeys,
  InMemoryTasks,
  NOW,
  OTHER_ACCOUNT,
  TASK_ID,
  taskRecord,
} from './fakes.js';
import { catalogModel, catalogRecords, LITE, PRO, ULTRA } from './support.js';
import { toVideoModel } from '../../functions/core/video-model.js';

const CALLER: Caller = { accountId: ACCOUNT, keyHash: 'key-hash-1', keyHasQuota: false };
const HOUR = 3600 * 1000;

/** Awaits `promise` and returns what it rejected with (failing the test if it resolved). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('authenticate', () => {
  const KEY = `bc_${'A1b2_C3d4-'.repeat(4)}`;
  const DISABLED = `bc_${'z'.repeat(43)}`;
  const UNKNOWN = `bc_${'q'.repeat(43)}`;

  function keyRecord(key: string, fields: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
    return {
      key_hash: hashApiKey(key),
      key_id: `id-${key.slice(3, 8)}`,
      account_id: ACCOUNT,
      status: 'active',
      spent_units: 0,
      created_at: '2026-11-01T00:00:00.000Z',
      ...fields,
    };
  }

  let keys: InMemoryKeys;
  let limiter: FakeLimiter;
  const run = (authorization: string | undefined) =>
    authenticate(authorization, { keys, limiter, defaultRatePerSecond: 10 });

  beforeEach(() => {
    keys = new InMemoryKeys([keyRecord(KEY), keyRecord(DISABLED, { status: 'disabled' })]);
    limiter = new FakeLimiter();
  });

  it('returns the caller: account, key hash and whether the key has a quota', async () => {
    await expect(run(`Bearer ${KEY}`)).resolves.toEqual({
      accountId: ACCOUNT,
      keyHash: hashApiKey(KEY),
      keyHasQuota: false,
    });
  });

  it('a key with a quota is marked so', async () => {
    keys = new InMemoryKeys([keyRecord(KEY, { quota_units: 100_000, quota_remaining_units: 50_000 })]);
    expect((await run(`Bearer ${KEY}`)).keyHasQuota).toBe(true);
  });

  it('looks the key up by its SHA-256 hash, never by the plaintext', async () => {
    await run(`Bearer ${KEY}`);
    expect(keys.lookups).toEqual([hashApiKey(KEY)]);
    expect(keys.lookups[0]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('may use a recent copy of the key, unless the route asks for the stored one', async () => {
    await run(`Bearer ${KEY}`);
    expect(keys.freshLookups).toEqual([]);
    await authenticate(`Bearer ${KEY}`, { keys, limiter, defaultRatePerSecond: 10 }, { freshKey: true });
    expect(keys.freshLookups).toEqual([hashApiKey(KEY)]);
  });

  it.each([`bearer ${KEY}`, `BEARER ${KEY}`, `Bearer   ${KEY}  `])('accepts the scheme spelled %j', async (header) => {
    expect((await run(header)).accountId).toBe(ACCOUNT);
  });

  const failures: [string, string | undefined, string][] = [
    ['missing header', undefined, 'missing API key: send Authorization: Bearer bc_…'],
    ['empty header', '', 'missing API key: send Authorization: Bearer bc_…'],
    ['no scheme', KEY, 'Authorization header must be "Bearer <API key>"'],
    ['Basic scheme', `Basic ${KEY}`, 'Authorization header must be "Bearer <API key>"'],
    ['Bearer without a key', 'Bearer', 'Authorization header must be "Bearer <API key>"'],
    ['two tokens', `Bearer ${KEY} extra`, 'Authorization header must be "Bearer <API key>"'],
    ['not a bc_ key', `Bearer sk_${'a'.repeat(40)}`, 'invalid API key: keys begin with bc_'],
    ['a bc_ key too short', 'Bearer bc_short', 'invalid API key: keys begin with bc_'],
    ['a bc_ key with bad characters', `Bearer bc_${'a'.repeat(20)}!`, 'invalid API key: keys begin with bc_'],
    ['an unknown key', `Bearer ${UNKNOWN}`, 'invalid API key'],
    ['a disabled key', `Bearer ${DISABLED}`, 'API key is disabled'],
  ];

  it.each(failures)('%s → 401', async (_label, header, message) => {
    const error = await rejection(run(header));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as ApiError).code).toBe(401);
    expect(error.message).toBe(message);
  });

  it('the five causes have distinct messages', () => {
    expect(new Set(failures.map(([, , message]) => message)).size).toBe(5);
  });

  it('a malformed header never reaches the storage (no key lookup, no counter)', async () => {
    for (const header of [undefined, 'Basic abc', 'Bearer sk_not_ours']) await rejection(run(header));
    expect(limiter.calls).toEqual([]);
  });

  it('an unknown or disabled key is not counted against any limit', async () => {
    for (const key of [UNKNOWN, DISABLED]) await rejection(run(`Bearer ${key}`));
    expect(limiter.calls).toEqual([]);
  });

  it('rate limited → RateLimitedError (429) with the seconds to wait', async () => {
    limiter.counts.set(hashApiKey(KEY), 10);
    limiter.retryAfterSeconds = 7;
    const error = await rejection(run(`Bearer ${KEY}`));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).code).toBe(429);
    expect((error as RateLimitedError).retryAfterSeconds).toBe(7);
  });

  it("limits by key hash at the key's own rate, or the service default", async () => {
    const FAST = `bc_${'f'.repeat(43)}`;
    keys = new InMemoryKeys([keyRecord(KEY), keyRecord(FAST, { rate_per_second: 50 })]);
    for (let i = 0; i < 10; i += 1) await run(`Bearer ${KEY}`);
    await expect(run(`Bearer ${KEY}`)).rejects.toBeInstanceOf(RateLimitedError);
    for (let i = 0; i < 50; i += 1) await run(`Bearer ${FAST}`);
    await expect(run(`Bearer ${FAST}`)).rejects.toBeInstanceOf(RateLimitedError);
    expect(limiter.calls[0]).toEqual({ subject: hashApiKey(KEY), limit: 10 });
    expect(limiter.calls.at(-1)).toEqual({ subject: hashApiKey(FAST), limit: 50 });
  });
});

describe('getTask', () => {
  let tasks: InMemoryTasks;
  let signer: FakeSigner;
  let provider: FakeProvider;
  let upstreamErrors: [TaskRecord, unknown][];
  let now: Date;
  const run = (taskId: string | undefined, caller: Caller = CALLER) =>
    getTask(caller, taskId, {
      tasks,
      signer,
      providers: { ark: provider },
      now: () => now,
      onUpstreamError: (task, error) => upstreamErrors.push([task, error]),
    });

  const successTask = (fields: Partial<TaskRecord> = {}) =>
    taskRecord({
      status: 'success',
      finished_at: '2026-11-21T09:00:00.000Z',
      video_key: `videos/${ACCOUNT}/${TASK_ID}.mp4`,
      video_url: 'https://videos.example.com/old',
      video_url_expires_at: new Date(NOW.getTime() + 2 * HOUR).toISOString(),
      ...fields,
    });

  beforeEach(() => {
    tasks = new InMemoryTasks(taskRecord());
    signer = new FakeSigner();
    provider = new FakeProvider();
    upstreamErrors = [];
    now = NOW;
  });

  it.each([undefined, '', 'abc', '123', `${TASK_ID}x`, TASK_ID.replaceAll('-', '')])(
    'a malformed id (%j) → 400',
    async (taskId) => {
      const error = await rejection(run(taskId));
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error.message).toBe('task id must be a UUID');
    },
  );

  it('an unknown task → 404', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const error = await rejection(run(unknown));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as ApiError).code).toBe(404);
    expect(error.message).toContain(unknown);
  });

  it("another account's task → 403", async () => {
    const error = await rejection(run(TASK_ID, { ...CALLER, accountId: OTHER_ACCOUNT }));
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ApiError).code).toBe(403);
  });

  it('an upper-case id finds the task', async () => {
    expect((await run(TASK_ID.toUpperCase())).view.task_id).toBe(TASK_ID);
  });

  it('a pending task: message success, the view', async () => {
    const result = await run(TASK_ID);
    expect(result.message).toBe('success');
    expect(result.view).toMatchObject({ task_id: TASK_ID, status: 'pending', cost: 4.2, video_url: null });
  });

  it('a transferring task: the query-again message, video_url and finished_at null', async () => {
    tasks = new InMemoryTasks(taskRecord({ status: 'transferring' }));
    const result = await run(TASK_ID);
    expect(result.message).toBe(TRANSFERRING_MESSAGE);
    expect(result.view.video_url).toBeNull();
    expect(result.view.finished_at).toBeNull();
    expect(signer.calls).toEqual([]);
  });

  it('a success with a URL valid for hours: returned as stored, not re-signed', async () => {
    tasks = new InMemoryTasks(successTask());
    const result = await run(TASK_ID);
    expect(result.view.video_url).toBe('https://videos.example.com/old');
    expect(signer.calls).toEqual([]);
    expect(tasks.savedUrls).toEqual([]);
  });

  it.each([
    ['expired an hour ago', -HOUR],
    ['expiring within the 10-minute margin', 5 * 60 * 1000],
  ])('a success whose URL is %s: re-signed, saved and returned', async (_label, offset) => {
    tasks = new InMemoryTasks(successTask({ video_url_expires_at: new Date(NOW.getTime() + offset).toISOString() }));
    const result = await run(TASK_ID);
    const expected = `https://videos.example.com/videos/${ACCOUNT}/${TASK_ID}.mp4?signed=${NOW.getTime()}`;
    const expiresAt = new Date(NOW.getTime() + 24 * HOUR).toISOString();
    expect(signer.calls).toEqual([{ key: `videos/${ACCOUNT}/${TASK_ID}.mp4`, now: NOW }]);
    expect(tasks.savedUrls).toEqual([{ taskId: TASK_ID, url: expected, expiresAt }]);
    expect(result.view).toMatchObject({ video_url: expected, result_url: expected, video_url_expires_at: expiresAt });
    expect((await tasks.get(TASK_ID))?.video_url).toBe(expected);
  });

  it('a success with a video but no URL stored yet: signed', async () => {
    tasks = new InMemoryTasks(successTask({ video_url: undefined, video_url_expires_at: undefined }));
    expect((await run(TASK_ID)).view.video_url).toContain('signed=');
    expect(signer.calls).toHaveLength(1);
  });

  it('a re-signed URL is then fresh: the next query does not sign again', async () => {
    tasks = new InMemoryTasks(successTask({ video_url_expires_at: new Date(NOW.getTime() - HOUR).toISOString() }));
    await run(TASK_ID);
    now = new Date(NOW.getTime() + HOUR);
    await run(TASK_ID);
    expect(signer.calls).toHaveLength(1);
  });
  describe('an in-progress task asks the upstream first (DESIGN §3 row 22)', () => {
    const withJob = (status: TaskStatus) => taskRecord({ status, upstream_job_id: 'job-7' });

    it('pending, upstream running → recorded as running', async () => {
      tasks = new InMemoryTasks(withJob('pending'));
      provider.status = { state: 'running' };
      expect((await run(TASK_ID)).view.status).toBe('running');
      expect((await tasks.get(TASK_ID))?.status).toBe('running');
      expect(provider.polled).toEqual(['job-7']);
    });

    it('running, upstream still queued → stays running (never backwards)', async () => {
      tasks = new InMemoryTasks(withJob('running'));
      provider.status = { state: 'queued' };
      expect((await run(TASK_ID)).view.status).toBe('running');
      expect((await tasks.get(TASK_ID))?.status).toBe('running');
    });

    it.each(['pending', 'running'] as const)('%s, upstream succeeded → transferring, query again', async (status) => {
      tasks = new InMemoryTasks(withJob(status));
      provider.status = { state: 'succeeded', videoUrl: 'https://upstream.example.com/v.mp4' };
      const result = await run(TASK_ID);
      expect(result.message).toBe(TRANSFERRING_MESSAGE);
      expect(result.view).toMatchObject({ status: 'transferring', video_url: null, finished_at: null });
    });

    it('running, upstream failed → failed and refunded once, with the reason', async () => {
      tasks = new InMemoryTasks(withJob('running'));
      provider.status = { state: 'failed', message: 'content policy' };
      const first = await run(TASK_ID);
      expect(first.view).toMatchObject({ status: 'failed', error_message: 'generation failed: content policy' });
      await run(TASK_ID);
      expect(tasks.refunds).toEqual([
        { taskId: TASK_ID, to: 'failed', errorMessage: 'generation failed: content policy' },
      ]);
      expect(provider.polled).toEqual(['job-7']);
    });

    it('an upstream error → the stored task, and the error is reported', async () => {
      tasks = new InMemoryTasks(withJob('running'));
      provider.getError = new UpstreamTransientError('503');
      const result = await run(TASK_ID);
      expect(result.view.status).toBe('running');
      expect(upstreamErrors).toHaveLength(1);
      expect(upstreamErrors[0]?.[1]).toBe(provider.getError);
    });

    it.each(['transferring', 'success', 'failed', 'refunded'] as const)('%s: upstream not asked', async (status) => {
      tasks = new InMemoryTasks(withJob(status));
      await run(TASK_ID);
      expect(provider.polled).toEqual([]);
    });

    it('no upstream job yet: upstream not asked', async () => {
      await run(TASK_ID);
      expect(provider.polled).toEqual([]);
    });
  });
});

describe('describeFailure', () => {
  const named: [string, string][] = [
    [new UpstreamJobFailedError('x').name, 'generation failed'],
    [new UpstreamRejectedError('x').name, 'the generator rejected the task'],
    [new UpstreamTransientError('x').name, 'the generator could not be reached'],
    [new UpstreamOutcomeUnknownError('x').name, 'the generator did not confirm the task'],
    [new UpstreamJobNotFoundError('x').name, 'the generator lost the task'],
    [new GenerationTimedOutError('x').name, 'generation timed out'],
    [new VideoRejectedError('x').name, 'the generated file could not be stored'],
    [new VideoDownloadInterruptedError('x').name, 'the generated video could not be downloaded'],
  ];

  it.each(named)('%s with a Lambda JSON Cause → "%s: <errorMessage>"', (name, prefix) => {
    const Cause = JSON.stringify({ errorType: name, errorMessage: 'content policy', trace: ['at secret.ts:1'] });
    expect(describeFailure({ Error: name, Cause })).toBe(`${prefix}: content policy`);
  });

  it.each(named)('%s with a plain Cause → "%s: <cause>"', (name, prefix) => {
    expect(describeFailure({ Error: name, Cause: 'quota exhausted' })).toBe(`${prefix}: quota exhausted`);
  });

  it.each(named)('%s without a Cause → "%s"', (name, prefix) => {
    expect(describeFailure({ Error: name })).toBe(prefix);
    expect(describeFailure({ Error: name, Cause: '' })).toBe(prefix);
  });

  it('the error names are the class names the state machine matches', () => {
    expect(named.map(([name]) => name)).toEqual([
      'UpstreamJobFailedError',
      'UpstreamRejectedError',
      'UpstreamTransientError',
      'UpstreamOutcomeUnknownError',
      'UpstreamJobNotFoundError',
      'GenerationTimedOutError',
      'VideoRejectedError',
      'VideoDownloadInterruptedError',
    ]);
  });

  it.each(['TypeError', 'Error', 'States.TaskFailed', 'Lambda.Unknown', 'States.Runtime', 'TaskNotFoundError'])(
    'an unknown error (%s) → a generic message without internals',
    (name) => {
      const Cause = JSON.stringify({
        errorType: name,
        errorMessage: 'connect ECONNREFUSED 10.0.0.12:8000 table tasks-prod',
        trace: ['at /var/task/index.mjs:42'],
      });
      const message = describeFailure({ Error: name, Cause });
      expect(message).toBe('internal error while processing the task');
      expect(message).not.toMatch(/ECONNREFUSED|10\.0\.0|var\/task|tasks-prod/);
    },
  );

  it('States.Timeout → a processing step timed out', () => {
    expect(describeFailure({ Error: 'States.Timeout' })).toBe('a processing step timed out');
    expect(describeFailure({ Error: 'States.Timeout', Cause: 'internal detail' })).toBe('a processing step timed out');
  });
});

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
          upstreamModel: 'doubao-seedance-1-5-pro-251215',
          prompt: 'A red fox trots through fresh snow',
          resolution: '720p',
          ratio: '16:9',
          durationSeconds: 5,
          seed: 42,
          generateAudio: true,
          imageUrls: ['https://cdn.example.com/fox.png'],
          videoUrls: [],
          audioUrls: [],
        },
      ]);
      expect(await tasks.get(TASK_ID)).toMatchObject({ status: 'running', upstream_job_id: 'job-1' });
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

    it('cancelled upstream → UpstreamJobFailedError', async () => {
      provider.status = { state: 'cancelled' };
      const error = await rejection(pollUpstreamJob(TASK_ID, deps));
      expect(error).toBeInstanceOf(UpstreamJobFailedError);
      expect(error.message).toBe('the generator cancelled the task');
    });

    it('after the deadline → GenerationTimedOutError, without asking the upstream', async () => {
      now = new Date(Date.parse(taskRecord().deadline_at) + 1);
      const error = await rejection(pollUpstreamJob(TASK_ID, deps));
      expect(error).toBeInstanceOf(GenerationTimedOutError);
      expect(error.message).toContain(taskRecord().deadline_at);
      expect(provider.polled).toEqual([]);
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

    it.each(['pending', 'running', 'transferring'] as const)(
      'a %s task fails and is refunded with the customer-facing reason',
      async (status) => {
        use(taskRecord({ status }));
        expect(await failAndRefund(TASK_ID, error, { tasks, now: () => now })).toEqual({
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
      expect(await failAndRefund(TASK_ID, error, { tasks, now: () => now })).toEqual({ status, refunded: false });
      expect(tasks.refunds).toEqual([]);
      expect((await tasks.get(TASK_ID))?.status).toBe(status);
    });

    it('run twice, it refunds once', async () => {
      await failAndRefund(TASK_ID, error, { tasks, now: () => now });
      expect(await failAndRefund(TASK_ID, error, { tasks, now: () => now })).toEqual({
        status: 'failed',
        refunded: false,
      });
      expect(tasks.refunds).toHaveLength(1);
    });

    it('a missing task: nothing to refund', async () => {
      use();
      expect(await failAndRefund(TASK_ID, error, { tasks, now: () => now })).toEqual({
        status: 'missing',
        refunded: false,
      });
    });

    it('an unknown error is stored without internals', async () => {
      await failAndRefund(
        TASK_ID,
        { Error: 'TypeError', Cause: 'x is undefined at /var/task' },
        { tasks, now: () => now },
      );
      expect((await tasks.get(TASK_ID))?.error_message).toBe('internal error while processing the task');
    });
  });
});

describe('submitTask', () => {
  let tasks: InMemoryTasks;
  let catalog: InMemoryCatalog;
  let deps: SubmitTaskDeps;
  const NEW_ID = '99999999-9999-4999-8999-999999999999';

  beforeEach(() => {
    tasks = new InMemoryTasks();
    catalog = new InMemoryCatalog(catalogRecords().map((record) => toVideoModel(record)));
    deps = {
      keys: new InMemoryKeys([storedKey()]),
      models: catalog,
      tasks,
      urls: { assertPublic: async () => undefined },
      now: () => NOW,
      newTaskId: () => NEW_ID,
    };
  });

  function storedKey(fields: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
    return {
      key_hash: CALLER.keyHash,
      key_id: 'id-1',
      account_id: ACCOUNT,
      status: 'active',
      spent_units: 0,
      created_at: '2026-11-01T00:00:00.000Z',
      ...fields,
    };
  }

  it('a charge that finds the key given a quota since the caller read it charges again, by the stored key', async () => {
    tasks.storedKeyHasQuota = true;
    const keys = new InMemoryKeys([storedKey({ quota_units: 100_000, quota_remaining_units: 100_000 })]);
    const result = await submitTask(CALLER, { model: PRO, prompt: 'A fox', duration: 5 }, { ...deps, keys });
    expect(result.task_id).toBe(NEW_ID);
    expect(keys.freshLookups).toEqual([CALLER.keyHash]);
    expect(tasks.charges).toEqual([
      { accountId: ACCOUNT, keyHash: CALLER.keyHash, keyHasQuota: true, costUnits: 42_000 },
    ]);
    expect((await tasks.get(NEW_ID))?.key_quota_charged).toBe(true);
  });

  it('a charge the stored key refuses (disabled meanwhile) re-reads the key, so the copy of it is replaced', async () => {
    tasks.chargeError = new AuthenticationError('API key is disabled');
    const keys = new InMemoryKeys([storedKey({ status: 'disabled' })]);
    await expect(
      submitTask(CALLER, { model: PRO, prompt: 'A fox', duration: 5 }, { ...deps, keys }),
    ).rejects.toMatchObject({ code: 401 });
    expect(keys.freshLookups).toEqual([CALLER.keyHash]);
  });

  it('… and answers the 401 even when that re-read fails', async () => {
    tasks.chargeError = new AuthenticationError('API key is disabled');
    const keys = {
      findByHash: async () => {
        throw new Error('DynamoDB unavailable');
      },
    };
    await expect(
      submitTask(CALLER, { model: PRO, prompt: 'A fox', duration: 5 }, { ...deps, keys }),
    ).rejects.toMatchObject({ code: 401 });
  });

  it('a charge that finds the key changed, and the re-read finds it disabled: 401, nothing charged', async () => {
    tasks.storedKeyHasQuota = true;
    const keys = new InMemoryKeys([storedKey({ status: 'disabled', quota_units: 1, quota_remaining_units: 1 })]);
    await expect(
      submitTask(CALLER, { model: PRO, prompt: 'A fox', duration: 5 }, { ...deps, keys }),
    ).rejects.toMatchObject({ code: 401, message: 'API key is disabled' });
    expect(tasks.charges).toEqual([]);
    expect(await tasks.get(NEW_ID)).toBeUndefined();
  });

  it('validates, prices, charges and stores a pending task (its stream starts the lifecycle)', async () => {
    const result = await submitTask(CALLER, { model: PRO, prompt: 'A fox', duration: 5 }, deps);
    expect(result).toEqual({ task_id: NEW_ID, status: 'pending', cost: 4.2, created_at: NOW.toISOString() });
    expect(tasks.charges).toEqual([
      { accountId: ACCOUNT, keyHash: 'key-hash-1', keyHasQuota: false, costUnits: 42_000 },
    ]);
    expect(await tasks.get(NEW_ID)).toMatchObject({
      status: 'pending',
      form: 'A',
      cost_units: 42_000,
      account_id: ACCOUNT,
      upstream_provider: 'ark',
      upstream_model: 'doubao-seedance-1-5-pro-251215',
      deadline_at: new Date(NOW.getTime() + 3600 * 1000).toISOString(),
    });
  });

  it('modelId is looked up by id, model by name or id', async () => {
    const lite = catalogModel(LITE).record.id;
    const result = await submitTask(
      CALLER,
      { modelId: lite, prompt: 'p', imageUrls: ['https://a.example/x.png'] },
      deps,
    );
    expect(result.cost).toBe(3);
    expect((await tasks.get(NEW_ID))?.form).toBe('B');
    await submitTask(CALLER, { model: ULTRA, prompt: 'p' }, deps);
    expect(catalog.calls).toEqual([`findById:${lite}`, `findByNameOrId:${ULTRA}`]);
  });

  it('an unknown model → 400', async () => {
    const error = await rejection(submitTask(CALLER, { model: 'nope', prompt: 'p' }, deps));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toContain('unknown model "nope"');
  });

  it('an invalid body → 400 and nothing charged', async () => {
    expect(await rejection(submitTask(CALLER, { model: PRO }, deps))).toBeInstanceOf(InvalidRequestError);
    expect(tasks.charges).toEqual([]);
    expect(await tasks.get(NEW_ID)).toBeUndefined();
  });

  it('insufficient balance → 402, no task stored', async () => {
    tasks.chargeError = new InsufficientBalanceError();
    const error = await rejection(submitTask(CALLER, { model: PRO, prompt: 'p' }, deps));
    expect((error as ApiError).code).toBe(402);
    expect(await tasks.get(NEW_ID)).toBeUndefined();
  });
});

describe('cancelTask (DESIGN §3 row 18)', () => {
  let tasks: InMemoryTasks;
  let workflow: FakeWorkflow;
  let provider: FakeProvider;
  let cleanupErrors: [string, unknown][];
  const run = (taskId: string | undefined, caller: Caller = CALLER) =>
    cancelTask(caller, taskId, {
      tasks,
      workflow,
      providers: { ark: provider },
      now: () => NOW,
      onCleanupError: (_task, step, error) => cleanupErrors.push([step, error]),
    });

  beforeEach(() => {
    tasks = new InMemoryTasks(taskRecord({ status: 'running', upstream_job_id: 'job-3' }));
    workflow = new FakeWorkflow();
    provider = new FakeProvider();
    cleanupErrors = [];
  });

  it.each(['pending', 'running'] as const)(
    'a %s task → refunded, execution and upstream job stopped',
    async (status) => {
      tasks = new InMemoryTasks(taskRecord({ status, upstream_job_id: 'job-3' }));
      const view = await run(TASK_ID);
      expect(view).toMatchObject({ task_id: TASK_ID, status: 'refunded' });
      expect(tasks.refunds).toEqual([{ taskId: TASK_ID, to: 'refunded', errorMessage: CANCELLED_MESSAGE }]);
      expect(workflow.stopped).toEqual([{ executionName: TASK_ID, cause: CANCELLED_MESSAGE }]);
      expect(provider.cancelled).toEqual(['job-3']);
    },
  );

  it('stops the execution by its recorded name after a restart', async () => {
    tasks = new InMemoryTasks(taskRecord({ status: 'running', execution_name: `${TASK_ID}-r1` }));
    await run(TASK_ID);
    expect(workflow.stopped).toEqual([{ executionName: `${TASK_ID}-r1`, cause: CANCELLED_MESSAGE }]);
    expect(provider.cancelled).toEqual([]);
  });

  it.each(['transferring', 'success', 'failed', 'refunded'] as const)(
    'a %s task → 400, nothing refunded',
    async (status) => {
      tasks = new InMemoryTasks(taskRecord({ status }));
      const error = await rejection(run(TASK_ID));
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error.message).toContain(`this task is ${status}`);
      expect(tasks.refunds).toEqual([]);
      expect(workflow.stopped).toEqual([]);
    },
  );

  it('a second cancel → 400, refunded once', async () => {
    await run(TASK_ID);
    expect(await rejection(run(TASK_ID))).toBeInstanceOf(InvalidRequestError);
    expect(tasks.refunds).toHaveLength(1);
  });

  it("another account's task → 403; a malformed id → 400", async () => {
    expect(await rejection(run(TASK_ID, { ...CALLER, accountId: OTHER_ACCOUNT }))).toBeInstanceOf(ForbiddenError);
    expect(await rejection(run('nope'))).toBeInstanceOf(InvalidRequestError);
    expect(tasks.refunds).toEqual([]);
  });

  it('failures to stop are reported, not thrown: the refund stands', async () => {
    workflow.stopError = new Error('sfn down');
    provider.cancelError = new UpstreamTransientError('503');
    expect((await run(TASK_ID)).status).toBe('refunded');
    expect(cleanupErrors).toEqual([
      ['stop', workflow.stopError],
      ['upstream', provider.cancelError],
    ]);
  });
});

describe('getBalance', () => {
  const accounts = new InMemoryAccounts([{ account_id: ACCOUNT, balance_units: 1_234_567, created_at: 'x' }]);

  it('the balance of the caller account in yuan, currency CNY', async () => {
    expect(await getBalance(CALLER, accounts)).toEqual({ balance: 123.4567, currency: 'CNY' });
  });

  it('an account that does not exist → 404', async () => {
    const error = await rejection(getBalance({ ...CALLER, accountId: OTHER_ACCOUNT }, accounts));
    expect(error).toBeInstanceOf(NotFoundError);
  });
});

describe('listModels', () => {
  it('every catalog model, sorted by name, with pricing in yuan', async () => {
    const views = await listModels(new InMemoryCatalog(catalogRecords().map((record) => toVideoModel(record))));
    expect(views.map((view) => view.name)).toEqual([LITE, PRO, ULTRA]);
    const [lite, pro, ultra] = views;
    expect(pro?.pricing).toEqual({
      price_per_call: 0,
      price_per_second: 0.6,
      resolution_multipliers: { '480p': 0.5, '720p': 1, '1080p': 2.25, '2k': 0, '4k': 0 },
      audio_extra: 1.2,
      material_surcharge: 0.3,
      quality_multiplier: 1,
      currency: 'CNY',
    });
    expect(pro).toMatchObject({ billing_mode: 'per_second', status: 'active', max_duration: 12, fixed_duration: null });
    expect(pro?.supported_resolutions).toEqual(['480p', '720p', '1080p']);
    expect(ultra?.supported_resolutions).toEqual(['720p', '1080p', '2k', '4k']);
    expect(lite).toMatchObject({
      billing_mode: 'per_call',
      fixed_duration: 5,
      default_resolution: '720p',
      supported_resolutions: ['720p'],
      reference_kinds: ['image'],
    });
    expect(lite?.pricing.price_per_call).toBe(2.5);
    expect(lite?.pricing.quality_multiplier).toBe(1.2);
  });
});
