/**
 * Applies the chosen model to a parsed body: defaults (docs/api-contract.md, "Defaults and bounds"), the limits of the model's
 * upstream contract (docs/api-contract.md, "References": input modes, counts, durations, resolutions, ratios, audio) and the price.
 * Whatever passes here is a request the upstream accepts; anything else is a 400 naming the rule.
 */
import { InvalidRequestError } from './api-error.js';
import type { ImageMode } from './provider-contract.js';
import type { GenerationBody, GenerationFields } from './generation-request.js';
import type { Ratio, Resolution } from './generation-options.js';
import { MIN_DURATION_SECONDS } from './generation-options.js';
import { costParts, sumOfParts } from './pricing.js';
import type { CostParts } from './pricing.js';
import { checkReferences } from './reference-rules.js';
import { supportedResolutions } from './video-model.js';
import type { VideoModel } from './video-model.js';

const FORM_DEFAULT_DURATION = { A: 15, B: 5 } as const;
/** The spec's duration bounds per form (§4.1); a per_call model checks only these (docs/api-contract.md, "Defaults and bounds"). */
const FORM_MAX_DURATION = { A: 15, B: 30 } as const;
const DEFAULT_RESOLUTION: Resolution = '720p';
const DEFAULT_RATIO: Ratio = '16:9';

/** The body's fields with the model's defaults filled in, the model named, and the price. */
export interface ResolvedGeneration extends GenerationFields {
  modelId: string;
  modelName: string;
  resolution: Resolution;
  ratio: Ratio;
  durationSeconds: number;
  generateAudio: boolean;
  /** The images' role upstream; absent when there are no images. */
  imageMode?: ImageMode;
  costUnits: number;
  /** The cost's parts (stored with the task, so its view shows them as charged); absent on older tasks. */
  costParts?: CostParts;
}

export function resolveGeneration(body: GenerationBody, model: VideoModel): ResolvedGeneration {
  const { record, upstream } = model;
  if (record.status !== 'active') throw new InvalidRequestError(`model ${record.name} is not active`);

  const durationSeconds = resolveDuration(body, model);
  const imageMode = checkReferences(body, model);
  const resolution = resolveResolution(body, model, imageMode);
  // The default is 16:9 unless the model cannot make it; then the model's first ratio.
  const ratio = body.ratio ?? (upstream.ratios.includes(DEFAULT_RATIO) ? DEFAULT_RATIO : upstream.ratios[0]);
  if (ratio === undefined || !upstream.ratios.includes(ratio)) {
    throw new InvalidRequestError(
      `ratio ${JSON.stringify(ratio)} is not supported by ${record.name}: use one of ${upstream.ratios.join(', ')}`,
    );
  }
  if (body.generateAudio && !upstream.audio) {
    throw new InvalidRequestError(`model ${record.name} does not generate audio: leave generate_audio out`);
  }
  const generateAudio = body.generateAudio ?? upstream.audio;

  const parts = costParts(model, {
    resolution,
    durationSeconds,
    generateAudio,
    videoReferenceCount: body.videoUrls.length,
    audioReferenceCount: body.audioUrls.length,
  });
  // Fields the model has no say in pass through as sent.
  const { form: _form, model: _model, fieldNames: _fieldNames, imageMode: _imageMode, ...fields } = body;
  return {
    ...fields,
    ...(imageMode === undefined ? {} : { imageMode }),
    modelId: record.id,
    modelName: record.name,
    resolution,
    ratio,
    durationSeconds,
    generateAudio,
    costUnits: sumOfParts(parts),
    costParts: parts,
  };
}

function resolveDuration(body: GenerationBody, model: VideoModel): number {
  const { record } = model;
  // docs/api-contract.md, "Defaults and bounds": a per_call model makes its one fixed duration whatever was sent, so the duration sent
  // is held only to its form's bounds (the interface's rule: it "must still be sent, but it does not change the cost").
  const fixed = record.fixed_duration;
  const max = fixed === undefined ? record.max_duration : FORM_MAX_DURATION[body.form];
  const sent = body.durationSeconds;
  // Any value sent is checked here, its type too (generation-request.ts leaves it to the model).
  if (sent !== undefined && !(Number.isInteger(sent) && sent >= MIN_DURATION_SECONDS && sent <= max)) {
    const always = fixed === undefined ? '' : ` (it always makes a ${fixed} s video)`;
    throw new InvalidRequestError(
      `duration must be a whole number of seconds from ${MIN_DURATION_SECONDS} to ${max} for ${record.name}${always}`,
    );
  }
  if (fixed !== undefined) return fixed;
  return body.durationSeconds ?? Math.min(FORM_DEFAULT_DURATION[body.form], record.max_duration);
}

function resolveResolution(body: GenerationBody, model: VideoModel, imageMode: ImageMode | undefined): Resolution {
  const supported = supportedResolutions(model, imageMode);
  const fallback = model.record.default_resolution ?? DEFAULT_RESOLUTION;
  const resolution = body.resolution ?? (supported.includes(fallback) ? fallback : supported[0]);
  if (resolution === undefined || !supported.includes(resolution)) {
    const mode = imageMode === 'reference' ? ' with reference images' : '';
    throw new InvalidRequestError(
      `resolution ${JSON.stringify(resolution ?? fallback)} is not supported by ${model.record.name}${mode}: use one of ${supported.join(', ')}`,
    );
  }
  return resolution;
}
