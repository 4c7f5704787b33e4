/**
 * The webhook queue locally (fauxqs) and the in-process SQS event source that runs the consumer: what
 * the handler reports failed stays queued, a crashed handler loses nothing (the message comes back with
 * its receive count up), and after maxReceiveCount receives the redrive moves it to the dead-letter queue.
 */
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3AndSqs } from '../../lib/local/emulators.js';
import type { Fauxqs } from '../../lib/local/emulators.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/local-aws.js';
import { createWebhookQueues } from '../../lib/local/local-queues.js';
import type { WebhookQueues } from '../../lib/local/local-queues.js';
import { startSqsEventSource } from '../../lib/local/sqs-event-source.js';
import type { SqsHandler } from '../../lib/local/sqs-event-source.js';
import { physicalNames, WEBHOOK_QUEUE } from '../../functions/adapters/resources.js';
import { pollUntil } from '../support/test-stack.js';

let fauxqs: Fauxqs;
let sqs: SQSClient;
let prefixCount = 0;

beforeAll(async () => {
  fauxqs = await startS3AndSqs(undefined);
  sqs = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: fauxqs.endpoint });
});
afterAll(async () => {
  sqs?.destroy();
  await fauxqs?.stop();
});

/** Fresh queues per test; visibility 1 s so a crashed batch comes back quickly. */
async function queues(maxReceiveCount: number): Promise<WebhookQueues> {
  prefixCount += 1;
  const created = await createWebhookQueues(sqs, fauxqs.endpoint, physicalNames(`t${prefixCount}`), maxReceiveCount);
  await sqs.send(
    new SetQueueAttributesCommand({ QueueUrl: created.queue.url, Attributes: { VisibilityTimeout: '1' } }),
  );
  return created;
}

async function counts(url: string) {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
}

function eventSource(created: WebhookQueues, handler: SqsHandler) {
  return startSqsEventSource({
    sqs,
    queueUrl: created.queue.url,
    queueArn: created.queue.arn,
    handler: async () => handler,
    functionName: 'test-consumer',
    onError: () => undefined,
  });
}

describe('the local webhook queue', () => {
  it('is created from the shared definition, with the redrive to its dead-letter queue', async () => {
    const created = await createWebhookQueues(sqs, fauxqs.endpoint, physicalNames('def'), 4);
    expect(created.queue.url).toBe(`${fauxqs.endpoint}/000000000000/def-webhooks`);
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: created.queue.url, AttributeNames: ['All'] }),
    );
    expect(Attributes?.VisibilityTimeout).toBe(String(WEBHOOK_QUEUE.visibilityTimeoutSeconds));
    expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: created.deadLetterQueue.arn,
      maxReceiveCount: 4,
    });
  });
});

