/**
 * Checks a create-task body the way Ark documents it, so the simulator refuses what the real Ark
 * refuses and the gateway's own reading of the contract (functions/core) is tested against a second,
 * independent one. Where no source settles a rule it refuses (the safe side) and says `unconfirmed`.
 * Source legend: models.ts, plus [GO] = byteplus-sdk/byteplus-go-sdk-v2
 * service/arkruntime/model/content_generation.go (request fields, content item types).
 */
import { ArkError, invalid, isRecord, missing } from './errors.js';
import { adaptiveRatio, defaultRatio, modelSpec, RATIOS, resolutionsFor } from './models.js';
import type { ArkPlatform, Mode, ModelSpec, Resolution } from './models.js';

/** What the simulator keeps from an accepted body. */
export interface CheckedRequest {
  model: string;
  spec: ModelSpec;
  mode: Mode;
  /** The text item, '' when there is none (allowed beside images or references). */
  prompt: string;
  resolution: Resolution;
  ratio: string;
  duration: number;
  /** Absent or -1 means "pick one". */
  seed: number | undefined;
  /** Only for models with audio; Ark's default there is true. [NOTES] */
  generateAudio: boolean | undefined;
  serviceTier: 'default' | 'flex';
  expiresAfterSeconds: number;
}

export const DEFAULT_EXPIRES_AFTER_SECONDS = 172_800; // [NOTES]

type Role = 'first_frame' | 'last_frame' | 'reference_image' | 'reference_video' | 'reference_audio';

/** Roles each media type may carry ([NOTES]; [GO] for the types). The first role is the default when absent. */
const ROLES: Readonly<Record<string, readonly Role[]>> = {
  image_url: ['first_frame', 'last_frame', 'reference_image'],
  video_url: ['reference_video'],
  audio_url: ['reference_audio'],
};

const MODE_NAMES: Record<Mode, string> = {
  text: 'text-to-video (an image-to-video model needs an image)',
  first_frame: 'first-frame image-to-video',
  first_last_frame: 'first+last-frame image-to-video',
  reference: 'reference media',
};

export function checkCreateBody(body: unknown, platform: ArkPlatform): CheckedRequest {
  if (!isRecord(body)) throw invalid('body', 'must be a JSON object.');
  if (typeof body.model !== 'string' || body.model === '') throw missing('model');
  const spec = modelSpec(platform, body.model);
  if (spec === undefined) {
    // 404 InvalidEndpointOrModel.NotFound: volcengine/ark-cli skills/arkcli-doctor/references/error-codes.md
    const message = `The model or endpoint ${body.model} does not exist or you do not have access to it.`;
    throw new ArkError(404, 'InvalidEndpointOrModel.NotFound', message, 'NotFound', 'model');
  }
  // Fields outside the current SDK request ([GO]) are refused: unconfirmed, the safe side.
  for (const field of Object.keys(body)) {
    if (field !== 'model' && field !== 'content' && !Object.hasOwn(OPTION_RULES, field)) {
      throw invalid(field, 'is not supported (unknown field).');
    }
  }
  const { prompt, mode } = checkContent(body.content, body.model, spec);
  return { model: body.model, spec, mode, prompt, ...checkOptions(body, spec, mode) };
}

// ---------------------------------------------------------------- content

