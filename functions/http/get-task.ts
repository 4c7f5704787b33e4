/** GET /api/v1/video/tasks/{id} */
import { getTask } from '../core/use-cases/get-task.js';
import { taskQueryDependencies } from '../adapters/wiring/task-query-dependencies.js';
import { authenticatedRoute } from './api-handler.js';

const deps = taskQueryDependencies();

export const handler = authenticatedRoute(async (event, caller) => {
  const { view, message } = await getTask(caller, event.pathParameters?.['id'], deps);
  return { data: view, message };
});
