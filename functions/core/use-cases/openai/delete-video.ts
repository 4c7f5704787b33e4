/**
 * DELETE /api/v1/videos/{id} (docs/openai-videos.md, "Delete"). Primary course: the caller's task; a completed
 * video is deleted from storage and the task records when (its ledger entry and cost stay); a queued one is
 * cancelled and refunded as the native cancel does; a failed or cancelled one has nothing stored. One being
 * generated is a 400 (nothing can stop it now). Answers OpenAI's `video.deleted` object.
 */
import { InvalidRequestError } from '../../api-error.js';
import type { VideoDeletion } from '../../ports/video-storage.js';
import type { Caller } from '../authenticate.js';
import { cancelTask, GENERATION_STARTED_MESSAGE } from '../cancel-task.js';
import type { CancelTaskDeps } from '../cancel-task.js';
import { findOwnTask } from '../get-task.js';

export interface DeleteVideoDeps extends CancelTaskDeps {
  videos: VideoDeletion;
}

export interface DeletedVideo {
  id: string;
  object: 'video.deleted';
  deleted: true;
  /** Whether this call refunded a queued video (the route counts it, as the cancel route does). */
  refunded: boolean;
}

export async function deleteVideo(
  caller: Caller | Promise<Caller>,
  videoId: string | undefined,
  deps: DeleteVideoDeps,
): Promise<DeletedVideo> {
  const task = await findOwnTask(caller, videoId, deps.tasks);
  const answer = { id: task.task_id, object: 'video.deleted', deleted: true } as const;
  if (task.status === 'success') {
    if (task.video_key) {
      await deps.videos.deleteObject(task.video_key);
      await deps.videos.markDeleted(task.task_id, deps.now().toISOString());
    }
    return { ...answer, refunded: false };
  }
  if (task.status === 'failed' || task.status === 'refunded') return { ...answer, refunded: false };
  try {
    const { refunded } = await cancelTask(caller, task.task_id, deps);
    return { ...answer, refunded };
  } catch (error) {
    if (error instanceof InvalidRequestError && error.message === GENERATION_STARTED_MESSAGE) {
      throw new InvalidRequestError(
        `video ${task.task_id} is being generated and can no longer be cancelled: delete it once it is completed`,
      );
    }
    throw error;
  }
}
