/** GET /api/v1/video/tasks/:id (docs/security.md, "API keys", "Video URLs"). */
import * as v from 'valibot';
import { ForbiddenError, InvalidRequestError, NotFoundError } from '../api-error.js';
import type { TaskRepository } from '../ports/task-repository.js';
import type { VideoUrlSigner } from '../ports/video-storage.js';
import { toTaskView, TRANSFERRING_MESSAGE } from '../task.js';
import type { TaskRecord, TaskView } from '../task.js';
import type { AccountCaller } from './authenticate.js';
import { refreshFromUpstream } from './refresh-from-upstream.js';
import { queuePosition } from './waiting-room.js';
import type { RefreshDeps } from './refresh-from-upstream.js';
import { videoDeletedAt, videoDeletedMessage } from '../video-retention.js';

/** Re-sign a little before expiry so a URL handed out is never already dead on arrival. */
const RESIGN_MARGIN_MS = 10 * 60 * 1000;
const TaskIdSchema = v.pipe(v.string(), v.uuid());

export function isTaskId(taskId: string | undefined): taskId is string {
  return taskId !== undefined && v.is(TaskIdSchema, taskId);
}

export interface GetTaskDeps extends RefreshDeps {
  tasks: TaskRepository;
  signer: VideoUrlSigner;
  now: () => Date;
  /** Days the storage policy keeps a finished video; undefined: kept (docs/operations.md, "Video storage"). */
  videoRetentionDays?: number | undefined;
}

export interface GetTaskResult {
  view: TaskView;
  message: string;
}

export async function getTask(
  caller: AccountCaller | Promise<AccountCaller>,
  taskId: string | undefined,
  deps: GetTaskDeps,
): Promise<GetTaskResult> {
  const stored = await findOwnTask(caller, taskId, deps.tasks);
  const task = await refreshFromUpstream(stored, deps);
  const fresh = await withFreshVideoUrl(task, deps);
  return {
    view: { ...toTaskView(fresh), queue_position: (await queuePosition(fresh, deps)) ?? null },
    message:
      fresh.status === 'transferring'
        ? TRANSFERRING_MESSAGE
        : fresh.video_deleted_at && deps.videoRetentionDays !== undefined
          ? videoDeletedMessage(fresh.video_deleted_at, deps.videoRetentionDays)
          : 'success',
  };
}

/**
 * The caller's task. Its read starts while the caller may still be authenticating (one round trip for
 * both); nothing about the task, not even a malformed id, is answered before authentication succeeds.
 */
export async function findOwnTask(
  caller: AccountCaller | Promise<AccountCaller>,
  taskId: string | undefined,
  tasks: TaskRepository,
): Promise<TaskRecord> {
  const read = isTaskId(taskId) ? tasks.get(taskId.toLowerCase()) : undefined;
  read?.catch(() => undefined);
  const { accountId } = await caller;
  if (!read) throw new InvalidRequestError('task id must be a UUID');
  const task = await read;
  if (!task) throw new NotFoundError(`task ${taskId} does not exist`);
  if (task.account_id !== accountId) throw new ForbiddenError('this task belongs to another account');
  return task;
}

/**
 * A succeeded task's video URL, signed again (and stored) when it is near its end; the task list shares it. A
 * video the storage policy removed (video-retention.ts) gets no URL but `video_deleted_at`.
 */
export async function withFreshVideoUrl<
  T extends Pick<TaskRecord, 'task_id' | 'status' | 'video_key' | 'video_url' | 'video_url_expires_at' | 'finished_at'>,
>(
  task: T,
  deps: {
    tasks: Pick<TaskRepository, 'saveVideoUrl'>;
    signer: VideoUrlSigner;
    now: () => Date;
    videoRetentionDays?: number | undefined;
  },
): Promise<T & { video_deleted_at?: string }> {
  if (task.status !== 'success' || !task.video_key) return task;
  const now = deps.now();
  const deletedAt = videoDeletedAt(task.finished_at, deps.videoRetentionDays);
  if (deletedAt && deletedAt.getTime() <= now.getTime()) {
    const { video_url: _url, video_url_expires_at: _expires, ...rest } = task;
    return { ...(rest as T), video_deleted_at: deletedAt.toISOString() };
  }
  const expiresAt = task.video_url_expires_at ? Date.parse(task.video_url_expires_at) : 0;
  if (task.video_url && expiresAt - now.getTime() > RESIGN_MARGIN_MS) return task;
  const signed = await deps.signer.sign(task.video_key, now);
  await deps.tasks.saveVideoUrl(task.task_id, signed.url, signed.expiresAt);
  return { ...task, video_url: signed.url, video_url_expires_at: signed.expiresAt };
}
