/** Model Studio's simulator as the local stack starts it (lib/dev/simulators/simulator.ts). */
import type { ProviderSimulator } from '../simulator.js';
import { startModelStudioSimulator } from './simulator.js';
import type { Region } from './simulator.js';

export const simulator: ProviderSimulator = {
  stateFile: 'model-studio-jobs.json',
  // The platform is a region (checked by the adapter's picklist, or typed by the caller). Its concurrent and
  // per-second limits are a test's knobs (unconfirmed numbers): the local stack runs without them.
  start: ({ platform, queuedMs, runningMs, apiKeys, masterAccounts, stateFile }) =>
    startModelStudioSimulator({ region: platform as Region, queuedMs, runningMs, apiKeys, masterAccounts, stateFile }),
};
