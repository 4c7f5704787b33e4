/** GET /api/v1/console/tasks: the account's tasks, as GET /api/v1/video/tasks lists them. */
import { listTasks } from '../../core/use-cases/list-tasks.js';
import { taskList, taskRepository } from '../../adapters/wiring/service-dependencies.js';
import { videoRetentionDays, videoUrlSigner } from '../../adapters/wiring/url-signer-dependencies.js';
import { consoleRoute } from './console-route.js';

const deps = {
  taskList: taskList(),
  tasks: taskRepository(),
  signer: videoUrlSigner(),
  videoRetentionDays: videoRetentionDays(),
  now: () => new Date(),
};

export const handler = consoleRoute(async (event, caller) => ({
  data: await listTasks(caller, event.queryStringParameters, deps),
}));
