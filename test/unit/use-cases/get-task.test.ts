/** getTask: the caller's task, its video URL re-signed when near expiry, an in-progress one asked upstream first. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../../../functions/core/api-error.js';
import { ForbiddenError, InvalidRequestError, NotFoundError } from '../../../functions/core/api-error.js';
import type { TaskRecord } from '../../../functions/core/task.js';
import { TRANSFERRING_MESSAGE } from '../../../functions/core/task.js';
import type { TaskStatus } from '../../../functions/core/task-status.js';
import { UpstreamJobNotFoundError, UpstreamTransientError } from '../../../functions/core/upstream-errors.js';
import type { Caller } from '../../../functions/core/use-cases/authenticate.js';
import { getTask } from '../../../functions/core/use-cases/get-task.js';
import { waitForSlot } from '../../../functions/core/use-cases/waiting-room.js';
import { ACCOUNT, TASK_ID, taskRecord } from '../../support/task-records.js';
import { CALLER, FakeProvider, FakeSigner, HOUR, InMemoryTasks, NOW, OTHER_ACCOUNT, waitingRoom } from '../fakes.js';
import { rejection } from '../support.js';

describe('getTask', () => {
  let tasks: InMemoryTasks;
  let signer: FakeSigner;
  let provider: FakeProvider;
  let upstreamErrors: [TaskRecord, unknown][];
  let now: Date;
  const run = (taskId: string | undefined, caller: Caller = CALLER, room = waitingRoom(tasks)) =>
    getTask(caller, taskId, {
      tasks,
      signer,
      providers: { ark: provider },
      ...room,
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
  describe('an in-progress task asks the upstream first (docs/task-lifecycle.md, "Live status")', () => {
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

    it('an upstream briefly unavailable → the stored task', async () => {
      tasks = new InMemoryTasks(withJob('running'));
      provider.getError = new UpstreamTransientError('503');
      const result = await run(TASK_ID);
      expect(result.view.status).toBe('running');
      expect(tasks.refunds).toEqual([]);
    });

    it('an unexpected upstream error → the stored task, and the error is reported', async () => {
      tasks = new InMemoryTasks(withJob('running'));
      provider.getError = new UpstreamJobNotFoundError('gone');
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

  describe('queue_position (docs/upstream-capacity.md)', () => {
    const waiting = (n: number) =>
      taskRecord({ task_id: `${TASK_ID.slice(0, -1)}${n}`, created_at: `2026-11-21T09:5${n}:00.000Z` });

    it('a task waiting for upstream capacity shows its place (1: next to start); others show null', async () => {
      tasks = new InMemoryTasks(waiting(1), waiting(2), waiting(3));
      const room = waitingRoom(tasks, [{ capacity: 0 }]);
      for (const n of [2, 3, 1]) await waitForSlot(waiting(n).task_id, `wait-${n}`, { ...room, tasks, now: () => now });
      const places = [];
      for (const n of [1, 2, 3]) places.push((await run(waiting(n).task_id, CALLER, room)).view.queue_position);
      expect(places).toEqual([1, 2, 3]);
    });

    it.each<[string, Partial<TaskRecord>]>([
      ['holding a slot', { upstream_slot: 'ark#default' }],
      ['running', { status: 'running', upstream_job_id: 'job-7' }],
      ['refunded', { status: 'refunded' }],
    ])('a task %s: null', async (_, fields) => {
      tasks = new InMemoryTasks(taskRecord(fields));
      expect((await run(TASK_ID)).view.queue_position).toBeNull();
    });
  });
});
