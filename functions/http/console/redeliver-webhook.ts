/** POST /api/v1/console/webhook-deliveries/{id}/redeliver: as the public route, for the signed-in account. */
import { redeliver } from '../../core/use-cases/webhook-deliveries/redeliver.js';
import { redeliverDependencies } from '../../adapters/wiring/webhook-dependencies.js';
import { consoleRoute } from './console-route.js';

const deps = redeliverDependencies();

export const handler = consoleRoute(async (event, caller) => ({
  data: await redeliver(caller, event.pathParameters?.['id'], deps),
}));
