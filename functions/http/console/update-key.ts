/** PATCH /api/v1/console/keys/{id} */
import { updateKey } from '../../core/use-cases/console/update-key.js';
import { keyDependencies } from '../../adapters/wiring/console-dependencies.js';
import { consoleBody, consoleRoute } from './console-route.js';

const deps = keyDependencies();

export const handler = consoleRoute(async (event, caller) => ({
  data: await updateKey(caller, event.pathParameters?.['id'], consoleBody(event), deps),
}));
