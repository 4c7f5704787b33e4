/** GET /api/v1/console/keys */
import { listKeys } from '../../core/use-cases/console/list-keys.js';
import { keyDependencies } from '../../adapters/wiring/console-dependencies.js';
import { consoleRoute } from './console-route.js';

const deps = keyDependencies();

export const handler = consoleRoute(async (_event, caller) => ({ data: await listKeys(caller, deps) }));
