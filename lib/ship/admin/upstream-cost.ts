/**
 * The upstreams' price list (lib/ship/seed/upstream-prices.json, docs/money-and-ledger.md, "Margins") and what a task
 * costs us by it: the model's provider (its registry entry) knows how it bills.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import type { CostedRequest } from '../../../functions/core/provider-contract.js';
import { modelOf } from '../../../functions/core/provider-contract.js';
import { PROVIDERS } from '../../../functions/providers/registry.js';
import { REPOSITORY_ROOT } from '../repository-root.js';

export type { CostedRequest };

const Rate = v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/), v.transform(Number));
const PricesSchema = v.object({
  updated: v.string(),
  cny_per_usd: Rate,
  models: v.record(
    v.string(),
    v.record(
      v.string(),
      v.object({
        currency: v.picklist(['CNY', 'USD']),
        /** Per million tokens, or … */
        per_million_tokens: v.optional(
          v.object({
            default: Rate,
            with_audio: v.optional(Rate),
            with_video_input: v.optional(Rate),
            '1080p': v.optional(Rate),
            '1080p_with_video_input': v.optional(Rate),
          }),
        ),
        /** … per second of output by resolution, each reference video billed as this many seconds more. */
        per_second: v.optional(v.record(v.string(), Rate)),
        input_seconds_per_video: v.optional(v.number()),
        source: v.string(),
        confirmed: v.boolean(),
      }),
    ),
  ),
});
export type UpstreamPrices = v.InferOutput<typeof PricesSchema>;

export function readUpstreamPrices(file = join(REPOSITORY_ROOT, 'lib/ship/seed/upstream-prices.json')): UpstreamPrices {
  return v.parse(PricesSchema, JSON.parse(readFileSync(file, 'utf8')));
}

/** Our upstream's cost in units of 0.0001 CNY, rounded up; undefined where the platform has no price for the model. */
export function upstreamCostUnits(prices: UpstreamPrices, request: CostedRequest): number | undefined {
  const price = prices.models[request.upstreamModel]?.[request.platform];
  if (!price) return undefined;
  const provider = Object.values(PROVIDERS).find((contract) => modelOf(contract, request.upstreamModel));
  if (!provider) throw new Error(`${request.upstreamModel}: no provider lists this model`);
  return provider.upstreamCostUnits(price, request, prices.cny_per_usd);
}
