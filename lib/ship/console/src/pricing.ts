/**
 * The cost calculator runs the service's own pricing function (functions/core/pricing.ts `costUnits`), the one
 * that charges tasks. The API's model view carries the pricing in yuan numbers; it is mapped back here to the
 * exact inputs `costUnits` reads (integer units, exact decimals) with the service's own parsers. `toVideoModel`
 * is not reused: it needs the internal record (upstream ids), which the API does not expose, and pulls valibot.
 */
import { parseDecimal } from '../../../../functions/core/decimal.js';
import type { Resolution } from '../../../../functions/core/generation-options.js';
import { unitsToYuan, yuanToUnits } from '../../../../functions/core/money.js';
import { costUnits } from '../../../../functions/core/pricing.js';
import type { VideoModel } from '../../../../functions/core/video-model.js';
import type { toModelView } from '../../../../functions/core/use-cases/list-models.js';

export type ModelView = ReturnType<typeof toModelView>;

export interface CalculatorInput {
  resolution: string;
  durationSeconds: number;
  generateAudio: boolean;
  videoReferenceCount: number;
  audioReferenceCount: number;
}

/** The subset of a VideoModel that `costUnits` reads, rebuilt from the API's model view. */
export function pricedModelOf(view: ModelView): VideoModel {
  const p = view.pricing;
  const resolutionMultipliers: VideoModel['pricing']['resolutionMultipliers'] = {};
  for (const [resolution, multiplier] of Object.entries(p.resolution_multipliers)) {
    resolutionMultipliers[resolution as Resolution] = parseDecimal(multiplier);
  }
  const partial = {
    record: { name: view.name, billing_mode: view.billing_mode },
    pricing: {
      pricePerCallUnits: yuanToUnits(p.price_per_call),
      pricePerSecondUnits: yuanToUnits(p.price_per_second),
      resolutionMultipliers,
      audioExtraUnits: yuanToUnits(p.audio_extra),
      materialSurchargeUnits: yuanToUnits(p.material_surcharge),
      qualityMultiplier: parseDecimal(p.quality_multiplier),
    },
  };
  // costUnits reads only record.name, record.billing_mode and pricing (see functions/core/pricing.ts).
  return partial as unknown as VideoModel;
}

/** What a request would cost, in yuan, exactly as the service would charge it; null when it cannot be made. */
export function estimateYuan(view: ModelView, input: CalculatorInput): number | null {
  const resolution = input.resolution as Resolution;
  if (!view.supported_resolutions.includes(resolution)) return null;
  const duration = view.capabilities.duration;
  // A per_call model makes its one fixed duration whatever is asked (resolve-generation.ts).
  const durationSeconds = duration.fixed ? duration.min : input.durationSeconds;
  if (!Number.isInteger(durationSeconds) || durationSeconds < duration.min || durationSeconds > duration.max) {
    return null;
  }
  try {
    const units = costUnits(pricedModelOf(view), {
      resolution,
      durationSeconds,
      generateAudio: view.supports_audio && input.generateAudio,
      videoReferenceCount: clampCount(input.videoReferenceCount, view.capabilities.max_videos),
      audioReferenceCount: clampCount(input.audioReferenceCount, view.capabilities.max_audios),
    });
    return unitsToYuan(units);
  } catch {
    return null;
  }
}

function clampCount(count: number, max: number): number {
  if (!Number.isFinite(count) || count < 0) return 0;
  return Math.min(Math.floor(count), max);
}
