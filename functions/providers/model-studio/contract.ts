/**
 * Alibaba Cloud Model Studio's (DashScope) documented contract for its Wan 2.7 video models, the gateway's
 * reading (docs/providers/model-studio.md): regions and endpoints, model ids, input modes, counts,
 * durations, resolutions, ratios, sound. The local simulator keeps its own reading
 * (lib/dev/simulators/model-studio/). Rules only third parties state are marked and kept on the safe side.
 */
import type { UpstreamModel, UpstreamWords } from '../../core/provider-contract.js';

/**
 * Each region's API base (docs/providers/model-studio.md, "Endpoints"). Keys and models belong to one region;
 * a per-workspace domain (`https://{WorkspaceId}.cn-beijing.maas.aliyuncs.com`) is set as `DASHSCOPE_BASE_URL`.
 */
export const MODEL_STUDIO_BASE_URLS = {
  beijing: 'https://dashscope.aliyuncs.com',
  singapore: 'https://dashscope-intl.aliyuncs.com',
} as const;
export type ModelStudioRegion = keyof typeof MODEL_STUDIO_BASE_URLS;

/** The five ratios of the Wan 2.7 text-to-video reference (no 21:9). */
const WAN_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4'] as const;
const NO_REFERENCES = { referenceImages: { min: 0, max: 0 }, maxVideos: 0, maxAudios: 0, maxReferenceItems: 0 };

/**
 * Text- and image-to-video's output (docs/providers/model-studio.md, "Create body"): 2–15 s, 720p or 1080p (Wan 2.7
 * makes no 480p), the five ratios, and sound on every video (the price list has no silent price).
 */
const WAN_2_7_OUTPUT = {
  audioNeedsVisual: false,
  durationSeconds: { min: 2, max: 15 },
  resolutions: ['720p', '1080p'],
  ratios: WAN_RATIOS,
  audio: true,
} as const;

/**
 * A Wan model: the capabilities the gateway validates a request against (`ids`: the model id per region), and
 * whether the request names a ratio at all (image-to-video takes the first frame's shape: `ratio` is not sent).
 */
export interface WanModel extends UpstreamModel {
  sendsRatio: boolean;
}

export const WAN_MODELS = {
  'wan2.7-t2v': {
    label: 'Wan 2.7 text-to-video',
    ids: { beijing: 'wan2.7-t2v', singapore: 'wan2.7-t2v' },
    textOnly: true,
    imageModes: [],
    // One driving audio (`input.audio_url`); the video is made to it.
    ...NO_REFERENCES,
    maxAudios: 1,
    maxReferenceItems: 1,
    ...WAN_2_7_OUTPUT,
    sendsRatio: true,
  },
  'wan2.7-i2v': {
    label: 'Wan 2.7 image-to-video (first frame, first + last frame)',
    ids: { beijing: 'wan2.7-i2v', singapore: 'wan2.7-i2v' },
    textOnly: false,
    imageModes: ['first_frame', 'first_last_frame'],
    // `driving_audio` exists, but the gateway takes audio only beside reference images: not offered here.
    ...NO_REFERENCES,
    ...WAN_2_7_OUTPUT,
    sendsRatio: false,
  },
  'wan2.7-r2v': {
    label: 'Wan 2.7 reference-to-video',
    ids: { beijing: 'wan2.7-r2v', singapore: 'wan2.7-r2v' },
    textOnly: false,
    imageModes: ['reference'],
    // Images + videos together at most 5, at least one; videos capped by the gateway's own 3.
    referenceImages: { min: 0, max: 5 },
    maxVideos: 3,
    maxAudios: 0,
    maxReferenceItems: 5,
    audioNeedsVisual: false,
    // 2–10 s with a reference video (2–15 without): the safe side, 10, for all.
    durationSeconds: { min: 2, max: 10 },
    resolutions: ['720p', '1080p'],
    // Third parties disagree (two or five ratios): the two all agree on. Unconfirmed.
    ratios: ['16:9', '9:16'],
    audio: true,
    sendsRatio: true,
  },
} as const satisfies Record<string, WanModel>;

/** The model's contract, or undefined for a key the contract does not list. */
export function wanModel(key: string): WanModel | undefined {
  const models: Readonly<Record<string, WanModel>> = WAN_MODELS;
  return Object.hasOwn(models, key) ? models[key] : undefined;
}

/**
 * The gateway's default per account: queued slots (jobs PENDING upstream) and the ceiling on jobs in flight.
 * Model Studio's rate-limit page (docs/providers/model-studio.md, "Rate limits and capacity") is reported to give
 * Wan 2.7 and 2.6 video 5 submissions per second and 5 concurrent tasks per root account; the stored copy read
 * confirms the per-account rule, not the numbers. 5 and 5 is the safe side either way; an operator raises them
 * with `upstream:set` once the account's limits are known.
 */
export const MODEL_STUDIO_ACCOUNT_DEFAULTS = { capacity: 5, inflightCeiling: 5 } as const;

/** Its brands and its model ids (`wan2.7-t2v`, docs/providers/model-studio.md); its task ids are bare UUIDs. */
export const MODEL_STUDIO_PRIVATE_WORDS: UpstreamWords = {
  names: ['alibaba cloud', 'alibaba', 'aliyun', 'dashscope', 'model studio', 'bailian', 'tongyi'],
  ids: [/\bwan\d[\w.-]*/gi],
};
