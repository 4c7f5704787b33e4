/** An upstream job request as StartUpstream builds it (2.0, 720p, 5 s, text only), for the adapter's tests. */
import type { ProviderJobRequest } from '../../functions/core/ports/video-provider.js';

export function jobRequest(overrides: Partial<ProviderJobRequest> = {}): ProviderJobRequest {
  return {
    upstreamModel: 'seedance-2-0',
    prompt: 'A red fox trots through fresh snow',
    resolution: '720p',
    ratio: '16:9',
    durationSeconds: 5,
    generateAudio: false,
    imageUrls: [],
    videoUrls: [],
    audioUrls: [],
    expiresAfterSeconds: 7200,
    account: 'default',
    ...overrides,
  };
}
