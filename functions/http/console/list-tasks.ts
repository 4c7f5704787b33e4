/** GET /api/v1/console/tasks: the account's tasks, as GET /api/v1/video/tasks lists them, or one key's. */
import { listAccountTasks } from '../../core/use-cases/console/list-account-tasks.js';
import { consoleKeys } from '../../adapters/wiring/console-dependencies.js';
import { taskListDependencies } from '../../adapters/wiring/task-list-dependencies.js';
import { consoleRoute } from './console-route.js';

const deps = { ...taskListDependencies(), keys: consoleKeys() };

export const handler = consoleRoute(async (event, caller) => ({
  data: await listAccountTasks(caller, event.queryStringParameters, deps),
}));
