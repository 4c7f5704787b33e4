/** GET /api/v1/video/tasks/{id} */
import { getTask } from '../core/use-cases/get-task.js';
import { taskRepository, videoUrlSigner } from '../adapters/service-dependencies.js';
import { authenticatedRoute } from './api-handler.js';

const deps = { tasks: taskRepository(), signer: videoUrlSigner(), now: () => new Date() };

export const handler = authenticatedRoute(async (event, caller) => {
  const { view, message } = await getTask(caller, event.pathParameters?.['id'], deps);
  return { data: view, message };
});
