/**
 * A model of the catalog: what it costs and which upstream model runs it. What it accepts comes from
 * that upstream model's documented contract (docs/api-contract.md, "References"; docs/providers/ark.md); the record may only narrow it
 * (priced resolutions, max_duration). The catalog is data (lib/ship/seed/model-catalog.json).
 */
import * as v from 'valibot';
import { type Decimal, isZero, parseDecimal } from './decimal.js';
import { MAX_DURATION_SECONDS, MIN_DURATION_SECONDS, REFERENCE_KINDS, RESOLUTIONS } from './generation-options.js';
import type { ReferenceKind, Resolution } from './generation-options.js';
import { lifecycleOn, retiredOnPlatform } from './model-lifecycle.js';
import { modelOf } from './provider-contract.js';
import type { ImageMode, ProviderContract, UpstreamModel } from './provider-contract.js';
import { yuanToUnits } from './money.js';
import { namedError } from './named-error.js';

const yuanText = v.pipe(v.string(), v.regex(/^\d{1,9}(\.\d{1,4})?$/, 'an amount in yuan with at most 4 decimals'));
const decimalText = v.pipe(v.string(), v.regex(/^\d{1,9}(\.\d{1,6})?$/, 'a non-negative decimal'));
const uuid = v.pipe(v.string(), v.uuid());
const isoTime = v.pipe(v.string(), v.isoTimestamp());
const modelName = v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9.-]*$/));

export const VideoModelRecordSchema = v.object({
  id: uuid,
  name: modelName,
  display_name: v.string(),
  description: v.nullable(v.string()),
  status: v.picklist(['active', 'inactive']),
  billing_mode: v.picklist(['per_second', 'per_call']),
  pricing: v.object({
    price_per_call: yuanText,
    price_per_second: yuanText,
    resolution_multipliers: v.record(v.picklist(RESOLUTIONS), decimalText),
    audio_extra: yuanText,
    /** Per reference video or audio (docs/money-and-ledger.md, "Pricing"); "0" when the model has none. */
    material_surcharge: yuanText,
    /** per_call only (docs/money-and-ledger.md, "Pricing"). */
    quality_multiplier: decimalText,
  }),
  max_duration: v.pipe(v.number(), v.integer(), v.minValue(MIN_DURATION_SECONDS), v.maxValue(MAX_DURATION_SECONDS)),
  /** per_call: the one duration the model makes, whatever was asked. */
  fixed_duration: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_DURATION_SECONDS))),
  default_resolution: v.optional(v.picklist(RESOLUTIONS)),
  /** per_call: the resolutions allowed (spec: "the allowed resolutions may be restricted"). */
  allowed_resolutions: v.optional(v.array(v.picklist(RESOLUTIONS))),
  /** The longest a generation may take before the task fails as timed out (docs/task-lifecycle.md, "Deadlines": default 1 h). */
  // At most 6 h: with polls capped at 60 s that is ~360 polls, far under Step Functions' 25,000 events.
  max_generation_seconds: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(21_600)),
  /** `provider`: a name in functions/providers/registry.ts; `model`: a key of its contract, not a platform id. */
  upstream: v.object({ provider: v.pipe(v.string(), v.minLength(1)), model: v.string() }),
  /** The lifecycle (functions/core/model-lifecycle.ts): set by the operator, `models:deprecate` and `models:retire`. */
  deprecated_at: v.optional(isoTime),
  sunset_at: v.optional(isoTime),
  retired_at: v.optional(isoTime),
  /** The model to move to, named in /models and in the refusal of a retired one. */
  replacement: v.optional(modelName),
  /**
   * Per upstream platform (a key of the provider's `platforms`): the dates of a platform that retires the model
   * alone, as BytePlus retired Seedance 1.0 lite (docs/providers/ark.md, "Models per platform"). `models:retire
   * --platform` and the other lifecycle commands write it.
   */
  platform_lifecycle: v.optional(
    v.record(
      v.string(),
      v.object({
        deprecated_at: v.optional(isoTime),
        sunset_at: v.optional(isoTime),
        retired_at: v.optional(isoTime),
        replacement: v.optional(modelName),
      }),
    ),
  ),
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
  /** The upstream model's documented contract: what the gateway lets through. */
  upstream: UpstreamModel;
  /** The platform of its provider this stack calls (`<PREFIX>_PLATFORM`); unknown: only the model's own dates count. */
  platform?: string;
}

export class InvalidModelRecordError extends namedError('InvalidModelRecordError') {}