function checkContent(content: unknown, model: string, spec: ModelSpec): { prompt: string; mode: Mode } {
  if (!Array.isArray(content) || content.length === 0) throw missing('content');
  const counts: Record<Role, number> = {
    first_frame: 0,
    last_frame: 0,
    reference_image: 0,
    reference_video: 0,
    reference_audio: 0,
  };
  let prompt: string | undefined;
  content.forEach((item: unknown, index) => {
    const param = `content[${index}]`;
    if (!isRecord(item)) throw invalid(param, 'must be an object.');
    if (item.type === 'text') {
      if (typeof item.text !== 'string') throw invalid(`${param}.text`, 'must be a string.');
      // Several text items: unconfirmed, refused.
      if (prompt !== undefined) throw invalid('content', 'may hold one text item only.');
      prompt = item.text;
      return;
    }
    // `draft_task` ([GO]) is not modelled here: refused like any other unsupported type.
    const roles = typeof item.type === 'string' && Object.hasOwn(ROLES, item.type) ? ROLES[item.type] : undefined;
    if (roles === undefined) throw invalid(`${param}.type`, 'is not a supported content type.');
    const holder = item[item.type as string];
    if (!isRecord(holder) || typeof holder.url !== 'string' || holder.url === '') {
      throw invalid(`${param}.${String(item.type)}.url`, 'must be a non-empty string.');
    }
    // An image without a role is a first frame ([NOTES]); video and audio without one: unconfirmed, refused.
    if (item.role === undefined && item.type !== 'image_url') throw missing(`${param}.role`);
    const role = (item.role ?? roles[0]) as Role;
    if (!roles.includes(role)) throw invalid(`${param}.role`, `must be one of ${roles.join(', ')}.`);
    counts[role] += 1;
  });
  const mode = modeOf(counts);
  if (mode === 'text' && prompt === undefined) throw missing('content.text');
  if (!spec.modes.includes(mode)) throw invalid('content', `uses ${MODE_NAMES[mode]}, which ${model} does not take.`);
  if (mode === 'reference') checkReferences(counts, model, spec);
  return { prompt: prompt ?? '', mode };
}

/** First-frame, first+last-frame and reference modes cannot be mixed in one request. [NOTES] */
function modeOf(counts: Record<Role, number>): Mode {
  const framed = counts.first_frame + counts.last_frame > 0;
  const referenced = counts.reference_image + counts.reference_video + counts.reference_audio > 0;
  if (framed && referenced) throw invalid('content', 'cannot mix first/last frames with reference media.');
  if (counts.first_frame > 1 || counts.last_frame > 1) {
    throw invalid('content', 'may hold one first_frame and one last_frame at most.');
  }
  if (counts.last_frame > 0 && counts.first_frame === 0)
    throw invalid('content', 'has a last_frame without a first_frame.');
  if (referenced) return 'reference';
  if (counts.last_frame > 0) return 'first_last_frame';
  return counts.first_frame > 0 ? 'first_frame' : 'text';
}

/** Per-model reference counts; reference audio needs an image or a video beside it. [BP], [NOTES] */
function checkReferences(counts: Record<Role, number>, model: string, spec: ModelSpec): void {
  const { images, videos, audios, items } = spec.references;
  const limit = (count: number, max: number, what: string): void => {
    if (count > max) throw invalid('content', `holds ${count} ${what}; ${model} takes at most ${max}.`);
  };
  limit(counts.reference_image, images, 'reference images');
  limit(counts.reference_video, videos, 'reference videos');
  limit(counts.reference_audio, audios, 'reference audios');
  limit(counts.reference_image + counts.reference_video + counts.reference_audio, items, 'reference items');
  if (counts.reference_audio > 0 && counts.reference_image + counts.reference_video === 0) {
    throw invalid('content', 'has reference audio without a reference image or video.');
  }
}

// ---------------------------------------------------------------- options

type Check = (value: unknown, spec: ModelSpec, mode: Mode) => boolean;
type Explain = (spec: ModelSpec, mode: Mode) => string;

const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';
const isString = (value: unknown): value is string => typeof value === 'string';
const inRange = (min: number, max: number) => (value: unknown) =>
  Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
