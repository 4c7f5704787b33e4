/**
 * What Model Studio charges per second of successful output, by model, resolution and region (price list
 * "模型价格", read 2026-11-27; docs/providers/model-studio.md, "Prices"). A failed task costs nothing.
 * Reference-to-video also bills each input video, for at most 5 s, at the same rate.
 */
import type { Resolution } from '../../core/generation-options.js';
import { MAX_BILLED_INPUT_VIDEO_SECONDS } from './contract.js';
import type { ModelStudioRegion, WanModelKey } from './contract.js';

/** CNY per second, as the price list writes them (Singapore's are the international deployment's CNY prices). */
export const WAN_PRICES: Readonly<Record<WanModelKey, Record<ModelStudioRegion, Partial<Record<Resolution, string>>>>> =
  {
    'wan2.7-t2v': {
      beijing: { '720p': '0.6', '1080p': '1' },
      singapore: { '720p': '0.733924', '1080p': '1.100886' },
    },
    'wan2.7-i2v': {
      beijing: { '720p': '0.6', '1080p': '1' },
      singapore: { '720p': '0.733924', '1080p': '1.100886' },
    },
    'wan2.7-r2v': {
      beijing: { '720p': '0.6', '1080p': '1' },
      singapore: { '720p': '0.733924', '1080p': '1.100886' },
    },
  };

export interface WanCostedRequest {
  upstreamModel: string;
  /** The region (the registry's platform). */
  platform: string;
  resolution: Resolution;
  durationSeconds: number;
  videoReferenceCount: number;
}

/** Decimal text to units of 0.0001 CNY × 10^6, exact (6 decimals at most). */
function microUnits(text: string): number {
  const [whole = '0', fraction = ''] = text.split('.');
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}

/** Model Studio's cost in units of 0.0001 CNY, rounded up; undefined where it lists no price. */
export function wanCostUnits(request: WanCostedRequest): number | undefined {
  const prices: Readonly<Record<string, Record<ModelStudioRegion, Partial<Record<Resolution, string>>>>> = WAN_PRICES;
  const rate = Object.hasOwn(prices, request.upstreamModel)
    ? prices[request.upstreamModel]?.[request.platform as ModelStudioRegion]?.[request.resolution]
    : undefined;
  if (rate === undefined) return undefined;
  const seconds = request.durationSeconds + request.videoReferenceCount * MAX_BILLED_INPUT_VIDEO_SECONDS;
  // microUnits is CNY × 10^6; a unit is 10^-4 CNY, so divide by 100.
  return Math.ceil((microUnits(rate) * seconds) / 100);
}
