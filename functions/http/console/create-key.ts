/** POST /api/v1/console/keys */
import { createKey } from '../../core/use-cases/console/create-key.js';
import { keyDependencies } from '../../adapters/wiring/console-dependencies.js';
import { consoleBody, consoleRoute } from './console-route.js';

const deps = keyDependencies();

export const handler = consoleRoute(async (event, caller) => ({
  data: await createKey(caller, consoleBody(event), deps),
}));
