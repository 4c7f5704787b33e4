/**
 * GET /api/v1/console/webhook-secret and POST …/rotate: the account's Standard Webhooks signing secret
 * (created on first use) and its rotation, after which the previous secret keeps signing for 24 h.
 */
import * as v from 'valibot';
import type { WebhookSecretAdmin } from '../../ports/console.js';
import type { ConsoleCaller } from './console-caller.js';

export const WebhookSecretViewSchema = v.strictObject({
  secret: v.pipe(v.string(), v.description('whsec_…: verify webhook-signature with it (Standard Webhooks)')),
  previous_valid_until: v.pipe(
    v.nullable(v.string()),
    v.description('Until then, webhooks are also signed with the previous secret'),
  ),
});
type WebhookSecretView = v.InferOutput<typeof WebhookSecretViewSchema>;

export async function getWebhookSecret(
  caller: ConsoleCaller,
  deps: { secrets: WebhookSecretAdmin; now: () => Date },
): Promise<WebhookSecretView> {
  const secret = await deps.secrets.currentSecret(caller.accountId);
  return { secret, previous_valid_until: await deps.secrets.previousUntil(caller.accountId, deps.now()) };
}

export async function rotateWebhookSecret(
  caller: ConsoleCaller,
  deps: { secrets: WebhookSecretAdmin; now: () => Date },
): Promise<WebhookSecretView> {
  const { secret, previousUntil } = await deps.secrets.rotate(caller.accountId, deps.now());
  return { secret, previous_valid_until: previousUntil };
}