const BOOLEAN: [Check, Explain] = [isBoolean, () => 'must be a boolean.'];
/** An absolute http(s) URL with a host, written out in full (`http:host` and `http:///x` are refused). */
function isCallbackUrl(value: unknown): boolean {
  if (!isString(value) || !/^https?:\/\/[^\s/?#]+\S*$/i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** For fields a model either lacks or takes when `ok`. */
const onlyWhere = (
  has: (spec: ModelSpec) => boolean,
  ok: (value: unknown) => boolean,
  rule: string,
): [Check, Explain] => [
  (value, spec) => has(spec) && ok(value),
  (spec) => (has(spec) ? rule : `is not supported for Seedance ${spec.family}.`),
];

/**
 * Every top-level option Ark's current SDK sends ([GO]): field -> [check, what the refusal says]. A
 * present field must pass; JSON null counts as present (unconfirmed: refused).
 */
const OPTION_RULES: Readonly<Record<string, [Check, Explain]>> = {
  // Per model, and per mode where documented. [NOTES], [BP]
  resolution: [
    (value, spec, mode) => resolutionsFor(spec, mode).includes(value as Resolution),
    (spec, mode) => `must be one of ${resolutionsFor(spec, mode).join(', ')} for Seedance ${spec.family} here.`,
  ],
  // The documented list; `adaptive` only where adaptiveRatio() allows it. [NOTES]
  ratio: [
    (value, spec, mode) => RATIOS.includes(value as string) && (value !== 'adaptive' || adaptiveRatio(spec, mode)),
    (spec) => `must be one of ${RATIOS.join(', ')} (adaptive only where Seedance ${spec.family} takes it).`,
  ],
  // Whole seconds in the model's range. -1 ("model picks", third parties only): unconfirmed, refused. [NOTES]
  duration: [
    (value, spec) => inRange(...spec.duration)(value),
    (spec) => `must be an integer from ${spec.duration[0]} to ${spec.duration[1]} for Seedance ${spec.family}.`,
  ],
  // In [GO], but which models take it is unconfirmed: refused.
  frames: [() => false, () => 'is not supported (unconfirmed).'],
  seed: [inRange(-1, 2 ** 32 - 1), () => 'must be an integer from -1 to 4294967295.'], // [NOTES]
  execution_expires_after: [inRange(3600, 259_200), () => 'must be an integer from 3600 to 259200.'], // [NOTES]
  // `flex` (offline inference) is not offered on 2.0. [NOTES]
  service_tier: [
    (value, spec) => value === 'default' || (value === 'flex' && spec.flex),
    (spec) => (spec.flex ? 'must be default or flex.' : `must be default: Seedance ${spec.family} has no flex tier.`),
  ],
  // The next three are refused on models without them even as false: whether Ark tolerates that is unconfirmed.
  generate_audio: onlyWhere((spec) => spec.audio, isBoolean, 'must be a boolean.'), // [NOTES]
  draft: onlyWhere((spec) => spec.draft, isBoolean, 'must be a boolean.'), // [BP] 1.5 pro draft mode
  priority: onlyWhere((spec) => spec.priority, inRange(0, 9), 'must be an integer from 0 to 9.'), // [CLI]
  watermark: BOOLEAN, // [GO]
  camera_fixed: BOOLEAN, // [GO]
  return_last_frame: BOOLEAN, // [GO]
  // [GO] names the field; what Ark accepts in it is unconfirmed: only what a callback can reach passes.
  callback_url: [isCallbackUrl, () => 'must be an absolute http(s) URL.'],
  safety_identifier: [isString, () => 'must be a string.'], // [GO]
};

function checkOptions(body: Record<string, unknown>, spec: ModelSpec, mode: Mode) {
  for (const [field, [check, explain]] of Object.entries(OPTION_RULES)) {
    if (body[field] !== undefined && !check(body[field], spec, mode)) throw invalid(field, explain(spec, mode));
  }
  const seed = body.seed as number | undefined;
  return {
    resolution: (body.resolution as Resolution | undefined) ?? spec.defaultResolution,
    ratio: (body.ratio as string | undefined) ?? defaultRatio(spec, mode),
    duration: (body.duration as number | undefined) ?? 5,
    seed: seed === -1 ? undefined : seed,
    generateAudio: spec.audio ? ((body.generate_audio as boolean | undefined) ?? true) : undefined,
    serviceTier: (body.service_tier as 'default' | 'flex' | undefined) ?? 'default',
    expiresAfterSeconds: (body.execution_expires_after as number | undefined) ?? DEFAULT_EXPIRES_AFTER_SECONDS,
  };
}
