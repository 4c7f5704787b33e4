/**
 * What Ark charges for a task (docs/money-and-ledger.md, "Margins"): per token of output, tokens = width × height
 * × frames / 1024, frames = 24 × (output + input video seconds) + 1 (docs/providers/ark.md). Input video length
 * is unknown at submit, so a request with reference videos counts Ark's 15 s maximum.
 */
import type { Ratio, Resolution } from '../../core/generation-options.js';
import type { CostedRequest, UpstreamPrice } from '../../core/provider-contract.js';

/** Output sizes (docs/providers/ark.md, "Create body"): the 1.0 models and the 1.5 pro / 2.0 family differ slightly. */
const SIZES = {
  v1: {
    '480p': {
      '16:9': [864, 480],
      '4:3': [736, 544],
      '1:1': [640, 640],
      '3:4': [544, 736],
      '9:16': [480, 864],
      '21:9': [960, 416],
    },
    '720p': {
      '16:9': [1248, 704],
      '4:3': [1120, 832],
      '1:1': [960, 960],
      '3:4': [832, 1120],
      '9:16': [704, 1248],
      '21:9': [1504, 640],
    },
    '1080p': {
      '16:9': [1920, 1088],
      '4:3': [1664, 1248],
      '1:1': [1440, 1440],
      '3:4': [1248, 1664],
      '9:16': [1088, 1920],
      '21:9': [2176, 928],
    },
  },
  v2: {
    '480p': {
      '16:9': [864, 496],
      '4:3': [752, 560],
      '1:1': [640, 640],
      '3:4': [560, 752],
      '9:16': [496, 864],
      '21:9': [992, 432],
    },
    '720p': {
      '16:9': [1280, 720],
      '4:3': [1112, 834],
      '1:1': [960, 960],
      '3:4': [834, 1112],
      '9:16': [720, 1280],
      '21:9': [1470, 630],
    },
    '1080p': {
      '16:9': [1920, 1080],
      '4:3': [1664, 1248],
      '1:1': [1440, 1440],
      '3:4': [1248, 1664],
      '9:16': [1080, 1920],
      '21:9': [2206, 946],
    },
  },
} as const satisfies Record<string, Partial<Record<Resolution, Record<Ratio, readonly [number, number]>>>>;

const FPS = 24;
/** Reference videos last at most 15 s in all. */
const MAX_INPUT_VIDEO_SECONDS = 15;

interface TokenRates {
  default: number;
  with_audio?: number;
  with_video_input?: number;
  '1080p'?: number;
  '1080p_with_video_input'?: number;
}

export function arkCostUnits(price: UpstreamPrice, request: CostedRequest, cnyPerUsd: number): number {
  const rates = price['per_million_tokens'] as TokenRates | undefined;
  if (!rates) throw new Error(`${request.upstreamModel}: no price per million tokens`);
  const sizes = request.upstreamModel.startsWith('seedance-1-0') ? SIZES.v1 : SIZES.v2;
  const size = (sizes as Partial<Record<Resolution, Record<Ratio, readonly [number, number]>>>)[request.resolution];
  if (!size) throw new Error(`no output size for ${request.upstreamModel} at ${request.resolution}`);
  const [width, height] = size[request.ratio];
  const withVideo = request.videoReferenceCount > 0;
  const frames = FPS * (request.durationSeconds + (withVideo ? MAX_INPUT_VIDEO_SECONDS : 0)) + 1;
  const tokens = Math.ceil((width * height * frames) / 1024);
  // Ark prices no model by both resolution and sound; one that did would need both premiums applied.
  if (rates.with_audio !== undefined && rates['1080p'] !== undefined) {
    throw new Error(`${request.upstreamModel}: a 1080p rate beside an audio rate is not supported`);
  }
  const hd = request.resolution === '1080p';
  const rate =
    (withVideo && hd ? rates['1080p_with_video_input'] : undefined) ??
    (withVideo ? rates.with_video_input : undefined) ??
    (hd ? rates['1080p'] : undefined) ??
    (request.generateAudio ? rates.with_audio : undefined) ??
    rates.default;
  const cny = price.currency === 'USD' ? rate * cnyPerUsd : rate;
  // Units of 0.0001 CNY per million tokens = cny × 10^4 / 10^6 per token.
  return Math.ceil((tokens * cny) / 100);
}
