/**
 * The simulator's own reading of what Model Studio's Wan 2.7 create refuses (docs/providers/model-studio.md,
 * "Create body"), independent of functions/: models per region, media types per model and their counts,
 * resolution, ratio, duration, seed. A refusal is 400 `InvalidParameter`, as DashScope answers.
 */
import { DashScopeError } from './http.js';

export type Region = 'beijing' | 'singapore';

interface ModelRules {
  /** Media types taken, with the most of each; none: text (and an optional `audio_url`) only. */
  media: Readonly<Record<string, number>>;
  /** Images and videos together, when the model takes references. */
  maxReferences?: number;
  audioUrl: boolean;
  ratios: readonly string[] | 'from-image';
  /** Seconds; reference-to-video with a reference video stops at 10. */
  duration: { min: number; max: number; maxWithVideo?: number };
}

const RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4'];

const MODELS: Readonly<Record<string, ModelRules>> = {
  'wan2.7-t2v': { media: {}, audioUrl: true, ratios: RATIOS, duration: { min: 2, max: 15 } },
  'wan2.7-i2v': {
    media: { first_frame: 1, last_frame: 1, driving_audio: 1, first_clip: 1 },
    audioUrl: false,
    ratios: 'from-image',
    duration: { min: 2, max: 15 },
  },
  'wan2.7-r2v': {
    media: { reference_image: 5, reference_video: 5 },
    maxReferences: 5,
    audioUrl: false,
    ratios: RATIOS,
    duration: { min: 2, max: 15, maxWithVideo: 10 },
  },
};

/** Both regions list the three models (price list: mainland China and international). */
const REGION_MODELS: Readonly<Record<Region, readonly string[]>> = {
  beijing: Object.keys(MODELS),
  singapore: Object.keys(MODELS),
};

const RESOLUTIONS = ['720P', '1080P'];
const MAX_SEED = 2_147_483_647;

export interface CheckedCreate {
  model: string;
  prompt: string;
  resolution: string;
  duration: number;
}

const invalid = (message: string) => new DashScopeError(400, 'InvalidParameter', message);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isHttpUrl = (value: unknown): value is string => typeof value === 'string' && /^https?:\/\/\S+$/.test(value);

export function checkCreate(body: unknown, region: Region): CheckedCreate {
  if (!isRecord(body)) throw invalid('The request body must be a JSON object.');
  const { model, input, parameters = {} } = body;
  if (typeof model !== 'string' || model === '') throw invalid('Model not specified.');
  const rules = MODELS[model];
  if (rules === undefined || !REGION_MODELS[region].includes(model)) {
    throw new DashScopeError(404, 'ModelNotFound', `Model not exist: ${model} in this region.`);
  }
  if (!isRecord(input)) throw invalid('input must be an object.');
  if (!isRecord(parameters)) throw invalid('parameters must be an object.');
  const { prompt } = input;
  if (prompt !== undefined && typeof prompt !== 'string') throw invalid('input.prompt must be a string.');
  const media = checkMedia(input.media, rules, model);
  if (model === 'wan2.7-t2v' && (prompt ?? '').trim() === '') throw invalid('input.prompt is required.');
  if (input.audio_url !== undefined && (!rules.audioUrl || !isHttpUrl(input.audio_url))) {
    throw invalid(
      rules.audioUrl ? 'input.audio_url must be an http(s) URL.' : `${model} does not take input.audio_url.`,
    );
  }
  const resolution = parameters.resolution ?? '1080P';
  if (typeof resolution !== 'string' || !RESOLUTIONS.includes(resolution)) {
    throw invalid(`parameters.resolution must be one of ${RESOLUTIONS.join(', ')}.`);
  }
  if (parameters.ratio !== undefined && rules.ratios !== 'from-image') {
    if (typeof parameters.ratio !== 'string' || !rules.ratios.includes(parameters.ratio)) {
      throw invalid(`parameters.ratio must be one of ${rules.ratios.join(', ')}.`);
    }
  }
  const duration = parameters.duration ?? 5;
  const max = media.includes('reference_video')
    ? (rules.duration.maxWithVideo ?? rules.duration.max)
    : rules.duration.max;
  if (typeof duration !== 'number' || !Number.isInteger(duration) || duration < rules.duration.min || duration > max) {
    throw invalid(`parameters.duration must be an integer from ${rules.duration.min} to ${max}.`);
  }
  const { seed } = parameters;
  if (seed !== undefined && (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > MAX_SEED)) {
    throw invalid(`parameters.seed must be an integer from 0 to ${MAX_SEED}.`);
  }
  for (const flag of ['prompt_extend', 'watermark', 'audio']) {
    if (parameters[flag] !== undefined && typeof parameters[flag] !== 'boolean') {
      throw invalid(`parameters.${flag} must be a boolean.`);
    }
  }
  return { model, prompt: prompt ?? '', resolution, duration };
}

/** The media types sent, in order, after checking each against the model. */
function checkMedia(media: unknown, rules: ModelRules, model: string): string[] {
  if (media === undefined) {
    if (Object.keys(rules.media).length > 0) throw invalid(`${model} must provide media.`);
    return [];
  }
  if (!Array.isArray(media)) throw invalid('input.media must be an array.');
  const types: string[] = [];
  for (const item of media) {
    if (!isRecord(item) || typeof item.type !== 'string' || !isHttpUrl(item.url)) {
      throw invalid('Each input.media item needs a type and an http(s) url.');
    }
    const most = rules.media[item.type];
    if (most === undefined) throw invalid(`${model} does not take media type ${item.type}.`);
    types.push(item.type);
    if (types.filter((type) => type === item.type).length > most) {
      throw invalid(`${model} takes at most ${most} media of type ${item.type}.`);
    }
  }
  const count = (type: string) => types.filter((sent) => sent === type).length;
  if (model === 'wan2.7-i2v') {
    if (count('first_frame') + count('first_clip') !== 1) {
      throw invalid('image-to-video model must provide an image: one first_frame (or one first_clip).');
    }
    if (count('last_frame') > 0 && count('first_frame') === 0) throw invalid('last_frame needs a first_frame.');
  }
  if (rules.maxReferences !== undefined) {
    const references = count('reference_image') + count('reference_video');
    if (references < 1 || references > rules.maxReferences) {
      throw invalid(`${model} takes 1 to ${rules.maxReferences} reference images and videos in all.`);
    }
  }
  return types;
}
