/** GET /api/v1/videos/{id}, OpenAI's retrieve (docs/openai-videos.md, "Retrieve"). */
import { getVideo } from '../../core/use-cases/openai/get-video.js';
import { taskQueryDependencies } from '../../adapters/wiring/task-query-dependencies.js';
import { openAiJson } from './openai-errors.js';
import { openAiRoute } from './openai-route.js';

const deps = taskQueryDependencies();

export const handler = openAiRoute(async (event, caller) =>
  openAiJson(await getVideo(caller, event.pathParameters?.['id'], deps)),
);
