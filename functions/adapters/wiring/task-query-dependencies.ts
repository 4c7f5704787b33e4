/** What a task's query needs (GET /video/tasks/{id} and the console's): the live upstream check and its moves. */
import { waitingRoomDependencies } from './capacity-dependencies.js';
import { logger } from '../runtime/logger.js';
import { LIVE_QUERY_TIMEOUT_MS, videoProviders } from './provider-dependencies.js';
import { taskRepository } from './service-dependencies.js';
import { videoRetentionDays, videoUrlSigner } from './url-signer-dependencies.js';

export function taskQueryDependencies() {
  return {
    ...waitingRoomDependencies(),
    tasks: taskRepository(),
    signer: videoUrlSigner(),
    videoRetentionDays: videoRetentionDays(),
    providers: videoProviders(LIVE_QUERY_TIMEOUT_MS),
    onUpstreamError: (task: { task_id: string }, error: unknown) =>
      logger.warn('live upstream status unavailable; answering from the stored task', {
        task_id: task.task_id,
        error: error as Error,
      }),
  };
}
