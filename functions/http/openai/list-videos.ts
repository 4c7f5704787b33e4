/** GET /api/v1/videos, OpenAI's list (docs/openai-videos.md, "List"). */
import { listVideos } from '../../core/use-cases/openai/list-videos.js';
import { taskList, taskRepository } from '../../adapters/wiring/service-dependencies.js';
import { videoRetentionDays } from '../../adapters/wiring/url-signer-dependencies.js';
import { openAiJson } from './openai-errors.js';
import { openAiRoute } from './openai-route.js';

const deps = { taskList: taskList(), tasks: taskRepository(), videoRetentionDays: videoRetentionDays() };

export const handler = openAiRoute(async (event, caller) =>
  openAiJson(await listVideos(caller, event.queryStringParameters, deps)),
);
