/**
 * The create body Ark expects (doc 1520757): the platform's model id, the prompt and each image, video
 * and audio with its role, and the options as top-level fields (not the legacy `--rs 720p` prompt
 * suffixes, which Ark validates only loosely). `generate_audio` goes only to models that make sound.
 */
import { ARK_MODELS, arkModelId } from './contract.js';
import type { ArkPlatform, ImageMode, UpstreamModel } from './contract.js';
import type { ProviderJobRequest } from '../../core/ports/video-provider.js';
import { UpstreamConfigurationError } from '../../core/upstream-errors.js';

type ImageRole = 'first_frame' | 'last_frame' | 'reference_image';
type ContentItem =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string }; role: ImageRole }
  | { type: 'video_url'; video_url: { url: string }; role: 'reference_video' }
  | { type: 'audio_url'; audio_url: { url: string }; role: 'reference_audio' };

/** Each image's role: Ark reads an image without one as a first frame, so every image names its role. */
function imageRole(mode: ImageMode | undefined, index: number): ImageRole {
  if (mode === 'first_last_frame') return index === 0 ? 'first_frame' : 'last_frame';
  return mode === 'first_frame' ? 'first_frame' : 'reference_image';
}

function toContent(request: ProviderJobRequest): ContentItem[] {
  return [
    { type: 'text', text: request.prompt },
    ...request.imageUrls.map((url, index): ContentItem => ({
      type: 'image_url',
      image_url: { url },
      role: imageRole(request.imageMode, index),
    })),
    ...request.videoUrls.map((url): ContentItem => ({
      type: 'video_url',
      video_url: { url },
      role: 'reference_video',
    })),
    ...request.audioUrls.map((url): ContentItem => ({
      type: 'audio_url',
      audio_url: { url },
      role: 'reference_audio',
    })),
  ];
}

export function toArkBody(request: ProviderJobRequest, platform: ArkPlatform): Record<string, unknown> {
  const contract: Readonly<Record<string, UpstreamModel>> = ARK_MODELS;
  const model = arkModelId(request.upstreamModel, platform);
  if (model === undefined) {
    throw new UpstreamConfigurationError(`model ${request.upstreamModel} is not offered on Ark's ${platform} platform`);
  }
  return {
    model,
    content: toContent(request),
    resolution: request.resolution,
    ratio: request.ratio,
    duration: request.durationSeconds,
    // Absent means random; Ark also reads -1 as random, so it passes through unchanged.
    ...(request.seed === undefined ? {} : { seed: request.seed }),
    ...(contract[request.upstreamModel]?.audio ? { generate_audio: request.generateAudio } : {}),
    watermark: false,
    execution_expires_after: request.expiresAfterSeconds,
    ...(request.callbackUrl ? { callback_url: request.callbackUrl } : {}),
  };
}
