/** GET /api/v1/console/tasks: the account's tasks, as GET /api/v1/video/tasks lists them. */
import { listTasks } from '../../core/use-cases/list-tasks.js';
import { taskListDependencies } from '../../adapters/wiring/task-list-dependencies.js';
import { consoleRoute } from './console-route.js';

const deps = taskListDependencies();

export const handler = consoleRoute(async (event, caller) => ({
  data: await listTasks(caller, event.queryStringParameters, deps),
}));
