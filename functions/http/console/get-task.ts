/** GET /api/v1/console/tasks/{id}: one of the account's tasks, as GET /api/v1/video/tasks/{id} shows it. */
import { getTask } from '../../core/use-cases/get-task.js';
import { taskQueryDependencies } from '../../adapters/wiring/task-query-dependencies.js';
import { consoleRoute } from './console-route.js';

const deps = taskQueryDependencies();

export const handler = consoleRoute(async (event, caller) => {
  const { view, message } = await getTask(caller, event.pathParameters?.['id'], deps);
  return { data: view, message };
});
