/**
 * The create body DashScope expects for Wan 2.7 (docs/providers/model-studio.md, "Create body"):
 * `{model, input: {prompt, media | audio_url}, parameters: {resolution, ratio, duration, seed, watermark}}`.
 * Frames and references go in `input.media` with their type; a text-to-video driving audio is `audio_url`.
 */
import type { ProviderJobRequest } from '../../core/ports/video-provider.js';
import { UpstreamConfigurationError } from '../../core/upstream-errors.js';
import { wanModel } from './contract.js';
import type { ModelStudioRegion } from './contract.js';

type MediaType = 'first_frame' | 'last_frame' | 'reference_image' | 'reference_video';
interface MediaItem {
  type: MediaType;
  url: string;
}

/** Wan's seeds are 0 … 2^31 − 1; the gateway's (Ark's) go to 2^32 − 1. */
const SEED_LIMIT = 2 ** 31;

function media(request: ProviderJobRequest): MediaItem[] {
  const images = request.imageUrls.map((url, index): MediaItem => {
    if (request.imageMode === 'reference') return { type: 'reference_image', url };
    return { type: index === 0 ? 'first_frame' : 'last_frame', url };
  });
  const videos = request.videoUrls.map((url): MediaItem => ({ type: 'reference_video', url }));
  return [...images, ...videos];
}

/**
 * A seed the gateway took that Wan would refuse is reduced modulo 2^31: the same seed still gives the same
 * video. -1 (any) and none leave the pick to Wan.
 */
function wanSeed(seed: number | undefined): number | undefined {
  if (seed === undefined || seed < 0) return undefined;
  return seed % SEED_LIMIT;
}

export function toDashScopeBody(request: ProviderJobRequest, region: ModelStudioRegion): Record<string, unknown> {
  const model = wanModel(request.upstreamModel);
  const id = model?.ids[region];
  if (model === undefined || id === undefined) {
    throw new UpstreamConfigurationError(`model ${request.upstreamModel} is not offered in Model Studio's ${region}`);
  }
  const items = media(request);
  const [audio] = request.audioUrls;
  const seed = wanSeed(request.seed);
  return {
    model: id,
    input: {
      prompt: request.prompt,
      ...(items.length > 0 ? { media: items } : {}),
      ...(audio === undefined ? {} : { audio_url: audio }),
    },
    parameters: {
      resolution: request.resolution.toUpperCase(),
      ...(model.sendsRatio ? { ratio: request.ratio } : {}),
      duration: request.durationSeconds,
      // The prompt is the customer's: no rewriting we did not sell (Model Studio's default is on).
      prompt_extend: false,
      watermark: false,
      ...(seed === undefined ? {} : { seed }),
      // Sound is Wan 2.7's default; `audio: false` asks for none (unconfirmed for 2.7: sent only then).
      ...(request.generateAudio ? {} : { audio: false }),
    },
  };
}
