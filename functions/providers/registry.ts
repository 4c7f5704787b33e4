/**
 * Every upstream provider, listed once: one line each, its folder's `provider` (docs/providers/README.md). The
 * catalog's provider picklist, the environment each adapter reads, CDK's secret and access, the local stack's
 * simulators (lib/dev/simulators/<name>/) and the metric dimensions all derive from this list.
 */
import type { ProviderDefinition } from '../core/ports/video-provider.js';
import { toVideoModel } from '../core/video-model.js';
import type { VideoModel } from '../core/video-model.js';
import { provider as ark } from './ark/index.js';
import { provider as modelStudio } from './model-studio/index.js';

export const PROVIDERS = {
  ark,
  'model-studio': modelStudio,
} as const satisfies Record<string, ProviderDefinition>;

export type ProviderName = keyof typeof PROVIDERS;
export const PROVIDER_NAMES = Object.keys(PROVIDERS) as [ProviderName, ...ProviderName[]];

export function platformsOf(provider: ProviderName): [string, ...string[]] {
  return Object.keys(PROVIDERS[provider].platforms) as [string, ...string[]];
}

/** The platform's API base: the endpoint used unless `<PREFIX>_BASE_URL` says otherwise. */
export function platformBaseUrl(provider: ProviderName, platform: string): string {
  const bases: Readonly<Record<string, string>> = PROVIDERS[provider].platforms;
  const base = bases[platform];
  if (base === undefined) throw new Error(`${provider} has no platform ${platform}`);
  return base;
}

/** What a new upstream account of the provider starts with (docs/upstream-capacity.md); undefined: no such provider. */
export function upstreamAccountDefaults(provider: string): { capacity: number; inflightCeiling?: number } | undefined {
  return Object.hasOwn(PROVIDERS, provider) ? PROVIDERS[provider as ProviderName].accountDefaults : undefined;
}

/** A catalog record read against the registered providers' contracts, on each provider's platform when given. */
export function catalogVideoModel(input: unknown, platforms?: Readonly<Partial<Record<string, string>>>): VideoModel {
  return toVideoModel(input, PROVIDERS, platforms);
}
