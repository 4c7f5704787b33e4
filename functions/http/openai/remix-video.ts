/**
 * POST /api/v1/videos/{id}/remix, OpenAI's remix (docs/openai-videos.md, "Not supported"): our generators make
 * a video from a prompt and a first frame, not from another video, so it is refused in words the SDK shows.
 */
import { InvalidRequestError } from '../../core/api-error.js';
import { openAiRoute } from './openai-route.js';

export const handler = openAiRoute(async (_event, caller) => {
  await caller; // an auth error wins, as everywhere
  throw new InvalidRequestError(
    'remix is not supported by this service: create a new video with POST /api/v1/videos and the whole prompt',
  );
});
