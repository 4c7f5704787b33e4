/** POST /api/v1/webhook-deliveries/{id}/redeliver (docs/webhooks.md, "Delivery log") */
import { redeliver } from '../core/use-cases/webhook-deliveries/redeliver.js';
import { redeliverDependencies } from '../adapters/wiring/webhook-dependencies.js';
import { authenticatedRoute } from './api-handler.js';

const deps = redeliverDependencies();

export const handler = authenticatedRoute(async (event, caller) => ({
  data: await redeliver(caller, event.pathParameters?.['id'], deps),
}));
