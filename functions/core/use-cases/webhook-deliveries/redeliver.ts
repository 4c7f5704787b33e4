/**
 * POST /api/v1/webhook-deliveries/{id}/redeliver (and the console's): the event of a logged delivery sent again,
 * now, as a fresh try with the same `webhook-id`, so a receiver that has it already drops it (docs/webhooks.md,
 * "Delivery log"). Primary course: find the delivery among the caller's (else a 404) → the task's payload as a
 * webhook would carry it now (a fresh video URL) → one signed POST to the task's URL → logged as a redelivery →
 * answered. It leaves the task's own webhook state and retries as they are.
 */
import { InvalidRequestError, NotFoundError } from '../../api-error.js';
import type { TaskRepository } from '../../ports/task-repository.js';
import type { VideoUrlSigner } from '../../ports/video-storage.js';
import type { WebhookDeliveryLog, WebhookSecretStore, WebhookSender } from '../../ports/webhooks.js';
import { attemptError, buildWebhookPayload, judgeAttempt } from '../../webhook.js';
import { deliveryRecord, toDeliveryView } from '../../webhook-delivery.js';
import type { DeliveryView } from '../../webhook-delivery.js';
import type { AccountCaller } from '../authenticate.js';
import { withUsableVideoUrl } from '../deliver-webhook.js';

export interface RedeliverDeps {
  deliveries: Pick<WebhookDeliveryLog, 'get' | 'record'>;
  tasks: Pick<TaskRepository, 'get'>;
  secrets: WebhookSecretStore;
  sender: WebhookSender;
  signer: VideoUrlSigner;
  now: () => Date;
}

const DELIVERY_ID = /^wd_[0-9a-z]{9}[0-9a-f]{12}$/;

export async function redeliver(
  caller: AccountCaller | Promise<AccountCaller>,
  deliveryId: string | undefined,
  deps: RedeliverDeps,
): Promise<DeliveryView> {
  const { accountId } = await caller;
  if (!deliveryId || !DELIVERY_ID.test(deliveryId)) {
    throw new InvalidRequestError('id must be a delivery id as the delivery log shows it, wd_…');
  }
  const missing = new NotFoundError(`no webhook delivery ${deliveryId} in this account (the log keeps 30 days)`);
  const delivery = await deps.deliveries.get(accountId, deliveryId);
  if (!delivery) throw missing;
  const task = await deps.tasks.get(delivery.task_id);
  if (!task || task.account_id !== accountId) throw missing;
  const url = task.generation.webhookUrl;
  const payload = buildWebhookPayload(await withUsableVideoUrl(task, deps));
  if (!url || !payload) throw new InvalidRequestError(`task ${task.task_id} has no webhook to send`);
  const secrets = await deps.secrets.signingSecrets(accountId, deps.now());
  if (!secrets) throw missing;

  const at = deps.now();
  const result = await deps.sender.send({
    url,
    id: delivery.webhook_id,
    timestamp: at,
    body: JSON.stringify(payload),
    secrets,
  });
  const record = deliveryRecord({
    accountId,
    webhookId: delivery.webhook_id,
    event: delivery.event,
    taskId: task.task_id,
    url,
    at,
    latencyMs: deps.now().getTime() - at.getTime(),
    result,
    error: attemptError(result),
    outcome: judgeAttempt(result) === 'delivered' ? 'delivered' : 'failed',
    redelivery: true,
  });
  await deps.deliveries.record(record);
  return toDeliveryView(record);
}
