/** GET /api/v1/video/tasks/{id} */
import type { TaskRecord } from '../core/task.js';
import { getTask, isTaskId } from '../core/use-cases/get-task.js';
import { logger } from '../adapters/logger.js';
import { LIVE_QUERY_TIMEOUT_MS, videoProviders } from '../adapters/provider-dependencies.js';
import { taskRepository } from '../adapters/service-dependencies.js';
import { videoUrlSigner } from '../adapters/url-signer-dependencies.js';
import { authenticatedRoute } from './api-handler.js';

const deps = {
  tasks: taskRepository(),
  signer: videoUrlSigner(),
  providers: videoProviders(LIVE_QUERY_TIMEOUT_MS),
  now: () => new Date(),
  onUpstreamError: (task: { task_id: string }, error: unknown) =>
    logger.warn('live upstream status unavailable; answering from the stored task', {
      task_id: task.task_id,
      error: error as Error,
    }),
};

export const handler = authenticatedRoute<Promise<TaskRecord | undefined> | undefined>(
  async (event, caller, readAhead) => {
    const { view, message } = await getTask(caller, event.pathParameters?.['id'], deps, readAhead);
    return { data: view, message };
  },
  {
    // The task is read in the same tick as the key: when the instance has no copy of the key, both go out as
    // one BatchGetItem (one call, one round trip). Nothing is shown unless authentication succeeds and the task
    // belongs to the caller.
    readAhead: (event) => {
      const id = event.pathParameters?.['id'];
      if (!isTaskId(id)) return undefined;
      const read = deps.tasks.get(id.toLowerCase());
      read.catch(() => undefined);
      return read;
    },
  },
);
