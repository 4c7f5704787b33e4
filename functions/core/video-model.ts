/**
 * A model of the catalog: what it costs, what it accepts, and which upstream runs it.
 * The catalog is data (a versioned JSON file seeded into the models table); this schema is its contract.
 */
import * as v from 'valibot';
import { type Decimal, isZero, parseDecimal } from './decimal.js';
import {
  MAX_DURATION_SECONDS,
  MIN_DURATION_SECONDS,
  RATIOS,
  REFERENCE_KINDS,
  RESOLUTIONS,
} from './generation-options.js';
import type { Ratio, ReferenceKind, Resolution } from './generation-options.js';
import { yuanToUnits } from './money.js';
import { PROVIDER_NAMES } from './providers.js';

const yuanText = v.pipe(v.string(), v.regex(/^\d{1,9}(\.\d{1,4})?$/, 'an amount in yuan with at most 4 decimals'));
const decimalText = v.pipe(v.string(), v.regex(/^\d{1,9}(\.\d{1,6})?$/, 'a non-negative decimal'));
const uuid = v.pipe(v.string(), v.uuid());

export const VideoModelRecordSchema = v.object({
  id: uuid,
  name: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9.-]*$/)),
  display_name: v.string(),
  description: v.nullable(v.string()),
  status: v.picklist(['active', 'inactive']),
  billing_mode: v.picklist(['per_second', 'per_call']),
  pricing: v.object({
    price_per_call: yuanText,
    price_per_second: yuanText,
    resolution_multipliers: v.record(v.picklist(RESOLUTIONS), decimalText),
    audio_extra: yuanText,
    /** Per reference video or audio (DESIGN §3 row 14); "0" when the model has none. */
    material_surcharge: yuanText,
    /** per_call only (DESIGN §3 row 14). */
    quality_multiplier: decimalText,
  }),
  max_duration: v.pipe(v.number(), v.integer(), v.minValue(MIN_DURATION_SECONDS), v.maxValue(MAX_DURATION_SECONDS)),
  /** per_call: the one duration the model makes, whatever was asked. */
  fixed_duration: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_DURATION_SECONDS))),
  default_resolution: v.optional(v.picklist(RESOLUTIONS)),
  /** per_call: the resolutions allowed (spec: "the allowed resolutions may be restricted"). */
  allowed_resolutions: v.optional(v.array(v.picklist(RESOLUTIONS))),
  ratios: v.array(v.picklist(RATIOS)),
  reference_kinds: v.array(v.picklist(REFERENCE_KINDS)),
  supports_audio: v.boolean(),
  /** The longest a generation may take before the task fails as timed out (issue 4: default 1 h). */
  // At most 6 h: with polls capped at 60 s that is ~360 polls, far under Step Functions' 25,000 events.
  max_generation_seconds: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(21_600)),
  upstream: v.object({ provider: v.picklist(PROVIDER_NAMES), model: v.string() }),
});
export type VideoModelRecord = v.InferOutput<typeof VideoModelRecordSchema>;

export interface ModelPricing {
  pricePerCallUnits: number;
  pricePerSecondUnits: number;
  resolutionMultipliers: Partial<Record<Resolution, Decimal>>;
  audioExtraUnits: number;
  materialSurchargeUnits: number;
  qualityMultiplier: Decimal;
}

export interface VideoModel {
  record: VideoModelRecord;
  pricing: ModelPricing;
}

export function toVideoModel(input: unknown): VideoModel {
  const record = v.parse(VideoModelRecordSchema, input);
  const multipliers: Partial<Record<Resolution, Decimal>> = {};
  for (const [resolution, text] of Object.entries(record.pricing.resolution_multipliers)) {
    multipliers[resolution as Resolution] = parseDecimal(text);
  }
  return {
    record,
    pricing: {
      pricePerCallUnits: yuanToUnits(record.pricing.price_per_call),
      pricePerSecondUnits: yuanToUnits(record.pricing.price_per_second),
      resolutionMultipliers: multipliers,
      audioExtraUnits: yuanToUnits(record.pricing.audio_extra),
      materialSurchargeUnits: yuanToUnits(record.pricing.material_surcharge),
      qualityMultiplier: parseDecimal(record.pricing.quality_multiplier),
    },
  };
}

/** Resolutions a request may pick: multiplier present and non-zero, and inside a per_call model's list. */
export function supportedResolutions(model: VideoModel): Resolution[] {
  const allowed = model.record.allowed_resolutions;
  return RESOLUTIONS.filter((resolution) => {
    // A multiplier of 0 (or none) means unsupported (spec §2), whatever the billing mode.
    const multiplier = model.pricing.resolutionMultipliers[resolution];
    const priced = multiplier !== undefined && !isZero(multiplier);
    return priced && (allowed === undefined || allowed.includes(resolution));
  });
}

export function acceptsReference(model: VideoModel, kind: ReferenceKind): boolean {
  return model.record.reference_kinds.includes(kind);
}

export function supportsRatio(model: VideoModel, ratio: Ratio): boolean {
  return model.record.ratios.includes(ratio);
}
