/**
 * OpenAI's `video` object made from one of our tasks (docs/openai-videos.md): the status, size and seconds
 * mappings, and the valibot schemas the OpenAPI document describes the answers with. A task made by either
 * dialect reads the same in both; the object's `id` is the task id.
 */
import * as v from 'valibot';
import type { Ratio, Resolution } from './generation-options.js';
import type { TaskRecord } from './task.js';
import type { TaskStatus } from './task-status.js';
import { videoDeletedAt } from './video-retention.js';

export const OPENAI_VIDEO_STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;
export type OpenAiVideoStatus = (typeof OPENAI_VIDEO_STATUSES)[number];

/**
 * Ours → OpenAI's. `pending` (waiting for capacity or queued upstream) is `queued`; `transferring` (made, being
 * copied to our storage) is still `in_progress` since its content cannot be downloaded yet; a cancelled task
 * (`refunded`) is `failed` with the error code `cancelled`.
 */
export const OPENAI_STATUS_OF: Readonly<Record<TaskStatus, OpenAiVideoStatus>> = {
  pending: 'queued',
  running: 'in_progress',
  transferring: 'in_progress',
  success: 'completed',
  failed: 'failed',
  refunded: 'failed',
};

/** OpenAI's `progress` is "approximate": we know only the phase, so each phase has its fixed percentage. */
const PROGRESS_OF: Readonly<Record<TaskStatus, number>> = {
  pending: 0,
  running: 50,
  transferring: 95,
  success: 100,
  failed: 0,
  refunded: 0,
};

/** The lines of each resolution: a size's shorter side. */
const SHORT_SIDE: Readonly<Record<Resolution, number>> = {
  '480p': 480,
  '720p': 720,
  '1080p': 1080,
  '2k': 1440,
  '4k': 2160,
};
const RATIO_PARTS: Readonly<Record<Ratio, readonly [number, number]>> = {
  '16:9': [16, 9],
  '4:3': [4, 3],
  '1:1': [1, 1],
  '3:4': [3, 4],
  '9:16': [9, 16],
  '21:9': [21, 9],
};

/**
 * The `WIDTHxHEIGHT` OpenAI's `size` names for a resolution and ratio: the shorter side is the resolution's
 * lines, the longer one follows the ratio, rounded to an even number (720p 16:9 is 1280x720, 480p 16:9 854x480).
 * The provider's own output may differ by a few pixels; this is the name of the option, not a measurement.
 */
export function sizeOf(resolution: Resolution, ratio: Ratio): string {
  const short = SHORT_SIDE[resolution];
  const [w, h] = RATIO_PARTS[ratio];
  const long = Math.round((short * Math.max(w, h)) / Math.min(w, h) / 2) * 2;
  return w >= h ? `${long}x${short}` : `${short}x${long}`;
}

export interface VideoError {
  code: string;
  message: string;
}

export interface OpenAiVideo {
  id: string;
  object: 'video';
  status: OpenAiVideoStatus;
  progress: number;
  model: string;
  prompt: string | null;
  seconds: string;
  size: string;
  created_at: number;
  completed_at: number | null;
  expires_at: number | null;
  error: VideoError | null;
  remixed_from_video_id: null;
}

/** What the object is made of: the task list's projection suffices (no live fields). */
export type VideoSource = Pick<
  TaskRecord,
  'task_id' | 'status' | 'generation' | 'created_at' | 'finished_at' | 'error_message' | 'video_deleted_at'
>;

export const CANCELLED_MESSAGE = 'the video was cancelled before it was made and its charge refunded';

const unixSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export function toOpenAiVideo(task: VideoSource, videoRetentionDays?: number): OpenAiVideo {
  const { generation } = task;
  const final = task.status === 'success' || task.status === 'failed' || task.status === 'refunded';
  return {
    id: task.task_id,
    object: 'video',
    status: OPENAI_STATUS_OF[task.status],
    progress: PROGRESS_OF[task.status],
    model: generation.modelName,
    prompt: generation.prompt,
    seconds: String(generation.durationSeconds),
    size: sizeOf(generation.resolution, generation.ratio),
    created_at: unixSeconds(task.created_at),
    completed_at: final && task.finished_at ? unixSeconds(task.finished_at) : null,
    expires_at: expiresAt(task, videoRetentionDays),
    error: errorOf(task),
    remixed_from_video_id: null,
  };
}

/** When the video stops being downloadable: deleted by the caller, or by the storage policy; null if kept. */
function expiresAt(task: VideoSource, videoRetentionDays: number | undefined): number | null {
  if (task.status !== 'success') return null;
  if (task.video_deleted_at) return unixSeconds(task.video_deleted_at);
  const policy = videoDeletedAt(task.finished_at, videoRetentionDays);
  return policy ? Math.floor(policy.getTime() / 1000) : null;
}

function errorOf(task: VideoSource): VideoError | null {
  if (task.status === 'refunded') return { code: 'cancelled', message: CANCELLED_MESSAGE };
  if (task.status !== 'failed') return null;
  return { code: 'generation_failed', message: task.error_message ?? 'the video could not be made; refunded' };
}

const unix = v.pipe(v.number(), v.integer(), v.description('Unix time, seconds.'));

export const OpenAiVideoSchema = v.object({
  id: v.pipe(v.string(), v.uuid(), v.description('The task id: the native API reads the same task by it.')),
  object: v.literal('video'),
  status: v.picklist(OPENAI_VIDEO_STATUSES),
  progress: v.pipe(v.number(), v.minValue(0), v.maxValue(100)),
  model: v.string(),
  prompt: v.nullable(v.string()),
  seconds: v.pipe(v.string(), v.regex(/^\d+$/)),
  size: v.pipe(v.string(), v.regex(/^\d+x\d+$/)),
  created_at: unix,
  completed_at: v.nullable(unix),
  expires_at: v.nullable(unix),
  error: v.nullable(v.object({ code: v.string(), message: v.string() })),
  remixed_from_video_id: v.null(),
});

export const OpenAiVideoListSchema = v.object({
  object: v.literal('list'),
  data: v.array(OpenAiVideoSchema),
  first_id: v.nullable(v.string()),
  last_id: v.nullable(v.string()),
  has_more: v.boolean(),
});

export interface OpenAiVideoList {
  object: 'list';
  data: OpenAiVideo[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

export const OpenAiVideoDeletedSchema = v.object({
  id: v.string(),
  object: v.literal('video.deleted'),
  deleted: v.literal(true),
});
