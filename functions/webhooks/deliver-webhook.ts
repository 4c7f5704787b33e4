/**
 * The webhook queue's consumer (SQS event source with ReportBatchItemFailures), through Powertools Batch:
 * one delivery attempt per record, all records of a batch at once. A record is deleted (it succeeds) when
 * its event is delivered or can never be (410, a refused address, no such task); otherwise it fails and
 * stays queued, invisible until its next try (ChangeMessageVisibility), or, after the last try, visible at
 * once so the redrive moves it to the dead-letter queue. Anything unexpected also leaves it queued.
 */
import middy from '@middy/core';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
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

/** Thrown for a record that must stay queued: Powertools reports it in `batchItemFailures`. */
class StaysQueued extends Error {}

export const handler = middy<SQSEvent, SQSBatchResponse>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics())
  .handler(async (event, context) => {
    const invokedAt = Date.now();
    const deliverRecord = (record: SQSRecord) => deliver(record, invokedAt);
    // A processor per batch: it keeps its batch on itself, and the local stack runs batches in-process.
    return processPartialResponse(event, deliverRecord, new BatchProcessor(EventType.SQS), {
      context,
      // A failed record is a retry scheduled by design (its visibility already set), not a function error:
      // a batch that failed whole must not throw, which would count as a Lambda error (alarms, and the SQS
      // poller backing off) while leaving the messages exactly where reporting them all leaves them.
      throwOnFullBatchFailure: false,
    });
  });

async function deliver(record: SQSRecord, invokedAt: number): Promise<void> {
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
      throw error;
    }
    logger.error('webhook attempt failed unexpectedly; the message stays queued', {
      messageId: record.messageId,
      error,
    });
    throw error;
  }
  switch (decision.action) {
    case 'done':
      return;
    case 'retry': {
      const elapsed = Math.ceil((Date.now() - invokedAt) / 1000);
      await setVisibility(
        record,
        Math.min(decision.delaySeconds, MAX_RETRY_DELAY_SECONDS - RECEIVE_MARGIN_SECONDS - elapsed),
      );
      throw new StaysQueued(decision.detail);
    }
    case 'dead-letter':
      await setVisibility(record, 0);
      throw new StaysQueued(decision.detail);
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
