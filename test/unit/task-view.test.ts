/** The Task object the status endpoint returns (docs/api-contract.md, "Task object"). */
import { describe, expect, it } from 'vitest';
import { toTaskView, TRANSFERRING_MESSAGE } from '../../functions/core/task.js';
import type { TaskRecord } from '../../functions/core/task.js';
import type { TaskStatus } from '../../functions/core/task-status.js';
import { taskRecord } from '../support/task-records.js';
import type { TaskRecordFields } from '../support/task-records.js';

const CREATED = '2026-11-21T10:00:00.000Z';
const FINISHED = '2026-11-21T10:03:00.000Z';
const VIDEO_URL = 'https://videos.example.com/videos/acc/task.mp4?X-Amz-Signature=abc';
const EXPIRES = '2026-11-22T10:03:00.000Z';

const task = (status: TaskStatus, fields: TaskRecordFields = {}): TaskRecord =>
  taskRecord({ status, created_at: CREATED, ...fields });

describe('toTaskView', () => {
  it('has every spec field with its exact name, plus the additive ones', () => {
    expect(Object.keys(toTaskView(task('pending'))).sort()).toEqual(
      [
        'task_id',
        'status',
        'video_url',
        'cost',
        'created_at',
        'finished_at',
        'error_message',
        'model',
        'prompt',
        'metadata',
        'duration',
        'resolution',
        'ratio',
        'generate_audio',
        'image_mode',
        'result_url',
        'video_url_expires_at',
        'video_deleted_at',
        'webhook',
        'aigc',
        'cost_breakdown',
        'queue_position',
      ].sort(),
    );
  });

  it('pending: nothing finished yet', () => {
    expect(toTaskView(task('pending'))).toEqual({
      task_id: '7a0c1a8e-1f0b-4a51-9d86-6b8f5f0c2d11',
      status: 'pending',
      video_url: null,
      cost: 4.2,
      created_at: CREATED,
      finished_at: null,
      error_message: null,
      model: 'seedance-1.5-pro',
      prompt: 'A red fox trots through fresh snow',
      metadata: {},
      duration: 5,
      resolution: '720p',
      ratio: '16:9',
      generate_audio: true,
      image_mode: 'first_frame',
      result_url: null,
      video_url_expires_at: null,
      video_deleted_at: null,
      webhook: null,
      aigc: null,
      cost_breakdown: null,
      queue_position: null,
    });
  });

  it("shows the cost's parts kept with the task; they add up to its cost", () => {
    const view = toTaskView(
      task('pending', {
        cost_units: 42_000,
        generation: {
          ...task('pending').generation,
          costParts: { baseUnits: 30_000, resolutionUnits: 0, audioUnits: 12_000, surchargeUnits: 0 },
        },
      }),
    );
    expect(view.cost_breakdown).toEqual({ base: 3, resolution: 0, audio: 1.2, surcharges: 0 });
  });

  it('shows what the task was priced and made with, from its stored generation', () => {
    const generation = {
      modelName: 'seedance-2.0',
      durationSeconds: 12,
      resolution: '1080p',
      ratio: '9:16',
      generateAudio: false,
      imageMode: 'reference',
    } as const;
    expect(toTaskView(task('running', { generation }))).toMatchObject({
      model: 'seedance-2.0',
      duration: 12,
      resolution: '1080p',
      ratio: '9:16',
      generate_audio: false,
      image_mode: 'reference',
    });
  });

  it('image_mode is null for a task without images (text to video), not absent', () => {
    const view = toTaskView(task('success', { generation: { imageUrls: [], imageMode: undefined } }));
    expect(view).toHaveProperty('image_mode', null);
    expect(view.image_mode).toBeNull();
  });

  it.each(['first_frame', 'first_last_frame', 'reference'] as const)('image_mode %s is shown as stored', (mode) => {
    expect(toTaskView(task('pending', { generation: { imageMode: mode } })).image_mode).toBe(mode);
  });

  it('transferring: video_url and finished_at are null even if stored', () => {
    const view = toTaskView(
      task('transferring', { finished_at: FINISHED, video_url: VIDEO_URL, video_url_expires_at: EXPIRES }),
    );
    expect(view.video_url).toBeNull();
    expect(view.result_url).toBeNull();
    expect(view.finished_at).toBeNull();
    expect(view.video_url_expires_at).toBeNull();
    expect(view.error_message).toBeNull();
  });

  it('success: video_url and result_url carry the signed URL, finished_at is set', () => {
    const view = toTaskView(
      task('success', { finished_at: FINISHED, video_url: VIDEO_URL, video_url_expires_at: EXPIRES }),
    );
    expect(view).toMatchObject({
      status: 'success',
      video_url: VIDEO_URL,
      result_url: VIDEO_URL,
      finished_at: FINISHED,
      video_url_expires_at: EXPIRES,
      error_message: null,
    });
  });

  it('failed: error_message is set, no video', () => {
    const view = toTaskView(
      task('failed', { finished_at: FINISHED, error_message: 'generation failed: content policy' }),
    );
    expect(view).toMatchObject({
      status: 'failed',
      error_message: 'generation failed: content policy',
      video_url: null,
      result_url: null,
      finished_at: FINISHED,
    });
  });

  it('failed without a stored message: error_message null', () => {
    expect(toTaskView(task('failed')).error_message).toBeNull();
  });

  it.each(['pending', 'running', 'transferring', 'success'] as const)(
    '%s: error_message is null even if one is stored',
    (status) => {
      expect(toTaskView(task(status, { error_message: 'stale' })).error_message).toBeNull();
    },
  );

  it.each(['pending', 'running', 'failed', 'refunded'] as const)('%s: no video_url even if one is stored', (status) => {
    expect(toTaskView(task(status, { video_url: VIDEO_URL })).video_url).toBeNull();
  });

  it.each([
    [0, 0],
    [1, 0.0001],
    [12_345, 1.2345],
    [30_000, 3],
    [79_500, 7.95],
    [1_215_000, 121.5],
  ])('cost of %s units is %s yuan', (units, yuan) => {
    expect(toTaskView(task('pending', { cost_units: units })).cost).toBe(yuan);
  });

  it('running: finished_at null, the model name shown', () => {
    const view = toTaskView(task('running'));
    expect(view.finished_at).toBeNull();
    expect(view.model).toBe('seedance-1.5-pro');
  });
});

it('the transferring message tells the client to query again in 5 to 10 seconds', () => {
  expect(TRANSFERRING_MESSAGE).toMatch(/transferr/);
  expect(TRANSFERRING_MESSAGE).toMatch(/query again in 5 to 10 seconds/);
});
