/**
 * What the gateway knows of an upstream provider, as data: its platforms, its models' documented capabilities
 * and the bounds of a job's upstream expiry. Each provider folder fills one in (docs/providers/README.md); core
 * checks catalog records and requests against the capabilities it is handed and names no provider.
 */
import type { Ratio, Resolution } from './generation-options.js';

/** The roles our images take upstream (docs/api-contract.md, "References"): one first frame, first + last, or references. */
export const IMAGE_MODES = ['first_frame', 'first_last_frame', 'reference'] as const;
export type ImageMode = (typeof IMAGE_MODES)[number];

/** One upstream model's documented capabilities: what the gateway lets through to it. */
export interface UpstreamModel {
  label: string;
  /** The model id on each platform; a platform without it does not offer the model. */
  ids: Readonly<Partial<Record<string, string>>>;
  /** Whether a prompt alone is enough (text-to-video). */
  textOnly: boolean;
  /** Image modes the model takes, the first its default; none: images are refused. */
  imageModes: readonly ImageMode[];
  /** Reference images in `reference` mode. */
  referenceImages: { min: number; max: number };
  /** Reference videos and audios (reference mode only), and all reference items together. */
  maxVideos: number;
  maxAudios: number;
  maxReferenceItems: number;
  /** A reference audio needs an image or a video beside it. */
  audioNeedsVisual: boolean;
  durationSeconds: { min: number; max: number };
  resolutions: readonly Resolution[];
  /** Resolutions allowed in `reference` mode when narrower than `resolutions`. */
  referenceResolutions?: readonly Resolution[];
  ratios: readonly Ratio[];
  /** Generates sound (`generate_audio`). */
  audio: boolean;
}

/**
 * How the upstream names itself and its objects in its messages: the customer reads a failure's reason without
 * them (docs/api-contract.md, "Envelope and errors"). `names` (whole words, any case) become "the generator",
 * `ids` (its job and model ids) "the task".
 */
export interface UpstreamWords {
  names: readonly string[];
  ids: readonly RegExp[];
}

/** A task as the cost report prices it (docs/money-and-ledger.md, "Margins"). */
export interface CostedRequest {
  /** The key of the model in the provider's contract. */
  upstreamModel: string;
  platform: string;
  resolution: Resolution;
  ratio: Ratio;
  durationSeconds: number;
  generateAudio: boolean;
  videoReferenceCount: number;
}

/** A model's price on one platform (lib/ship/seed/upstream-prices.json, rates as numbers): how it bills is the provider's. */
export interface UpstreamPrice {
  currency: 'CNY' | 'USD';
  [rates: string]: unknown;
}

export interface ProviderContract {
  label: string;
  /** How messages name the upstream, e.g. the local stack's start message. */
  shortName: string;
  /** Its variables: `<PREFIX>_PLATFORM`, `<PREFIX>_BASE_URL`, `<PREFIX>_API_KEY` (local), `<PREFIX>_API_KEY_SECRET_ARN` (AWS). */
  envPrefix: string;
  /** Each platform's API base; the platform also picks the model ids. */
  platforms: Readonly<Record<string, string>>;
  defaultPlatform: string;
  /** Its models' documented capabilities, by the key a catalog record names in `upstream.model`. */
  models: Readonly<Record<string, UpstreamModel>>;
  /**
   * What a new account of the provider starts with (docs/upstream-capacity.md): queued slots and an optional
   * ceiling on jobs in flight.
   */
  accountDefaults: { capacity: number; inflightCeiling?: number };
  privateWords: UpstreamWords;
  /** What the upstream charges for the task, in units of 0.0001 CNY rounded up (USD at `cnyPerUsd`). */
  upstreamCostUnits(price: UpstreamPrice, request: CostedRequest, cnyPerUsd: number): number;
}

/** The documented capabilities of one of the provider's models; undefined for a key it does not list. */
export function modelOf(contract: ProviderContract, key: string): UpstreamModel | undefined {
  return Object.hasOwn(contract.models, key) ? contract.models[key] : undefined;
}
