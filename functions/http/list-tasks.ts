/** GET /api/v1/video/tasks */
import { listTasks } from '../core/use-cases/list-tasks.js';
import { taskList, taskRepository } from '../adapters/wiring/service-dependencies.js';
import { videoRetentionDays, videoUrlSigner } from '../adapters/wiring/url-signer-dependencies.js';
import { authenticatedRoute } from './api-handler.js';

const deps = {
  taskList: taskList(),
  tasks: taskRepository(),
  signer: videoUrlSigner(),
  videoRetentionDays: videoRetentionDays(),
  now: () => new Date(),
};

export const handler = authenticatedRoute(async (event, caller) => ({
  data: await listTasks(caller, event.queryStringParameters, deps),
}));
