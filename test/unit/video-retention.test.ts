/** A task whose video the storage policy deleted answers when, and why, never a dead URL. */
import { describe, expect, it } from 'vitest';
import { getTask } from '../../functions/core/use-cases/get-task.js';
import { videoDeletedAt } from '../../functions/core/video-retention.js';
import { ACCOUNT, TASK_ID, taskRecord } from '../support/task-records.js';
import { CALLER, FakeProvider, FakeSigner, InMemoryTasks, waitingRoom } from './fakes.js';

const DAY = 24 * 60 * 60 * 1000;

describe('videoDeletedAt', () => {
  it('is midnight UTC at or before finished_at plus the days: never after S3 deletes the object', () => {
    // S3 expires an object at the first midnight UTC after its creation plus the days ("Lifecycle" rules).
    for (const finished of ['2026-01-01T00:00:00.000Z', '2026-01-01T13:45:10.000Z', '2026-01-01T23:59:59.999Z']) {
      const deleted = videoDeletedAt(finished, 40)!;
      const created = Date.parse(finished) - 15 * 60 * 1000; // the video is written before the task ends
      const s3Deletes = Math.floor((created + 40 * DAY) / DAY) * DAY + DAY;
      expect(deleted.getTime()).toBeLessThanOrEqual(s3Deletes);
      expect(deleted.getTime() % DAY).toBe(0);
      expect(Date.parse(finished) + 40 * DAY - deleted.getTime()).toBeLessThan(DAY);
    }
  });

  it('is undefined when videos are kept', () => {
    expect(videoDeletedAt('2026-01-01T00:00:00.000Z', undefined)).toBeUndefined();
  });
});

describe('getTask of a task whose video was deleted', () => {
  const finishedAt = '2026-01-01T10:00:00.000Z';
  const run = async (now: Date, videoRetentionDays: number | undefined) => {
    const tasks = new InMemoryTasks(
      taskRecord({
        status: 'success',
        finished_at: finishedAt,
        video_key: `videos/${ACCOUNT}/${TASK_ID}.mp4`,
        video_url: 'https://videos.example.com/old',
        video_url_expires_at: new Date(now.getTime() + 20 * 60 * 60 * 1000).toISOString(),
      }),
    );
    const signer = new FakeSigner();
    return getTask(CALLER, TASK_ID, {
      tasks,
      signer,
      providers: { ark: new FakeProvider() },
      ...waitingRoom(tasks),
      now: () => now,
      onUpstreamError: () => undefined,
      videoRetentionDays,
    });
  };

  it('answers no URL, when it was deleted, and a message saying why and what to do', async () => {
    const { view, message } = await run(new Date('2026-02-15T00:00:00.000Z'), 40);
    expect(view.status).toBe('success');
    expect(view.video_url).toBeNull();
    expect(view.result_url).toBeNull();
    expect(view.video_url_expires_at).toBeNull();
    expect(view.video_deleted_at).toBe('2026-02-10T00:00:00.000Z');
    expect(message).toBe(
      'the video was deleted on 2026-02-10: the service keeps videos 40 days after the task ends; submit the task again for a new one',
    );
  });

  it('answers the URL before then, and always when videos are kept', async () => {
    const before = await run(new Date('2026-02-09T23:59:59.000Z'), 40);
    expect(before.view.video_url).toBe('https://videos.example.com/old');
    expect(before.view.video_deleted_at).toBeNull();
    expect(before.message).toBe('success');
    const kept = await run(new Date('2030-01-01T00:00:00.000Z'), undefined);
    expect(kept.view.video_deleted_at).toBeNull();
    expect(kept.view.video_url).not.toBeNull();
  });
});
