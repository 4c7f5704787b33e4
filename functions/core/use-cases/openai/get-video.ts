/**
 * GET /api/v1/videos/{id} (docs/openai-videos.md, "Retrieve"): the native query's course (the caller's task,
 * asked of the upstream while in progress, which may record its move or its failure and refund) answered as
 * OpenAI's video object.
 */
import { toOpenAiVideo } from '../../openai-video.js';
import type { OpenAiVideo } from '../../openai-video.js';
import type { AccountCaller } from '../authenticate.js';
import { findOwnTask } from '../get-task.js';
import type { GetTaskDeps } from '../get-task.js';
import { refreshFromUpstream } from '../refresh-from-upstream.js';

export async function getVideo(
  caller: AccountCaller | Promise<AccountCaller>,
  videoId: string | undefined,
  deps: GetTaskDeps,
): Promise<OpenAiVideo> {
  const stored = await findOwnTask(caller, videoId, deps.tasks);
  const task = await refreshFromUpstream(stored, deps);
  return toOpenAiVideo(task, deps.videoRetentionDays);
}
