/** GET /api/v1/video/tasks/{id} */
import { getTask } from '../core/use-cases/get-task.js';
import { waitingRoomDependencies } from '../adapters/capacity-dependencies.js';
import { logger } from '../adapters/logger.js';
import { LIVE_QUERY_TIMEOUT_MS, videoProviders } from '../adapters/provider-dependencies.js';
import { taskRepository } from '../adapters/service-dependencies.js';
import { videoUrlSigner } from '../adapters/url-signer-dependencies.js';
import { authenticatedRoute } from './api-handler.js';

const deps = {
  ...waitingRoomDependencies(),
  tasks: taskRepository(),
  signer: videoUrlSigner(),
  providers: videoProviders(LIVE_QUERY_TIMEOUT_MS),
  onUpstreamError: (task: { task_id: string }, error: unknown) =>
    logger.warn('live upstream status unavailable; answering from the stored task', {
      task_id: task.task_id,
      error: error as Error,
    }),
};

export const handler = authenticatedRoute(async (event, caller) => {
  const { view, message } = await getTask(caller, event.pathParameters?.['id'], deps);
  return { data: view, message };
});
