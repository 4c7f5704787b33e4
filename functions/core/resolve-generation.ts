/**
 * Applies the chosen model to a parsed body: defaults (DESIGN §3 rows 3–5), the model's limits
 * (duration, resolutions, ratios, reference kinds, audio) and the price.
 */
import { InvalidRequestError } from './api-error.js';
import type { GenerationBody, GenerationFields } from './generation-request.js';
import type { Ratio, ReferenceKind, Resolution } from './generation-options.js';
import { MIN_DURATION_SECONDS } from './generation-options.js';
import { costUnits } from './pricing.js';
import { acceptsReference, supportedResolutions, supportsRatio } from './video-model.js';
import type { VideoModel } from './video-model.js';

const FORM_DEFAULT_DURATION = { A: 15, B: 5 } as const;
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
  costUnits: number;
}

export function resolveGeneration(body: GenerationBody, model: VideoModel): ResolvedGeneration {
  const { record } = model;
  if (record.status !== 'active') throw new InvalidRequestError(`model ${record.name} is not active`);

  const durationSeconds = resolveDuration(body, model);
  const resolution = resolveResolution(body, model);
  // The default is 16:9 unless the model cannot make it; then the model's first ratio.
  const ratio =
    body.ratio ?? (supportsRatio(model, DEFAULT_RATIO) ? DEFAULT_RATIO : (record.ratios[0] ?? DEFAULT_RATIO));
  if (!supportsRatio(model, ratio)) {
    throw new InvalidRequestError(`ratio ${ratio} is not supported by ${record.name}: use ${record.ratios.join(', ')}`);
  }
  checkReferences(body, model);
  if (body.generateAudio && !record.supports_audio) {
    throw new InvalidRequestError(`model ${record.name} does not generate audio`);
  }
  const generateAudio = body.generateAudio ?? record.supports_audio;

  // Fields the model has no say in pass through as sent.
  const { form: _form, model: _model, fieldNames: _fieldNames, ...fields } = body;
  return {
    ...fields,
    modelId: record.id,
    modelName: record.name,
    resolution,
    ratio,
    durationSeconds,
    generateAudio,
    costUnits: costUnits(model, {
      resolution,
      durationSeconds,
      generateAudio,
      videoReferenceCount: body.videoUrls.length,
      audioReferenceCount: body.audioUrls.length,
    }),
  };
}

function resolveDuration(body: GenerationBody, model: VideoModel): number {
  const { record } = model;
  // DESIGN §3 row 3: 5 ≤ d ≤ the model's max_duration for every model; a per_call model then makes its
  // one fixed duration whatever was sent (and the cost does not depend on it).
  if (body.durationSeconds !== undefined && body.durationSeconds > record.max_duration) {
    throw new InvalidRequestError(
      `duration must be between ${MIN_DURATION_SECONDS} and ${record.max_duration} seconds for ${record.name}`,
    );
  }
  if (record.fixed_duration !== undefined) return record.fixed_duration;
  return body.durationSeconds ?? Math.min(FORM_DEFAULT_DURATION[body.form], record.max_duration);
}

function resolveResolution(body: GenerationBody, model: VideoModel): Resolution {
  const supported = supportedResolutions(model);
  const fallback = model.record.default_resolution ?? DEFAULT_RESOLUTION;
  const resolution = body.resolution ?? (supported.includes(fallback) ? fallback : supported[0]);
  if (resolution === undefined || !supported.includes(resolution)) {
    throw new InvalidRequestError(
      `resolution ${resolution ?? fallback} is not supported by ${model.record.name}: use ${supported.join(', ')}`,
    );
  }
  return resolution;
}

function checkReferences(body: GenerationBody, model: VideoModel): void {
  const given: [ReferenceKind, number][] = [
    ['image', body.imageUrls.length],
    ['video', body.videoUrls.length],
    ['audio', body.audioUrls.length],
  ];
  for (const [kind, count] of given) {
    if (count > 0 && !acceptsReference(model, kind)) {
      const accepted = model.record.reference_kinds.join(', ') || 'none';
      throw new InvalidRequestError(`${model.record.name} does not accept ${kind} references (accepted: ${accepted})`);
    }
  }
}
