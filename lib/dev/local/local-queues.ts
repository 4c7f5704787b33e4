/** The webhook queue and its dead-letter queue in the local SQS (fauxqs), from the shared definition. */
import { CreateQueueCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { WEBHOOK_QUEUE } from '../../../functions/adapters/runtime/resources.js';
import type { physicalNames } from '../../../functions/adapters/runtime/resources.js';

export interface LocalQueue {
  url: string;
  arn: string;
}

export interface WebhookQueues {
  queue: LocalQueue;
  deadLetterQueue: LocalQueue;
}

/**
 * `maxReceiveCount` (the redrive's, default as in AWS) counts receives a consumer failed on, not tries.
 * `endpoint` is the emulator's: queue URLs are given on its host (fauxqs names them
 * `sqs.<region>.localhost`, which does not resolve, and the SDK sends each call to its QueueUrl's host).
 */
export async function createWebhookQueues(
  sqs: SQSClient,
  endpoint: string,
  names: ReturnType<typeof physicalNames>,
  maxReceiveCount: number = WEBHOOK_QUEUE.maxReceiveCount,
): Promise<WebhookQueues> {
  const deadLetterQueue = await createQueue(sqs, endpoint, names.webhookDeadLetterQueue, {
    MessageRetentionPeriod: String(14 * 24 * 60 * 60),
  });
  const queue = await createQueue(sqs, endpoint, names.webhookQueue, {
    VisibilityTimeout: String(WEBHOOK_QUEUE.visibilityTimeoutSeconds),
    MessageRetentionPeriod: String(WEBHOOK_QUEUE.retentionSeconds),
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetterQueue.arn, maxReceiveCount }),
  });
  return { queue, deadLetterQueue };
}

async function createQueue(
  sqs: SQSClient,
  endpoint: string,
  name: string,
  attributes: Record<string, string>,
): Promise<LocalQueue> {
  const created = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  if (!created.QueueUrl) throw new Error(`the local SQS created no queue ${name}`);
  // fauxqs finds a queue by the name in the URL's path, whatever the host.
  const QueueUrl = new URL(new URL(created.QueueUrl).pathname, endpoint).href;
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  const arn = Attributes?.QueueArn;
  if (!arn) throw new Error(`the local SQS reports no ARN for queue ${name}`);
  return { url: QueueUrl, arn };
}
