/** GET /api/v1/video/tasks */
import { listTasks } from '../core/use-cases/list-tasks.js';
import { taskListDependencies } from '../adapters/wiring/task-list-dependencies.js';
import { authenticatedRoute } from './api-handler.js';

const deps = taskListDependencies();

export const handler = authenticatedRoute(async (event, caller) => ({
  data: await listTasks(caller, event.queryStringParameters, deps),
}));
