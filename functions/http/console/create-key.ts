/** POST /api/v1/console/keys */
import { createKey } from '../../core/use-cases/console/create-key.js';
import { consoleKeys } from '../../adapters/wiring/console-dependencies.js';
import { readEnv } from '../../adapters/runtime/config.js';
import { consoleBody, consoleRoute } from './console-route.js';

const deps = { keys: consoleKeys(), defaultRatePerSecond: readEnv('defaultRateLimitPerSecond'), now: () => new Date() };

export const handler = consoleRoute(async (event, caller) => ({
  data: await createKey(caller, consoleBody(event), deps),
}));
