/**
 * The cost of a task in integer units of 0.0001 CNY (docs/money-and-ledger.md, "Minor units", "Pricing"): per_second is
 * price × duration × multiplier[resolution] + audio_extra + material_surcharge × references; per_call is
 * price_per_call × quality_multiplier. Each product is rounded half up once, at its decimal multiplication.
 */
import { isZero, multiplyUnits } from './decimal.js';
import type { Resolution } from './generation-options.js';
import type { VideoModel } from './video-model.js';
import { namedError } from './named-error.js';

export interface PricedRequest {
  resolution: Resolution;
  durationSeconds: number;
  generateAudio: boolean;
  videoReferenceCount: number;
  audioReferenceCount: number;
}

export class UnpricedResolutionError extends namedError('UnpricedResolutionError') {}

/**
 * The cost's parts, in units, adding up to the cost exactly: `base` is the price at multiplier 1 (price per
 * second × duration, or the price per call), `resolution` what the resolution's (or quality's) multiplier adds
 * (negative below 1), `audio` the audio extra, `surcharges` the per-reference material surcharge.
 */
export interface CostParts {
  baseUnits: number;
  resolutionUnits: number;
  audioUnits: number;
  surchargeUnits: number;
}

export function costParts(model: VideoModel, request: PricedRequest): CostParts {
  const { pricing } = model;
  if (model.record.billing_mode === 'per_call') {
    const base = BigInt(pricing.pricePerCallUnits);
    const priced = multiplyUnits(base, pricing.qualityMultiplier);
    return { baseUnits: Number(base), resolutionUnits: Number(priced - base), audioUnits: 0, surchargeUnits: 0 };
  }
  const multiplier = pricing.resolutionMultipliers[request.resolution];
  if (!multiplier || isZero(multiplier))
    throw new UnpricedResolutionError(`${model.record.name} has no price for ${request.resolution}`);
  const base = BigInt(pricing.pricePerSecondUnits) * BigInt(request.durationSeconds);
  const priced = multiplyUnits(base, multiplier);
  const audio = request.generateAudio ? BigInt(pricing.audioExtraUnits) : 0n;
  const materials =
    BigInt(pricing.materialSurchargeUnits) * BigInt(request.videoReferenceCount + request.audioReferenceCount);
  return {
    baseUnits: Number(base),
    resolutionUnits: Number(priced - base),
    audioUnits: Number(audio),
    surchargeUnits: Number(materials),
  };
}

export function costUnits(model: VideoModel, request: PricedRequest): number {
  return sumOfParts(costParts(model, request));
}

export function sumOfParts(parts: CostParts): number {
  return parts.baseUnits + parts.resolutionUnits + parts.audioUnits + parts.surchargeUnits;
}
