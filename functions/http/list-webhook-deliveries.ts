/** GET /api/v1/webhook-deliveries (docs/webhooks.md, "Delivery log") */
import { listDeliveries } from '../core/use-cases/webhook-deliveries/list-deliveries.js';
import { webhookDeliveries } from '../adapters/wiring/webhook-dependencies.js';
import { authenticatedRoute } from './api-handler.js';

const deliveries = webhookDeliveries();

export const handler = authenticatedRoute(async (event, caller) => ({
  data: await listDeliveries(caller, event.queryStringParameters, deliveries),
}));
