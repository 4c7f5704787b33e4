/** GET /api/v1/console/keys */
import { listKeys } from '../../core/use-cases/console/list-keys.js';
import { consoleKeys } from '../../adapters/wiring/console-dependencies.js';
import { consoleRoute } from './console-route.js';

const keys = consoleKeys();

export const handler = consoleRoute(async (_event, caller) => ({ data: await listKeys(caller, keys) }));
