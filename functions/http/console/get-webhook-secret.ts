/** GET /api/v1/console/webhook-secret */
import { getWebhookSecret } from '../../core/use-cases/console/webhook-secret.js';
import { webhookSecrets } from '../../adapters/wiring/webhook-dependencies.js';
import { consoleRoute } from './console-route.js';

const deps = { secrets: webhookSecrets(), now: () => new Date() };

export const handler = consoleRoute(async (_event, caller) => ({ data: await getWebhookSecret(caller, deps) }));
