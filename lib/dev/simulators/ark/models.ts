/**
 * The simulator's own reading of Ark's Seedance models: ids per platform, what each accepts, and the
 * output pixel sizes that usage tokens come from. Deliberately independent of functions/ (the gateway's
 * catalogue): tests compare the two readings. Sources are cited per entry; the legend is below.
 */

/*
 * Sources:
 *  [VC]  vercel/ai packages/bytedance/src/bytedance-video-settings.ts (BytePlus model ids) and
 *        bytedance-video-model.ts RESOLUTION_MAP (pixel sizes per resolution).
 *  [BP]  BytePlus ModelArk "Seedance Video Generation" (docs.byteplus.com ModelArk 1520757), as copied at
 *        docs.powertokens.ai/en/zmodelVideo/byteplus/seedance/seedance-video: model ids, input modes, 2.0 limits.
 *  [PX]  The official resolution table (Volcengine 82379/1520757) as copied at
 *        apidoc.cometapi.com/api/video/seedance/create: 1.0 series vs 1.5 pro / 2.0 pixel sizes.
 *  [CLI] volcengine/ark-cli skills/arkcli-gen/references/arkcli-gen.md (priority 0-9 on 2.0 / 2.0 fast).
 *  [NOTES] docs/providers/ark.md (what the service relies on of Volcengine 82379/1520757 and BytePlus 1520757).
 */

export type ArkPlatform = 'byteplus' | 'volcengine';
export type Mode = 'text' | 'first_frame' | 'first_last_frame' | 'reference';
export type Resolution = '480p' | '720p' | '1080p';

/** Fixed ratios in [PX]'s column order; `adaptive` lets the model pick (see `adaptiveRatio`). [NOTES] */
export const FIXED_RATIOS = ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'] as const;
export const RATIOS: readonly string[] = [...FIXED_RATIOS, 'adaptive'];

export interface ReferenceLimits {
  images: number;
  videos: number;
  audios: number;
  /** All reference media together. */
  items: number;
}

export interface ModelSpec {
  family: string;
  modes: readonly Mode[];
  resolutions: readonly Resolution[];
  /** When set, the resolutions allowed in reference mode. */
  referenceResolutions?: readonly Resolution[];
  defaultResolution: Resolution;
  /** Inclusive, in whole seconds. */
  duration: readonly [number, number];
  /** Takes `generate_audio` (default true there). */
  audio: boolean;
  /** Takes `service_tier: "flex"`. */
  flex: boolean;
  /** Takes `priority` (0-9). */
  priority: boolean;
  /** Takes `draft`. */
  draft: boolean;
  references: ReferenceLimits;
  pixels: PixelTable;
}

const NO_REFERENCES: ReferenceLimits = { images: 0, videos: 0, audios: 0, items: 0 };
const ALL_RESOLUTIONS: readonly Resolution[] = ['480p', '720p', '1080p'];

// Pixel sizes per resolution, in FIXED_RATIOS order. [PX], matching [VC]'s RESOLUTION_MAP.
type PixelTable = Record<Resolution, string>;
const PIXELS_1_0: PixelTable = {
  '480p': '864x480 736x544 640x640 544x736 480x864 960x416',
  '720p': '1248x704 1120x832 960x960 832x1120 704x1248 1504x640',
  '1080p': '1920x1088 1664x1248 1440x1440 1248x1664 1088x1920 2176x928',
};
const PIXELS_1_5: PixelTable = {
  '480p': '864x496 752x560 640x640 560x752 496x864 992x432',
  '720p': '1280x720 1112x834 960x960 834x1112 720x1280 1470x630',
  '1080p': '1920x1080 1664x1248 1440x1440 1248x1664 1080x1920 2206x946',
};

const SEEDANCE_1_0 = {
  resolutions: ALL_RESOLUTIONS,
  duration: [2, 12], // [NOTES]; one reseller says 2-10 for 1.0 pro: the wider documented range is kept
  audio: false,
  flex: true,
  priority: false,
  draft: false,
  references: NO_REFERENCES,
  pixels: PIXELS_1_0,
} as const;

// 1.0 lite t2v: text only. [BP], [NOTES]
const LITE_T2V: ModelSpec = { ...SEEDANCE_1_0, family: '1.0 lite t2v', modes: ['text'], defaultResolution: '720p' };

// 1.0 lite i2v: first, first+last, or 1-4 reference images; no text-only mode; no 1080p with references
// ([NOTES]; the 1080p limit is unconfirmed by any source I could open: refused, the safe side).
const LITE_I2V: ModelSpec = {
  ...SEEDANCE_1_0,
  family: '1.0 lite i2v',
  modes: ['first_frame', 'first_last_frame', 'reference'],
  referenceResolutions: ['480p', '720p'],
  defaultResolution: '720p',
  references: { images: 4, videos: 0, audios: 0, items: 4 },
};

