/**
 * The webhook queue in SQS: the consumer's and the requeuer's next messages (with a message timer), and
 * the dead-letter queue where the consumer parks a message after the last try or one it cannot read.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { WebhookQueue } from '../../core/ports/webhooks.js';
import type { WebhookMessage } from '../../core/webhook.js';
import { MAX_MESSAGE_DELAY_SECONDS } from '../../core/webhook.js';
import { webhookDeadLetterQueueUrl } from '../runtime/resources.js';

export class SqsWebhookQueue implements WebhookQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(message: WebhookMessage, delaySeconds: number): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(message),
        DelaySeconds: Math.min(Math.max(0, Math.ceil(delaySeconds)), MAX_MESSAGE_DELAY_SECONDS),
      }),
    );
  }

  async park(body: string, reason: string): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        // Derived when needed, not at cold start: a queue URL of another shape fails the parking, not the load.
        QueueUrl: webhookDeadLetterQueueUrl(this.queueUrl),
        MessageBody: body,
        // An operator sees why without the logs; a redrive to the webhook queue keeps the body as it was.
        MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 1000) } },
      }),
    );
  }
}
