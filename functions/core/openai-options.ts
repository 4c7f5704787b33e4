/**
 * OpenAI's `seconds` and `size` read against one of our models (docs/openai-videos.md, "Options"): what the
 * model takes is said in OpenAI's terms, and a refusal names the field and every value it may be.
 */
import { MIN_DURATION_SECONDS } from './generation-options.js';
import type { Ratio, Resolution } from './generation-options.js';
import { OpenAiParamError } from './openai-error.js';
import { sizeOf } from './openai-video.js';
import type { ImageMode } from './provider-contract.js';
import { supportedResolutions } from './video-model.js';
import type { VideoModel } from './video-model.js';

/** The durations the model makes, as OpenAI's strings: its one fixed duration, or each whole second allowed. */
export function secondsOf(model: VideoModel): string[] {
  const fixed = model.record.fixed_duration;
  if (fixed !== undefined) return [String(fixed)];
  const min = Math.max(MIN_DURATION_SECONDS, model.upstream.durationSeconds.min);
  const max = model.record.max_duration;
  return Array.from({ length: max - min + 1 }, (_, index) => String(min + index));
}

/** Every size the model makes: each resolution it takes and prices, in each ratio it takes. */
export function sizesOf(
  model: VideoModel,
  imageMode?: ImageMode,
): Map<string, { resolution: Resolution; ratio: Ratio }> {
  const sizes = new Map<string, { resolution: Resolution; ratio: Ratio }>();
  for (const resolution of supportedResolutions(model, imageMode)) {
    for (const ratio of model.upstream.ratios) sizes.set(sizeOf(resolution, ratio), { resolution, ratio });
  }
  return sizes;
}

/**
 * The native request's duration for `seconds`: absent when not sent (the shortest the model makes, as OpenAI
 * defaults to its shortest) or when the model makes one fixed duration (priced as such whatever is sent).
 */
export function durationFor(seconds: string | undefined, model: VideoModel): number | undefined {
  const allowed = secondsOf(model);
  if (seconds !== undefined && !allowed.includes(seconds)) {
    throw new OpenAiParamError(
      'seconds',
      `seconds ${JSON.stringify(seconds)} is not made by ${model.record.name}: send one of ${describe(allowed)}`,
    );
  }
  if (model.record.fixed_duration !== undefined) return undefined;
  return Number(seconds ?? allowed[0]);
}

/** The native resolution and ratio for `size`; absent when not sent (the model's defaults). */
export function optionsForSize(
  size: string | undefined,
  model: VideoModel,
  imageMode?: ImageMode,
): { resolution: Resolution; ratio: Ratio } | undefined {
  if (size === undefined) return undefined;
  const sizes = sizesOf(model, imageMode);
  const found = sizes.get(size.trim().toLowerCase());
  if (!found) {
    const image = imageMode ? ' with an input_reference' : '';
    throw new OpenAiParamError(
      'size',
      `size ${JSON.stringify(size)} is not made by ${model.record.name}${image}: send one of ${[...sizes.keys()].join(', ')}`,
    );
  }
  return found;
}

/** "5, 6, … 12" reads worse than a range: consecutive whole seconds are said as one. */
function describe(seconds: string[]): string {
  if (seconds.length <= 2) return seconds.map((s) => `"${s}"`).join(', ');
  return `"${seconds[0]}" to "${seconds[seconds.length - 1]}" (whole seconds, as a string)`;
}
