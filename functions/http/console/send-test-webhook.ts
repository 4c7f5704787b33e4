/** POST /api/v1/console/webhook-test */
import { sendTestWebhook } from '../../core/use-cases/console/send-test-webhook.js';
import { webhookSecrets, webhookSender } from '../../adapters/wiring/webhook-dependencies.js';
import { consoleBody, consoleRoute } from './console-route.js';

const deps = { secrets: webhookSecrets(), sender: webhookSender(), now: () => new Date() };

export const handler = consoleRoute(async (event, caller) => ({
  data: await sendTestWebhook(caller, consoleBody(event), deps),
}));
