/**
 * Every upstream provider, listed once. The catalog's provider picklist, the environment each adapter
 * reads, CDK's secret and access, the local stack and the metric dimensions all derive from this list;
 * the adapter and the simulator are keyed by its names, so a missing one fails typechecking.
 */
import { ARK_BASE_URLS, ARK_MODELS } from './ark/contract.js';
import type { UpstreamModel } from './ark/contract.js';

export const PROVIDERS = {
  ark: {
    label: 'Volcengine Ark / BytePlus ModelArk (Seedance)',
    /** Its variables: `ARK_PLATFORM`, `ARK_BASE_URL`, `ARK_API_KEY` (local), `ARK_API_KEY_SECRET_ARN` (AWS). */
    envPrefix: 'ARK',
    /** Each platform's API base; the platform also picks the model ids (ark/contract.ts). */
    platforms: ARK_BASE_URLS,
    defaultPlatform: 'byteplus',
    /** Its models' documented contract, by the key a catalog record names in `upstream.model`. */
    models: ARK_MODELS,
  },
} as const;

export type ProviderName = keyof typeof PROVIDERS;
export const PROVIDER_NAMES = Object.keys(PROVIDERS) as [ProviderName, ...ProviderName[]];
export type ProviderPlatform<P extends ProviderName = ProviderName> = keyof (typeof PROVIDERS)[P]['platforms'];

export function platformsOf(provider: ProviderName): [string, ...string[]] {
  return Object.keys(PROVIDERS[provider].platforms) as [string, ...string[]];
}

/** The documented contract of one of the provider's models; undefined for a key it does not list. */
export function upstreamModel(provider: ProviderName, key: string): UpstreamModel | undefined {
  const models: Readonly<Record<string, UpstreamModel>> = PROVIDERS[provider].models;
  return Object.hasOwn(models, key) ? models[key] : undefined;
}

/** The platform's API base: the endpoint used unless `<PREFIX>_BASE_URL` says otherwise. */
export function platformBaseUrl(provider: ProviderName, platform: string): string {
  const bases: Readonly<Record<string, string>> = PROVIDERS[provider].platforms;
  const base = bases[platform];
  if (base === undefined) throw new Error(`${provider} has no platform ${platform}`);
  return base;
}
