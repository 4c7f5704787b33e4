/**
 * The cost of a task in integer units of 0.0001 CNY (spec §1, docs/money-and-ledger.md, "Minor units", "Pricing"): per_second is
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

export function costUnits(model: VideoModel, request: PricedRequest): number {
  const { pricing } = model;
  if (model.record.billing_mode === 'per_call') {
    return Number(multiplyUnits(BigInt(pricing.pricePerCallUnits), pricing.qualityMultiplier));
  }
  const multiplier = pricing.resolutionMultipliers[request.resolution];
  if (!multiplier || isZero(multiplier))
    throw new UnpricedResolutionError(`${model.record.name} has no price for ${request.resolution}`);
  const base = multiplyUnits(BigInt(pricing.pricePerSecondUnits) * BigInt(request.durationSeconds), multiplier);
  const audio = request.generateAudio ? BigInt(pricing.audioExtraUnits) : 0n;
  const materials =
    BigInt(pricing.materialSurchargeUnits) * BigInt(request.videoReferenceCount + request.audioReferenceCount);
  return Number(base + audio + materials);
}