describe('the local SQS event source', () => {
  it('hands SQS-shaped batches to the handler and deletes all but the reported failures', async () => {
    const created = await queues(10);
    for (const body of ['keep', 'drop-1', 'drop-2']) {
      await sqs.send(new SendMessageCommand({ QueueUrl: created.queue.url, MessageBody: body }));
    }
    const seen: SQSEvent['Records'] = [];
    const source = eventSource(created, async (event): Promise<SQSBatchResponse> => {
      seen.push(...event.Records);
      return {
        batchItemFailures: event.Records.filter((record) => record.body === 'keep').map((record) => ({
          itemIdentifier: record.messageId,
        })),
      };
    });
    try {
      await pollUntil(
        () => counts(created.queue.url),
        (count) => count === 1 && seen.length >= 3,
        { timeoutMs: 10_000 },
      );
    } finally {
      await source.stop();
    }
    expect(seen[0]).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: created.queue.arn,
      awsRegion: LOCAL_REGION,
      attributes: { ApproximateReceiveCount: '1' },
    });
  });

  it('a handler that crashes deletes nothing: the message comes back, its receive count up', async () => {
    const created = await queues(10);
    await sqs.send(new SendMessageCommand({ QueueUrl: created.queue.url, MessageBody: 'event' }));
    const receiveCounts: string[] = [];
    const source = eventSource(created, async (event) => {
      receiveCounts.push(event.Records[0]!.attributes.ApproximateReceiveCount);
      if (receiveCounts.length === 1) throw new Error('crashed mid-delivery');
      return { batchItemFailures: [] };
    });
    try {
      await pollUntil(
        () => counts(created.queue.url),
        (count) => count === 0 && receiveCounts.length === 2,
        { timeoutMs: 10_000 },
      );
    } finally {
      await source.stop();
    }
    expect(receiveCounts).toEqual(['1', '2']);
  });

  // The webhook consumer reports a batch that failed whole (Powertools' throwOnFullBatchFailure: false);
  // thrown instead, the messages would fare the same, only with a function error on top.
  it.each([
    ['reported message by message (as the consumer does)', false],
    ["thrown as Powertools' FullBatchFailureError", true],
  ])('a batch that failed whole, %s, keeps every message: each comes back', async (_name, throwOnFullBatchFailure) => {
    const created = await queues(10);
    for (const body of ['first', 'second']) {
      await sqs.send(new SendMessageCommand({ QueueUrl: created.queue.url, MessageBody: body }));
    }
    const receives: Record<string, string[]> = {};
    const errors: unknown[] = [];
    const failFirstTry = async (record: SQSRecord) => {
      const seen = (receives[record.body] ??= []);
      seen.push(record.attributes.ApproximateReceiveCount);
      if (seen.length === 1) throw new Error('receiver down');
    };
    const source = startSqsEventSource({
      sqs,
      queueUrl: created.queue.url,
      queueArn: created.queue.arn,
      handler: async () => async (event) =>
        processPartialResponse(event, failFirstTry, new BatchProcessor(EventType.SQS), { throwOnFullBatchFailure }),
      functionName: 'test-consumer',
      onError: (error) => errors.push(error),
    });
    try {
      await pollUntil(
        () => counts(created.queue.url),
        (count) => count === 0 && receives['first']?.length === 2 && receives['second']?.length === 2,
        { timeoutMs: 10_000 },
      );
    } finally {
      await source.stop();
    }
    expect(receives).toEqual({ first: ['1', '2'], second: ['1', '2'] });
    if (throwOnFullBatchFailure) {
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.every((error) => (error as Error).name === 'FullBatchFailureError')).toBe(true);
    } else expect(errors).toEqual([]);
  });

  it('a failure naming no message of the batch fails the whole batch, as on AWS', async () => {
    const created = await queues(10);
    await sqs.send(new SendMessageCommand({ QueueUrl: created.queue.url, MessageBody: 'event' }));
    let calls = 0;
    const source = eventSource(created, async () => {
      calls += 1;
      return { batchItemFailures: calls === 1 ? [{ itemIdentifier: 'not-in-batch' }] : [] };
    });
    try {
      await pollUntil(
        () => counts(created.queue.url),
        (count) => count === 0 && calls === 2,
        { timeoutMs: 10_000 },
      );
    } finally {
      await source.stop();
    }
  });

  it('after maxReceiveCount failed receives the redrive moves the message to the dead-letter queue', async () => {
    const created = await queues(3);
    await sqs.send(new SendMessageCommand({ QueueUrl: created.queue.url, MessageBody: 'doomed' }));
    let calls = 0;
    const source = eventSource(created, async (event) => {
      calls += 1;
      // As the consumer does after a try: visible again at once (no wait in this test).
      for (const record of event.Records) {
        await sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: created.queue.url,
            ReceiptHandle: record.receiptHandle,
            VisibilityTimeout: 0,
          }),
        );
      }
      return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) };
    });
    try {
      const dead = await pollUntil(
        async () =>
          (
            await sqs.send(
              new ReceiveMessageCommand({
                QueueUrl: created.deadLetterQueue.url,
                WaitTimeSeconds: 1,
                VisibilityTimeout: 0,
              }),
            )
          ).Messages ?? [],
        (messages) => messages.length > 0,
        { timeoutMs: 10_000, intervalMs: 0 },
      );
      expect(dead[0]?.Body).toBe('doomed');
    } finally {
      await source.stop();
    }
    expect(calls).toBe(3);
    expect(await counts(created.queue.url)).toBe(0);
  });

  it('stop() waits for the batch in hand, whose successes are still deleted', async () => {
    const created = await queues(10);
    await sqs.send(new SendMessageCommand({ QueueUrl: created.queue.url, MessageBody: 'slow' }));
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    const source = eventSource(created, async () => {
      started();
      await new Promise<void>((resolve) => (release = resolve));
      return { batchItemFailures: [] };
    });
    await handlerStarted;
    const stopped = source.stop();
    release();
    await stopped;
    expect(await counts(created.queue.url)).toBe(0);
  });
});
