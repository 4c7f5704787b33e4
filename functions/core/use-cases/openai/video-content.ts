/**
 * GET /api/v1/videos/{id}/content (docs/openai-videos.md, "Content"): where the caller's completed video can be
 * downloaded, its signed URL (signed again near its expiry, as the native query does). The route redirects there.
 * Only the MP4 exists: a thumbnail or spritesheet is a 404, a video not completed (or deleted) a 404 saying why.
 */
import { NotFoundError } from '../../api-error.js';
import { OpenAiParamError } from '../../openai-error.js';
import { OPENAI_STATUS_OF } from '../../openai-video.js';
import type { AccountCaller } from '../authenticate.js';
import { findOwnTask, withFreshVideoUrl } from '../get-task.js';
import type { GetTaskDeps } from '../get-task.js';

const VARIANTS = ['video', 'thumbnail', 'spritesheet'] as const;

export async function videoContentUrl(
  caller: AccountCaller | Promise<AccountCaller>,
  videoId: string | undefined,
  query: Record<string, string | undefined> | undefined,
  deps: Pick<GetTaskDeps, 'tasks' | 'signer' | 'now' | 'videoRetentionDays'>,
): Promise<string> {
  const task = await findOwnTask(caller, videoId, deps.tasks);
  const unknown = Object.keys(query ?? {}).find((name) => name !== 'variant');
  if (unknown) throw new OpenAiParamError(unknown, `unknown query parameter: ${unknown} (this route takes variant)`);
  const variant = query?.['variant'] ?? 'video';
  if (!(VARIANTS as readonly string[]).includes(variant)) {
    throw new OpenAiParamError('variant', `variant must be one of ${VARIANTS.join(', ')}`);
  }
  if (variant !== 'video') {
    throw new NotFoundError(`this service makes no ${variant} of a video: only variant=video (the MP4) exists`);
  }
  if (task.status !== 'success') {
    const status = OPENAI_STATUS_OF[task.status];
    throw new NotFoundError(
      `video ${task.task_id} has no content: it is ${status}; download it once its status is completed`,
    );
  }
  const fresh = await withFreshVideoUrl(task, deps);
  if (!fresh.video_url) {
    const when = (fresh.video_deleted_at ?? task.video_deleted_at)?.slice(0, 10);
    throw new NotFoundError(
      `video ${task.task_id} was deleted${when ? ` on ${when}` : ''}: create it again for a new one`,
    );
  }
  return fresh.video_url;
}
