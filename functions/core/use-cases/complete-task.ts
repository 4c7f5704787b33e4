/**
 * CompleteTask (docs/task-lifecycle.md, "Completion"). Primary course: the stored video's URL is signed, and the
 * task moves from transferring to success with it and its finished_at, once: a second run changes nothing.
 */
import type { TaskRepository } from '../ports/task-repository.js';
import type { AigcView } from '../task.js';
import type { VideoUrlSigner } from '../ports/video-storage.js';

export interface CompleteDeps {
  tasks: TaskRepository;
  signer: VideoUrlSigner;
  now: () => Date;
}

export async function completeTask(taskId: string, videoKey: string, aigc: AigcView | null, deps: CompleteDeps) {
  const now = deps.now();
  const signed = await deps.signer.sign(videoKey, now);
  const moved = await deps.tasks.moveTo(
    taskId,
    'success',
    {
      finished_at: now.toISOString(),
      video_key: videoKey,
      video_url: signed.url,
      video_url_expires_at: signed.expiresAt,
      // The label the stored file carries (docs/compliance.md).
      ...(aigc && { aigc }),
    },
    now.toISOString(),
  );
  return { status: moved ? 'success' : 'unchanged' };
}