// 1.0 pro: text, first, first+last; 1.0 pro fast: text, first. Default 1080p. [BP], [NOTES]
const PRO: ModelSpec = {
  ...SEEDANCE_1_0,
  family: '1.0 pro',
  modes: ['text', 'first_frame', 'first_last_frame'],
  defaultResolution: '1080p',
};
const PRO_FAST: ModelSpec = { ...PRO, family: '1.0 pro fast', modes: ['text', 'first_frame'] };

// 1.5 pro: text, first, first+last, no references; 4-12 s; audio; draft mode. [BP], [NOTES]
const PRO_1_5: ModelSpec = {
  family: '1.5 pro',
  modes: ['text', 'first_frame', 'first_last_frame'],
  resolutions: ALL_RESOLUTIONS,
  defaultResolution: '720p',
  duration: [4, 12],
  audio: true,
  flex: true,
  priority: false,
  draft: true,
  references: NO_REFERENCES,
  pixels: PIXELS_1_5,
};

// 2.0: every mode; <= 9 images + 3 videos + 3 audios, <= 12 in all; 4-15 s; audio; no flex ([NOTES]);
// priority ([CLI]). No source I trust lists 2k/4k: refused. 2.0 fast: <= 720p. [BP], [NOTES]
const V2: ModelSpec = {
  family: '2.0',
  modes: ['text', 'first_frame', 'first_last_frame', 'reference'],
  resolutions: ALL_RESOLUTIONS,
  defaultResolution: '720p',
  duration: [4, 15],
  audio: true,
  flex: false,
  priority: true,
  draft: false,
  references: { images: 9, videos: 3, audios: 3, items: 12 },
  pixels: PIXELS_1_5,
};
const V2_FAST: ModelSpec = { ...V2, family: '2.0 fast', resolutions: ['480p', '720p'] };

/** Known model ids per platform. Volcengine ids: [NOTES]; BytePlus ids: [VC], [BP]. */
const MODELS: Record<ArkPlatform, Readonly<Record<string, ModelSpec>>> = {
  volcengine: {
    'doubao-seedance-1-0-lite-t2v-250428': LITE_T2V,
    'doubao-seedance-1-0-lite-i2v-250428': LITE_I2V,
    'doubao-seedance-1-0-pro-250528': PRO,
    'doubao-seedance-1-0-pro-fast-251015': PRO_FAST,
    'doubao-seedance-1-5-pro-251215': PRO_1_5,
    'doubao-seedance-2-0-260128': V2,
    'doubao-seedance-2-0-fast-260128': V2_FAST,
  },
  byteplus: {
    'seedance-1-0-lite-t2v-250428': LITE_T2V,
    'seedance-1-0-lite-i2v-250428': LITE_I2V,
    'seedance-1-0-pro-250528': PRO,
    'seedance-1-0-pro-fast-251015': PRO_FAST,
    'seedance-1-5-pro-251215': PRO_1_5,
    'dreamina-seedance-2-0-260128': V2,
    'dreamina-seedance-2-0-fast-260128': V2_FAST,
  },
};

export function modelSpec(platform: ArkPlatform, model: string): ModelSpec | undefined {
  return Object.hasOwn(MODELS[platform], model) ? MODELS[platform][model] : undefined;
}

export function resolutionsFor(spec: ModelSpec, mode: Mode): readonly Resolution[] {
  return mode === 'reference' && spec.referenceResolutions ? spec.referenceResolutions : spec.resolutions;
}

/**
 * Whether `ratio: "adaptive"` is taken. 1.5 pro and 2.0: always ([NOTES]). 1.0 series: only with a first
 * frame, where the image decides; in text and reference modes it is unconfirmed, so refused.
 */
export function adaptiveRatio(spec: ModelSpec, mode: Mode): boolean {
  return spec.pixels === PIXELS_1_5 || mode === 'first_frame' || mode === 'first_last_frame';
}

/** The ratio a task reports when the request names none (third-party copies of [NOTES]'s pages; unconfirmed). */
export function defaultRatio(spec: ModelSpec, mode: Mode): string {
  return adaptiveRatio(spec, mode) ? 'adaptive' : '16:9';
}

export const FRAMES_PER_SECOND = 24;

/**
 * Ark bills width × height × fps × seconds / 1024 tokens ([NOTES]). Input video seconds also count there,
 * but the simulator cannot know them. `adaptive` is costed as 16:9 (unconfirmed); rounding unconfirmed.
 */
export function usageTokens(spec: ModelSpec, resolution: Resolution, ratio: string, seconds: number): number {
  const index = Math.max(0, FIXED_RATIOS.indexOf(ratio as (typeof FIXED_RATIOS)[number]));
  const [width = 0, height = 0] = (spec.pixels[resolution].split(' ')[index] ?? '').split('x').map(Number);
  return Math.round((width * height * FRAMES_PER_SECOND * seconds) / 1024);
}
