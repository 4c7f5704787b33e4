/** The webhook functions' adapters (consumer and requeuer), composed from the environment at cold start. */
import { dynamoDocumentClient } from '../dynamodb/client.js';
import { readEnv } from '../runtime/config.js';
import { outboundAddressPolicy } from './url-policy-dependencies.js';
import { DynamoDbPendingWebhooks, DynamoDbWebhookAttemptLog, DynamoDbWebhookSecrets } from '../dynamodb/webhooks.js';
import { DynamoDbWebhookDeliveries } from '../dynamodb/webhook-deliveries.js';
import { sqsClient } from '../sqs/client.js';
import { taskRepository } from './service-dependencies.js';
import { videoUrlSigner } from './url-signer-dependencies.js';
import { SqsWebhookQueue } from '../sqs/webhook-queue.js';
import { HttpWebhookSender } from '../outbound/webhook-sender.js';

export function webhookSecrets() {
  return new DynamoDbWebhookSecrets(dynamoDocumentClient(), readEnv('accountsTable'));
}

export function webhookAttemptLog() {
  return new DynamoDbWebhookAttemptLog(dynamoDocumentClient(), readEnv('tasksTable'));
}

export function webhookDeliveries() {
  return new DynamoDbWebhookDeliveries(dynamoDocumentClient(), readEnv('webhookDeliveriesTable'));
}

export function webhookSender() {
  return new HttpWebhookSender({ policy: outboundAddressPolicy() });
}

/** Seconds between tries (the try count lives on the task, not in the queue's receive count). */
export function webhookRetrySchedule(): number[] {
  return readEnv('webhookRetryScheduleSeconds');
}

export function webhookQueueUrl(): string {
  return readEnv('webhookQueueUrl');
}

export function webhookQueue() {
  return new SqsWebhookQueue(sqsClient(), webhookQueueUrl());
}

export function pendingWebhooks() {
  return new DynamoDbPendingWebhooks(dynamoDocumentClient(), readEnv('tasksTable'));
}

/** A rotation that lost a race with another (RotateWebhookSecret answers it as a 400). */
export { ConcurrentRotationError } from '../dynamodb/webhooks.js';

/** What a redeliver needs: the log, the task, the secrets, the sender, a fresh video URL. */
export function redeliverDependencies() {
  return {
    deliveries: webhookDeliveries(),
    tasks: taskRepository(),
    secrets: webhookSecrets(),
    sender: webhookSender(),
    signer: videoUrlSigner(),
    now: () => new Date(),
  };
}
