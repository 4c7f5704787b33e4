/** Composition of the webhook consumer's adapters from the environment (read at cold start). */
import { TABLES, WEBHOOK_QUEUE } from '../../lib/resource-definitions.js';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS, parseWebhookRetrySchedule } from '../core/webhook.js';
import { dynamoDocumentClient } from './dynamodb-client.js';
import { MissingConfigError, optionalEnv, requireEnv } from './config.js';
import { outboundAddressPolicy } from './url-policy-dependencies.js';
import { DynamoDbWebhookAttemptLog, DynamoDbWebhookSecrets } from './dynamodb-webhooks.js';
import { HttpWebhookSender } from './webhook-sender.js';

export function webhookSecrets() {
  return new DynamoDbWebhookSecrets(dynamoDocumentClient(), requireEnv(TABLES.accounts.envVar));
}

export function webhookAttemptLog() {
  return new DynamoDbWebhookAttemptLog(dynamoDocumentClient(), requireEnv(TABLES.tasks.envVar));
}

export function webhookSender() {
  return new HttpWebhookSender({ policy: outboundAddressPolicy() });
}

/** Seconds between tries (WEBHOOK_RETRY_SCHEDULE_SECONDS); its length + 1 must match the queue's maxReceiveCount. */
export function webhookRetrySchedule(): number[] {
  const text = optionalEnv('WEBHOOK_RETRY_SCHEDULE_SECONDS', DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS.join(','));
  try {
    return parseWebhookRetrySchedule(text);
  } catch (error) {
    throw new MissingConfigError(`environment variable WEBHOOK_RETRY_SCHEDULE_SECONDS: ${(error as Error).message}`);
  }
}

export function webhookQueueUrl(): string {
  return requireEnv(WEBHOOK_QUEUE.envVar);
}
