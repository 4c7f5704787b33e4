/**
 * Ark's documented contract for its Seedance video models, the gateway's reading (docs/api-contract.md, "References"; docs/providers/ark.md):
 * ids per platform, input modes, counts, durations, resolutions, ratios, audio. The catalog draws each
 * model's capabilities from here (as core's UpstreamModel); the local simulator keeps its own reading (lib/dev/simulators/ark/*).
 * Sources: Volcengine doc 82379/1520757 "创建视频生成任务 API" (current copy), BytePlus ModelArk 1520757,
 * docs/providers/ark.md; rules only third parties state are marked so and kept on the safe side.
 */
import type { Ratio } from '../../core/generation-options.js';
import type { UpstreamModel, UpstreamWords } from '../../core/provider-contract.js';

/**
 * Each platform's API base (docs/providers/ark.md, "Endpoints": Volcengine cn-beijing; BytePlus ap-southeast, as eu-west
 * has no video models). The platform also picks the model ids below.
 */
export const ARK_BASE_URLS = {
  byteplus: 'https://ark.ap-southeast.bytepluses.com',
  volcengine: 'https://ark.cn-beijing.volces.com',
} as const;
export type ArkPlatform = keyof typeof ARK_BASE_URLS;
export const ARK_PLATFORMS = Object.keys(ARK_BASE_URLS) as ArkPlatform[];

/** 120 queued tasks per master account (docs/providers/ark.md, "Capacity"); in flight, no documented ceiling. */
export const ARK_ACCOUNT_DEFAULTS = { capacity: 120 } as const;

/** Its brands, and its task (`cgt-`), endpoint (`ep-`) and dated model ids (docs/providers/ark.md, "Errors"). */
export const ARK_PRIVATE_WORDS: UpstreamWords = {
  names: ['volcengine', 'byteplus', 'volcano engine', 'doubao', 'dreamina', 'ark'],
  ids: [/\b(cgt|ep)-[\w-]+/gi, /\b(doubao|dreamina)?-?seedance-\d[\w-]*-\d{6}\b/gi],
};

/** Ark lists these six plus `adaptive`, which the gateway does not offer (docs/providers/ark.md, "Create body"). */
const ALL_RATIOS: readonly Ratio[] = ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'];
const NO_REFERENCES = { referenceImages: { min: 0, max: 0 }, maxVideos: 0, maxAudios: 0, maxReferenceItems: 0 };

/** The 1.0 models' output: 2–12 s, up to 1080p, no sound (doc 1520757). */
const SEEDANCE_1_0_OUTPUT = {
  durationSeconds: { min: 2, max: 12 },
  resolutions: ['480p', '720p', '1080p'],
  ratios: ALL_RATIOS,
  audio: false,
  audioNeedsVisual: false,
} as const;

/** Seedance 2.0 and 2.0 fast take the same inputs (doc 1520757); they differ in resolutions. */
const SEEDANCE_2_INPUTS = {
  textOnly: true,
  imageModes: ['first_frame', 'first_last_frame', 'reference'],
  // ≤ 9 images + ≤ 3 videos + ≤ 3 audios; "≤ 12 items in all" is third-party only, kept (it refuses more).
  referenceImages: { min: 0, max: 9 },
  maxVideos: 3,
  maxAudios: 3,
  maxReferenceItems: 12,
  audioNeedsVisual: true,
  durationSeconds: { min: 4, max: 15 },
  ratios: ALL_RATIOS,
  audio: true,
} as const;

export const ARK_MODELS = {
  // The lite models' BytePlus ids are third-party only, and lite is missing from a copy of BytePlus's create
  // page: unconfirmed there. A create Ark refuses as unknown fails the task (refunded) and alarms.
  'seedance-1-0-lite-t2v': {
    label: 'Seedance 1.0 Lite text-to-video',
    ids: { volcengine: 'doubao-seedance-1-0-lite-t2v-250428', byteplus: 'seedance-1-0-lite-t2v-250428' },
    textOnly: true,
    imageModes: [],
    ...NO_REFERENCES,
    ...SEEDANCE_1_0_OUTPUT,
  },
  'seedance-1-0-lite-i2v': {
    label: 'Seedance 1.0 Lite image-to-video',
    ids: { volcengine: 'doubao-seedance-1-0-lite-i2v-250428', byteplus: 'seedance-1-0-lite-i2v-250428' },
    // An image-to-video model: no prompt-only requests.
    textOnly: false,
    imageModes: ['first_frame', 'first_last_frame', 'reference'],
    referenceImages: { min: 1, max: 4 },
    maxVideos: 0,
    maxAudios: 0,
    maxReferenceItems: 4,
    ...SEEDANCE_1_0_OUTPUT,
    // 1080p for first / first+last frames, not with reference images (doc 1520757).
    referenceResolutions: ['480p', '720p'],
  },
  'seedance-1-5-pro': {
    label: 'Seedance 1.5 Pro',
    ids: { volcengine: 'doubao-seedance-1-5-pro-251215', byteplus: 'seedance-1-5-pro-251215' },
    textOnly: true,
    // First frame or first + last frame; no reference images, videos or audios.
    imageModes: ['first_frame', 'first_last_frame'],
    ...NO_REFERENCES,
    audioNeedsVisual: false,
    durationSeconds: { min: 4, max: 12 },
    resolutions: ['480p', '720p', '1080p'],
    ratios: ALL_RATIOS,
    audio: true,
  },
  'seedance-2-0': {
    label: 'Seedance 2.0',
    ids: { volcengine: 'doubao-seedance-2-0-260128', byteplus: 'dreamina-seedance-2-0-260128' },
    ...SEEDANCE_2_INPUTS,
    // 1080p: allowed by the current doc (the launch text refused it); 2k/4k: third-party claims only.
    resolutions: ['480p', '720p', '1080p'],
  },
  'seedance-2-0-fast': {
    label: 'Seedance 2.0 Fast',
    // BytePlus id from third-party copies of BytePlus 1520757 only.
    ids: { volcengine: 'doubao-seedance-2-0-fast-260128', byteplus: 'dreamina-seedance-2-0-fast-260128' },
    ...SEEDANCE_2_INPUTS,
    resolutions: ['480p', '720p'],
  },
} as const satisfies Record<string, UpstreamModel>;

/**
 * The id Ark knows the model by on `platform`; undefined for an unknown key or a platform without it. A
 * platform id is read as its model too: tasks stored before the catalog named contract keys carry one.
 */
export function arkModelId(key: string, platform: ArkPlatform): string | undefined {
  const models: Readonly<Record<string, UpstreamModel>> = ARK_MODELS;
  const model = Object.hasOwn(models, key)
    ? models[key]
    : Object.values(models).find((candidate) => Object.values(candidate.ids).includes(key));
  return model?.ids[platform];
}

/** `execution_expires_after` bounds in seconds (docs/providers/ark.md, "Create body": 3600 … 259200, default 172800). */
export const ARK_EXPIRY_SECONDS = { min: 3600, max: 259_200 } as const;
