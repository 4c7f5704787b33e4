/** DELETE /api/v1/console/keys/{id} */
import { deleteKey } from '../../core/use-cases/console/delete-key.js';
import { keyDependencies } from '../../adapters/wiring/console-dependencies.js';
import { consoleRoute } from './console-route.js';

const deps = keyDependencies();

export const handler = consoleRoute(async (event, caller) => ({
  data: await deleteKey(caller, event.pathParameters?.['id'], deps),
}));
