/** Ark's simulator as the local stack starts it (lib/dev/simulators/simulator.ts). */
import type { ProviderSimulator } from '../simulator.js';
import type { ArkPlatform } from './models.js';
import { startUpstreamSimulator } from './simulator.js';

export const simulator: ProviderSimulator = {
  // The name from when Ark was the only provider: a kept data directory still finds its jobs.
  stateFile: 'upstream-jobs.json',
  // The platform is one of Ark's (checked by the adapter's picklist, or typed by the caller).
  start: ({ platform, ...options }) => startUpstreamSimulator({ ...options, platform: platform as ArkPlatform }),
};
