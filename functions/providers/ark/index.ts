/** Volcengine Ark / BytePlus ModelArk (Seedance) as the registry lists it: its contract and its adapter. */
import type { ProviderDefinition } from '../../core/ports/video-provider.js';
import { ARK_ACCOUNT_DEFAULTS, ARK_BASE_URLS, ARK_MODELS, ARK_PRIVATE_WORDS } from './contract.js';
import type { ArkPlatform } from './contract.js';
import { arkCostUnits } from './cost.js';
import { ArkVideoProvider } from './video-provider.js';

export const provider = {
  label: 'Volcengine Ark / BytePlus ModelArk (Seedance)',
  shortName: 'Ark',
  envPrefix: 'ARK',
  platforms: ARK_BASE_URLS,
  defaultPlatform: 'byteplus',
  models: ARK_MODELS,
  accountDefaults: ARK_ACCOUNT_DEFAULTS,
  privateWords: ARK_PRIVATE_WORDS,
  upstreamCostUnits: arkCostUnits,
  // The platform was read with the contract's picklist (functions/adapters/runtime/config.ts), so it is one of Ark's.
  createVideoProvider: (options) => new ArkVideoProvider({ ...options, platform: options.platform as ArkPlatform }),
} as const satisfies ProviderDefinition;
