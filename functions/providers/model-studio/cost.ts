/**
 * What Model Studio charges for a task (docs/money-and-ledger.md, "Margins"): per second of output by resolution
 * (docs/providers/model-studio.md), each reference video billed as `input_seconds_per_video` seconds more.
 */
import type { CostedRequest, UpstreamPrice } from '../../core/provider-contract.js';

export function modelStudioCostUnits(price: UpstreamPrice, request: CostedRequest, cnyPerUsd: number): number {
  const rates = price['per_second'] as Readonly<Record<string, number>> | undefined;
  const rate = rates?.[request.resolution];
  if (rate === undefined) throw new Error(`no per-second price for ${request.upstreamModel} at ${request.resolution}`);
  const perVideo = (price['input_seconds_per_video'] as number | undefined) ?? 0;
  const seconds = request.durationSeconds + request.videoReferenceCount * perVideo;
  const cny = price.currency === 'USD' ? rate * cnyPerUsd : rate;
  // Units of 0.0001 CNY; rounded to 6 decimals first, so a CNY rate × seconds is not lost to binary fractions.
  return Math.ceil(Math.round(seconds * cny * 1e10) / 1e6);
}
