/**
 * The webhook queue's consumer (Powertools Batch): each record is one try, or one hop of a message not due
 * yet. What follows is a new message (a retry with its timer, or a copy parked in the DLQ), so the record
 * is deleted; only something unexpected leaves it queued, back after its visibility timeout.
 */
import middy from '@middy/core';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { deliverWebhook } from '../core/use-cases/deliver-webhook.js';
import type { DeliveryDecision } from '../core/use-cases/deliver-webhook.js';
import { InvalidWebhookMessageError, parseWebhookMessage } from '../core/webhook.js';
import type { WebhookMessage } from '../core/webhook.js';
import { logger } from '../adapters/runtime/logger.js';
import { taskRepository } from '../adapters/wiring/service-dependencies.js';
import { videoUrlSigner } from '../adapters/wiring/url-signer-dependencies.js';
import {
  webhookAttemptLog,
  webhookDeliveries,
  webhookQueue,
  webhookRetrySchedule,
  webhookSecrets,
  webhookSender,
} from '../adapters/wiring/webhook-dependencies.js';
import { countMetric, METRIC, publishMetrics } from '../adapters/runtime/metrics.js';
import { WEBHOOK_QUEUE } from '../adapters/runtime/resources.js';

const deps = {
  tasks: taskRepository(),
  secrets: webhookSecrets(),
  sender: webhookSender(),
  attempts: webhookAttemptLog(),
  deliveries: webhookDeliveries(),
  signer: videoUrlSigner(),
  schedule: webhookRetrySchedule(),
  // No run outlives its timeout, so a try's claim outlives the run that holds it.
  claimSeconds: WEBHOOK_QUEUE.consumer.timeoutSeconds,
  now: () => new Date(),
};
const queue = webhookQueue();

export const handler = middy<SQSEvent, SQSBatchResponse>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics())
  .handler(async (event, context) =>
    // A processor per batch: it keeps its batch on itself, and the local stack runs batches in-process.
    processPartialResponse(event, deliver, new BatchProcessor(EventType.SQS), {
      context,
      // A record that failed stays queued and comes back: a batch that failed whole must not throw as well,
      // which would count as a Lambda error (and slow the poller) for no change in what happens to it.
      throwOnFullBatchFailure: false,
    }),
  );

/** Resolves when the record is done with (deleted); throws to keep it queued. */
async function deliver(record: SQSRecord): Promise<void> {
  let message: WebhookMessage;
  try {
    message = parseWebhookMessage(record.body);
  } catch (error) {
    if (!(error instanceof InvalidWebhookMessageError)) throw error;
    // Never deliverable: for an operator, at once.
    logger.error('unreadable webhook message: parked in the dead-letter queue', { messageId: record.messageId, error });
    await queue.park(record.body, error.message);
    return;
  }
  let decision: DeliveryDecision;
  try {
    decision = await deliverWebhook(message, deps);
  } catch (error) {
    logger.error('webhook attempt failed unexpectedly; the message stays queued', {
      messageId: record.messageId,
      error,
    });
    throw error;
  }
  const { action, detail } = decision;
  const tried = action === 'retry' || action === 'dead-letter' || (action === 'done' && decision.outcome !== 'skipped');
  if (action !== 'wait')
    logger.info('webhook message', { task_id: message.task_id, event: message.event, action, detail });
  if (tried) countMetric(METRIC.webhookAttempts);
  if (tried && !(action === 'done' && decision.outcome === 'delivered')) countMetric(METRIC.webhookFailures);
  switch (decision.action) {
    case 'done':
      return;
    case 'wait':
    case 'retry':
      // Recorded on the task already: if this send failed, the message that comes back would be a stale
      // duplicate, and the requeuer carries the event on once the try is overdue.
      await queue.send(decision.message, decision.delaySeconds);
      return;
    case 'dead-letter':
      try {
        await queue.park(JSON.stringify(decision.message), detail);
      } catch (error) {
        // The task says failed whatever happens here; only the operator's copy is lost.
        logger.error('could not park a failed webhook in the dead-letter queue', { task_id: message.task_id, error });
      }
      return;
  }
}