/** A catalog record read against the contracts of the providers it may name (the registry's, by name). */
export function toVideoModel(
  input: unknown,
  providers: Readonly<Record<string, ProviderContract>>,
  platforms: Readonly<Partial<Record<string, string>>> = {},
): VideoModel {
  const record = v.parse(VideoModelRecordSchema, input);
  const platform = platforms[record.upstream.provider];
  const multipliers: Partial<Record<Resolution, Decimal>> = {};
  for (const [resolution, text] of Object.entries(record.pricing.resolution_multipliers)) {
    multipliers[resolution as Resolution] = parseDecimal(text);
  }
  const upstream = checkAgainstUpstream(record, multipliers, providers);
  return {
    record,
    upstream,
    ...(platform === undefined ? {} : { platform }),
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

/** A record may only narrow its upstream model: a wider promise would sell what the upstream refuses. */
function checkAgainstUpstream(
  record: VideoModelRecord,
  multipliers: Partial<Record<Resolution, Decimal>>,
  providers: Readonly<Record<string, ProviderContract>>,
): UpstreamModel {
  const { provider, model } = record.upstream;
  const fail = (why: string) => new InvalidModelRecordError(`model ${record.name}: ${why}`);
  const contract = Object.hasOwn(providers, provider) ? providers[provider] : undefined;
  if (!contract) throw fail(`unknown provider "${provider}" (one of ${Object.keys(providers).join(', ')})`);
  const upstream = modelOf(contract, model);
  if (!upstream) throw fail(`${provider} has no model "${model}" (see functions/providers/${provider}/)`);
  const strange = Object.keys(record.platform_lifecycle ?? {}).filter(
    (name) => !Object.hasOwn(contract.platforms, name),
  );
  if (strange.length > 0) throw fail(`${provider} has no platform ${strange.join(', ')}`);
  if (record.max_duration > upstream.durationSeconds.max) {
    throw fail(`max_duration ${record.max_duration} is above ${model}'s ${upstream.durationSeconds.max} s`);
  }
  const fixed = record.fixed_duration;
  if (fixed !== undefined && (fixed < upstream.durationSeconds.min || fixed > upstream.durationSeconds.max)) {
    throw fail(
      `fixed_duration ${fixed} is outside ${model}'s ${upstream.durationSeconds.min}–${upstream.durationSeconds.max} s`,
    );
  }
  const unknown = RESOLUTIONS.filter((resolution) => {
    const multiplier = multipliers[resolution];
    return multiplier !== undefined && !isZero(multiplier) && !upstream.resolutions.includes(resolution);
  });
  if (unknown.length > 0) throw fail(`${model} does not make ${unknown.join(', ')}: price it 0`);
  return upstream;
}

/** The model's lifecycle on this stack's platform (functions/core/model-lifecycle.ts). */
export function lifecycleOf(model: VideoModel) {
  return lifecycleOn(model.record, model.platform);
}

/**
 * Whether this stack offers the model: not when its platform retired it alone, nor when the upstream's contract
 * names no id for it there. A model retired everywhere is still listed, as retired.
 */
export function offeredOnPlatform(model: VideoModel, now: Date): boolean {
  if (model.platform === undefined) return true;
  return model.upstream.ids[model.platform] !== undefined && !retiredOnPlatform(model.record, model.platform, now);
}

/** Resolutions a request may pick: the upstream makes it, it is priced (non-zero), and a per_call list allows it. */
export function supportedResolutions(model: VideoModel, imageMode?: ImageMode): Resolution[] {
  const allowed = model.record.allowed_resolutions;
  const made = (imageMode === 'reference' && model.upstream.referenceResolutions) || model.upstream.resolutions;
  return RESOLUTIONS.filter((resolution) => {
    // A multiplier of 0 (or none) means unsupported (docs/money-and-ledger.md, "Pricing"), whatever the billing mode.
    const multiplier = model.pricing.resolutionMultipliers[resolution];
    const priced = multiplier !== undefined && !isZero(multiplier);
    return priced && made.includes(resolution) && (allowed === undefined || allowed.includes(resolution));
  });
}

/** The reference kinds the model takes (images in any mode; videos and audios as references). */
export function referenceKinds(model: VideoModel): ReferenceKind[] {
  const { imageModes, maxVideos, maxAudios } = model.upstream;
  return REFERENCE_KINDS.filter((kind) =>
    kind === 'image' ? imageModes.length > 0 : (kind === 'video' ? maxVideos : maxAudios) > 0,
  );
}
