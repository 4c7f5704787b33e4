/** GET /api/v1/models (spec §4.4): every model with its pricing in yuan, plus what it accepts (additive). */
import { decimalToNumber } from '../decimal.js';
import { RESOLUTIONS } from '../generation-options.js';
import type { Resolution } from '../generation-options.js';
import { unitsToYuan } from '../money.js';
import type { ModelCatalog } from '../ports/model-catalog.js';
import { supportedResolutions } from '../video-model.js';
import type { VideoModel } from '../video-model.js';

export async function listModels(models: ModelCatalog) {
  const all = await models.list();
  return all.sort((a, b) => a.record.name.localeCompare(b.record.name)).map(toModelView);
}

export function toModelView({ record, pricing }: VideoModel) {
  const multipliers = Object.fromEntries(
    RESOLUTIONS.map((resolution) => {
      const multiplier = pricing.resolutionMultipliers[resolution];
      return [resolution, multiplier ? decimalToNumber(multiplier) : 0];
    }),
  ) as Record<Resolution, number>;
  return {
    id: record.id,
    name: record.name,
    display_name: record.display_name,
    description: record.description,
    status: record.status,
    billing_mode: record.billing_mode,
    pricing: {
      price_per_call: unitsToYuan(pricing.pricePerCallUnits),
      price_per_second: unitsToYuan(pricing.pricePerSecondUnits),
      resolution_multipliers: multipliers,
      audio_extra: unitsToYuan(pricing.audioExtraUnits),
      material_surcharge: unitsToYuan(pricing.materialSurchargeUnits),
      quality_multiplier: decimalToNumber(pricing.qualityMultiplier),
      currency: 'CNY',
    },
    max_duration: record.max_duration,
    fixed_duration: record.fixed_duration ?? null,
    default_resolution: record.default_resolution ?? '720p',
    supported_resolutions: supportedResolutions({ record, pricing }),
    ratios: record.ratios,
    reference_kinds: record.reference_kinds,
    supports_audio: record.supports_audio,
  };
}
