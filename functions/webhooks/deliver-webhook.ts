/**
 * The webhook queue's consumer (SQS event source with ReportBatchItemFailures): one delivery attempt per
 * record, all records of a batch at once. A record is deleted (left out of `batchItemFailures`) when its
 * event is delivered or can never be (410, a refused address, no such task); otherwise it stays in the
 * queue, invisible until its next try (ChangeMessageVisibility), and after the last try it is made
 * visible at once so the queue's redrive moves it to the dead-letter queue. Anything unexpected (a
 * crash, DynamoDB down) also leaves it in the queue: a later try, never a silent drop.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { deliverWebhook } from '../core/use-cases/deliver-webhook.js';
import type { DeliveryDecision } from '../core/use-cases/deliver-webhook.js';
import { InvalidWebhookMessageError, MAX_RETRY_DELAY_SECONDS, parseWebhookMessage } from '../core/webhook.js';
import { sqsClient } from '../adapters/sqs-client.js';
import { logger } from '../adapters/logger.js';
import { taskRepository } from '../adapters/service-dependencies.js';
import { videoUrlSigner } from '../adapters/url-signer-dependencies.js';
import {
  webhookAttemptLog,
  webhookQueueUrl,
  webhookRetrySchedule,
  webhookSecrets,
  webhookSender,
} from '../adapters/webhook-dependencies.js';
import { countMetric, METRIC, publishMetrics } from '../adapters/metrics.js';

const deps = {
  tasks: taskRepository(),
  secrets: webhookSecrets(),
  sender: webhookSender(),
  attempts: webhookAttemptLog(),
  signer: videoUrlSigner(),
  schedule: webhookRetrySchedule(),
  now: () => new Date(),
};
const queueUrl = webhookQueueUrl();

/**
 * SQS allows a message at most 12 h of invisibility from when it was received, and the event source
 * received it a little before this invocation (up to its batching window): waits are kept this much
 * short of 12 h so ChangeMessageVisibility is never refused.
 */
const RECEIVE_MARGIN_SECONDS = 300;

export const handler = middy<SQSEvent, SQSBatchResponse>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics())
  .handler(async (event) => {
    const invokedAt = Date.now();
    const failures = await Promise.all(event.Records.map((record) => processRecord(record, invokedAt)));
    return { batchItemFailures: failures.filter((failure) => failure !== undefined) };
  });

async function processRecord(record: SQSRecord, invokedAt: number): Promise<SQSBatchItemFailure | undefined> {
  const failed = { itemIdentifier: record.messageId };
  let decision: DeliveryDecision;
  try {
    const message = parseWebhookMessage(record.body);
    const receiveCount = Number(record.attributes.ApproximateReceiveCount) || 1;
    decision = await deliverWebhook(message, receiveCount, deps);
    logger.info('webhook attempt', { task_id: message.task_id, event: message.event, receiveCount, ...decision });
    const skipped = decision.action === 'done' && decision.outcome === 'skipped';
    if (!skipped) countMetric(METRIC.webhookAttempts);
    if (!skipped && !(decision.action === 'done' && decision.outcome === 'delivered'))
      countMetric(METRIC.webhookFailures);
  } catch (error) {
    if (error instanceof InvalidWebhookMessageError) {
      // Never deliverable: keep it for an operator (it reaches the dead-letter queue).
      logger.error('unreadable webhook message', { messageId: record.messageId, error });
      await setVisibility(record, 0);
      return failed;
    }
    logger.error('webhook attempt failed unexpectedly; the message stays queued', {
      messageId: record.messageId,
      error,
    });
    return failed;
  }
  switch (decision.action) {
    case 'done':
      return undefined;
    case 'retry': {
      const elapsed = Math.ceil((Date.now() - invokedAt) / 1000);
      await setVisibility(
        record,
        Math.min(decision.delaySeconds, MAX_RETRY_DELAY_SECONDS - RECEIVE_MARGIN_SECONDS - elapsed),
      );
      return failed;
    }
    case 'dead-letter':
      await setVisibility(record, 0);
      return failed;
  }
}

/** Best effort: if it fails, the message comes back after the queue's own visibility timeout instead. */
async function setVisibility(record: SQSRecord, seconds: number): Promise<void> {
  try {
    await sqsClient().send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: Math.max(0, seconds),
      }),
    );
  } catch (error) {
    logger.warn('could not change the message visibility; the queue default applies', {
      messageId: record.messageId,
      error,
    });
  }
}
