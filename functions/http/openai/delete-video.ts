/** DELETE /api/v1/videos/{id}, OpenAI's delete (docs/openai-videos.md, "Delete"): as the native cancel when queued. */
import { deleteVideo } from '../../core/use-cases/openai/delete-video.js';
import { logger } from '../../adapters/runtime/logger.js';
import { countMetric, METRIC } from '../../adapters/runtime/metrics.js';
import { awaitWhileTimeLeft } from '../../adapters/runtime/time-left.js';
import { waitingRoomDependencies } from '../../adapters/wiring/capacity-dependencies.js';
import { claimReports } from '../../adapters/wiring/claim-reports.js';
import { CANCEL_UPSTREAM_TIMEOUT_MS, videoProviders } from '../../adapters/wiring/provider-dependencies.js';
import { taskRepository } from '../../adapters/wiring/service-dependencies.js';
import { videoDeletion } from '../../adapters/wiring/video-deletion-dependencies.js';
import { taskWorkflow } from '../../adapters/wiring/workflow-dependencies.js';
import { openAiJson } from './openai-errors.js';
import { openAiRoute } from './openai-route.js';

/** Kept for the answer itself once the clean-up is left to go on without us (as cancel-task.ts). */
const ANSWER_MARGIN_MS = 2_000;

const deps = {
  ...waitingRoomDependencies(),
  tasks: taskRepository(),
  ...claimReports,
  workflow: taskWorkflow(),
  providers: videoProviders(CANCEL_UPSTREAM_TIMEOUT_MS),
  videos: videoDeletion(),
  onCleanupError: (task: { task_id: string }, step: string, error: unknown) =>
    logger.warn(`deleting a queued video: its cancel's ${step} step failed`, {
      task_id: task.task_id,
      error: error as Error,
    }),
};

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
