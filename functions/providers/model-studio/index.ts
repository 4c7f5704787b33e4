/** Alibaba Cloud Model Studio (DashScope, Wan) as the registry lists it: its contract and its adapter. */
import type { ProviderDefinition } from '../../core/ports/video-provider.js';
import {
  MODEL_STUDIO_ACCOUNT_DEFAULTS,
  MODEL_STUDIO_BASE_URLS,
  MODEL_STUDIO_PRIVATE_WORDS,
  WAN_MODELS,
} from './contract.js';
import type { ModelStudioRegion } from './contract.js';
import { modelStudioCostUnits } from './cost.js';
import { ModelStudioVideoProvider } from './video-provider.js';

export const provider = {
  label: 'Alibaba Cloud Model Studio (Wan)',
  shortName: 'Model Studio',
  // DASHSCOPE_PLATFORM (the region: beijing, singapore), DASHSCOPE_BASE_URL, DASHSCOPE_API_KEY.
  envPrefix: 'DASHSCOPE',
  platforms: MODEL_STUDIO_BASE_URLS,
  defaultPlatform: 'singapore',
  models: WAN_MODELS,
  accountDefaults: MODEL_STUDIO_ACCOUNT_DEFAULTS,
  privateWords: MODEL_STUDIO_PRIVATE_WORDS,
  upstreamCostUnits: modelStudioCostUnits,
  // The platform was read with the contract's picklist (functions/adapters/runtime/config.ts), so it is a region.
  createVideoProvider: (options) =>
    new ModelStudioVideoProvider({ ...options, region: options.platform as ModelStudioRegion }),
} as const satisfies ProviderDefinition;
