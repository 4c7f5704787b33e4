/** GET /api/v1/models (docs/api-contract.md, "Routes", "Models that come and go"): every model with its pricing in yuan, its lifecycle and what it accepts (additive). */
import { decimalToNumber } from '../decimal.js';
import { MIN_DURATION_SECONDS, RESOLUTIONS } from '../generation-options.js';
import type { Resolution } from '../generation-options.js';
import { unitsToYuan } from '../money.js';
import { phaseOf, retiredAt } from '../model-lifecycle.js';
import type { ModelCatalog } from '../ports/model-catalog.js';
import { lifecycleOf, offeredOnPlatform, referenceKinds, supportedResolutions } from '../video-model.js';
import type { VideoModel } from '../video-model.js';

export async function listModels(models: ModelCatalog, now = new Date()) {
  // A model its platform retired is not offered on this stack at all (docs/api-contract.md, "Models that come and go").
  const all = (await models.list()).filter((model) => offeredOnPlatform(model, now));
  return all.sort((a, b) => a.record.name.localeCompare(b.record.name)).map((model) => toModelView(model, now));
}

export function toModelView(model: VideoModel, now = new Date()) {
  const { record, pricing, upstream } = model;
  const lifecycle = lifecycleOf(model);
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
    lifecycle: phaseOf(lifecycle, now),
    deprecated_at: lifecycle.deprecated_at ?? null,
    sunset_at: retiredAt(lifecycle) ?? null,
    replacement: lifecycle.replacement ?? null,
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
    supported_resolutions: supportedResolutions(model),
    ratios: [...upstream.ratios],
    reference_kinds: referenceKinds(model),
    supports_audio: upstream.audio,
    capabilities: capabilitiesOf(model),
    priced_options: pricedOptions(model, multipliers),
  };
}

/** An option that changes the cost: its default when left out, and what it adds (docs/money-and-ledger.md, "Pricing"). */
export interface PricedOption {
  option: 'resolution' | 'duration' | 'generate_audio' | 'video_urls' | 'audio_urls';
  default: string | number | boolean | null;
  cost: string;
}

/** Which options cost extra, and their defaults: what a customer needs to know before a submit's price surprises. */
function pricedOptions(model: VideoModel, multipliers: Record<Resolution, number>): PricedOption[] {
  const { record, pricing, upstream } = model;
  const resolution = record.default_resolution ?? '720p';
  const made = supportedResolutions(model).map((name) => `${name} × ${multipliers[name]}`);
  if (record.billing_mode === 'per_call') {
    const quality = decimalToNumber(pricing.qualityMultiplier);
    const each = `${unitsToYuan(pricing.pricePerCallUnits)} CNY × ${quality} per task, whatever the duration`;
    return [{ option: 'resolution', default: resolution, cost: each }];
  }
  const perSecond = unitsToYuan(pricing.pricePerSecondUnits);
  const options: PricedOption[] = [
    { option: 'resolution', default: resolution, cost: `multiplies the price: ${made.join(', ')}` },
    {
      option: 'duration',
      default: Math.min(15, record.max_duration),
      cost: `${perSecond} CNY per second × the resolution's multiplier; the default is 5 in Form B`,
    },
  ];
  if (upstream.audio && pricing.audioExtraUnits > 0) {
    const extra = unitsToYuan(pricing.audioExtraUnits);
    options.push({ option: 'generate_audio', default: true, cost: `+${extra} CNY when true (the default)` });
  }
  if (pricing.materialSurchargeUnits > 0) {
    const each = `+${unitsToYuan(pricing.materialSurchargeUnits)} CNY per URL`;
    if (upstream.maxVideos > 0) options.push({ option: 'video_urls', default: null, cost: each });
    if (upstream.maxAudios > 0) options.push({ option: 'audio_urls', default: null, cost: each });
  }
  return options;
}

/** What the model accepts, from its upstream's documented contract (docs/api-contract.md, "References"). */
function capabilitiesOf(model: VideoModel) {
  const { record, upstream } = model;
  const referenceMode = upstream.imageModes.includes('reference');
  return {
    text_to_video: upstream.textOnly,
    image_modes: [...upstream.imageModes],
    default_image_mode: upstream.imageModes[0] ?? null,
    reference_images: referenceMode ? upstream.referenceImages : null,
    max_videos: upstream.maxVideos,
    max_audios: upstream.maxAudios,
    max_reference_items: upstream.maxReferenceItems,
    audio_needs_image_or_video: upstream.audioNeedsVisual,
    duration: record.fixed_duration
      ? { min: record.fixed_duration, max: record.fixed_duration, fixed: true }
      : { min: Math.max(MIN_DURATION_SECONDS, upstream.durationSeconds.min), max: record.max_duration, fixed: false },
    resolutions: supportedResolutions(model),
    reference_resolutions: referenceMode ? supportedResolutions(model, 'reference') : null,
    ratios: [...upstream.ratios],
    generate_audio: upstream.audio,
  };
}
