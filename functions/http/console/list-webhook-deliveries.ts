/** GET /api/v1/console/webhook-deliveries: as GET /api/v1/webhook-deliveries, for the signed-in account. */
import { listDeliveries } from '../../core/use-cases/webhook-deliveries/list-deliveries.js';
import { webhookDeliveries } from '../../adapters/wiring/webhook-dependencies.js';
import { consoleRoute } from './console-route.js';

const deliveries = webhookDeliveries();

export const handler = consoleRoute(async (event, caller) => ({
  data: await listDeliveries(caller, event.queryStringParameters, deliveries),
}));
