/**
 * Our price against the upstream's cost for every option set the gateway accepts (docs/money-and-ledger.md, "Margins"): each body is
 * run through the gateway's own parse and resolve, so what is costed is exactly what could be sold.
 * Images change neither price nor cost; a few image shapes only make each option set valid.
 */
import { RATIOS, RESOLUTIONS } from '../../../functions/core/generation-options.js';
import type { Ratio, Resolution } from '../../../functions/core/generation-options.js';
import { parseGenerationBody } from '../../../functions/core/generation-request.js';
import { resolveGeneration } from '../../../functions/core/resolve-generation.js';
import type { VideoModel } from '../../../functions/core/video-model.js';
import { platformsOf } from '../../../functions/providers/registry.js';
import type { ProviderName } from '../../../functions/providers/registry.js';
import type { UpstreamPrices } from './upstream-cost.js';
import { upstreamCostUnits } from './upstream-cost.js';

export interface OptionSet {
  model: string;
  platform: string;
  resolution: Resolution;
  ratio: Ratio;
  duration: number;
  generateAudio: boolean;
  videos: number;
  audios: number;
  priceUnits: number;
  costUnits: number;
}

const URL = 'https://example.com/ref';
const IMAGE_SHAPES = [{}, { image_urls: [URL] }, { image_urls: [URL], image_mode: 'reference' }];

function accepted(model: VideoModel, fields: Record<string, unknown>) {
  for (const images of IMAGE_SHAPES) {
    try {
      return resolveGeneration(
        parseGenerationBody({ model: model.record.name, prompt: 'p', ...fields, ...images }),
        model,
      );
    } catch {
      // Not valid with these images: try the next shape.
    }
  }
  return undefined;
}

/** Every accepted option set of `model` on every platform that offers it and has a price for it. */
export function optionSets(model: VideoModel, prices: UpstreamPrices): OptionSet[] {
  const sets: OptionSet[] = [];
  const { upstream } = model;
  const counts = (max: number) => Array.from({ length: max + 1 }, (_, i) => i);
  for (const resolution of RESOLUTIONS)
    for (const ratio of RATIOS)
      for (let duration = 5; duration <= 30; duration += 1)
        for (const generateAudio of [true, false])
          for (const videos of counts(upstream.maxVideos))
            for (const audios of counts(upstream.maxAudios)) {
              const fields = {
                resolution,
                ratio,
                duration,
                ...(upstream.audio || generateAudio ? { generate_audio: generateAudio } : {}),
                ...(videos ? { video_urls: Array(videos).fill(URL) } : {}),
                ...(audios ? { audio_urls: Array(audios).fill(URL) } : {}),
              };
              const resolved = accepted(model, fields);
              // A fixed-duration model makes one duration whatever was sent: cost it once.
              if (!resolved || (model.record.fixed_duration !== undefined && duration !== 5)) continue;
              for (const platform of platformsOf(model.record.upstream.provider as ProviderName)) {
                if (upstream.ids[platform] === undefined) continue;
                const costUnits = upstreamCostUnits(prices, {
                  upstreamModel: model.record.upstream.model,
                  platform,
                  ...resolved,
                  videoReferenceCount: videos,
                });
                if (costUnits === undefined) continue;
                sets.push({
                  model: model.record.name,
                  platform,
                  resolution,
                  ratio,
                  duration: resolved.durationSeconds,
                  generateAudio: resolved.generateAudio,
                  videos,
                  audios,
                  priceUnits: resolved.costUnits,
                  costUnits,
                });
              }
            }
  return sets;
}

/** The worst margin per model, platform, resolution, audio and video input (over the other options). */
export function worstMargins(sets: OptionSet[]): OptionSet[] {
  const worst = new Map<string, OptionSet>();
  for (const set of sets) {
    const key = [set.model, set.platform, set.resolution, set.generateAudio, set.videos > 0].join('|');
    const seen = worst.get(key);
    if (!seen || set.priceUnits - set.costUnits < seen.priceUnits - seen.costUnits) worst.set(key, set);
  }
  return [...worst.values()];
}
