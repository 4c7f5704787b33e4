/** POST /api/v1/console/webhook-secret/rotate */
import { InvalidRequestError } from '../../core/api-error.js';
import { rotateWebhookSecret } from '../../core/use-cases/console/webhook-secret.js';
import { ConcurrentRotationError, webhookSecrets } from '../../adapters/wiring/webhook-dependencies.js';
import { consoleRoute } from './console-route.js';

const deps = { secrets: webhookSecrets(), now: () => new Date() };

export const handler = consoleRoute(async (_event, caller) => {
  try {
    return { data: await rotateWebhookSecret(caller, deps) };
  } catch (error) {
    if (error instanceof ConcurrentRotationError) throw new InvalidRequestError(error.message);
    throw error;
  }
});
