/** DELETE /api/v1/videos/{id}, OpenAI's delete (docs/openai-videos.md, "Delete"): as the native cancel when queued. */
import { deleteVideo } from '../../core/use-cases/openai/delete-video.js';
import { logger } from '../../adapters/runtime/logger.js';
import { countMetric, METRIC } from '../../adapters/runtime/metrics.js';
import { awaitWhileTimeLeft } from '../../adapters/runtime/time-left.js';
import { CANCEL_ANSWER_MARGIN_MS, cancelDependencies } from '../../adapters/wiring/cancel-dependencies.js';
import { videoDeletion } from '../../adapters/wiring/video-deletion-dependencies.js';
import { openAiJson } from './openai-errors.js';
import { openAiRoute } from './openai-route.js';

const ANSWER_MARGIN_MS = CANCEL_ANSWER_MARGIN_MS;
const deps = { ...cancelDependencies('deleting a queued video: its cancel'), videos: videoDeletion() };

export const handler = openAiRoute(async (event, caller, context) => {
  const { refunded, ...deleted } = await deleteVideo(caller, event.pathParameters?.['id'], {
    ...deps,
    awaitCleanup: async (cleanup) => {
      if (!(await awaitWhileTimeLeft(cleanup, context, ANSWER_MARGIN_MS)))
        logger.warn('deleting a queued video: its clean-up goes on after the answer (a slow store)');
    },
  });
  if (refunded) countMetric(METRIC.tasksRefunded);
  return openAiJson(deleted);
});
