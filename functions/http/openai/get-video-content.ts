/**
 * GET /api/v1/videos/{id}/content, OpenAI's download (docs/openai-videos.md, "Content"): a 302 to the video's
 * signed URL, which the SDK's fetch follows (without our key: another origin).
 */
import { videoContentUrl } from '../../core/use-cases/openai/video-content.js';
import { taskRepository } from '../../adapters/wiring/service-dependencies.js';
import { videoRetentionDays, videoUrlSigner } from '../../adapters/wiring/url-signer-dependencies.js';
import { openAiRoute } from './openai-route.js';

const deps = {
  tasks: taskRepository(),
  signer: videoUrlSigner(),
  videoRetentionDays: videoRetentionDays(),
  now: () => new Date(),
};

export const handler = openAiRoute(async (event, caller) => {
  const url = await videoContentUrl(caller, event.pathParameters?.['id'], event.queryStringParameters, deps);
  return { statusCode: 302, headers: { location: url, 'cache-control': 'no-store' }, body: '' };
});
