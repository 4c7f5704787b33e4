/** Composition of the webhook consumer's adapters from the environment (read at cold start). */
import { dynamoDocumentClient } from './dynamodb-client.js';
import { readEnv } from './config.js';
import { outboundAddressPolicy } from './url-policy-dependencies.js';
import { DynamoDbWebhookAttemptLog, DynamoDbWebhookSecrets } from './dynamodb-webhooks.js';
import { HttpWebhookSender } from './webhook-sender.js';

export function webhookSecrets() {
  return new DynamoDbWebhookSecrets(dynamoDocumentClient(), readEnv('accountsTable'));
}

export function webhookAttemptLog() {
  return new DynamoDbWebhookAttemptLog(dynamoDocumentClient(), readEnv('tasksTable'));
}

export function webhookSender() {
  return new HttpWebhookSender({ policy: outboundAddressPolicy() });
}

/** Seconds between tries; its length + 1 must match the queue's maxReceiveCount (resources.ts). */
export function webhookRetrySchedule(): number[] {
  return readEnv('webhookRetryScheduleSeconds');
}

export function webhookQueueUrl(): string {
  return readEnv('webhookQueueUrl');
}
