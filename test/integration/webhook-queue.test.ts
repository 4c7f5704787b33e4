/**
 * The webhook queue locally (fauxqs) and the in-process SQS event source that runs the consumer: what the
 * handler reports failed stays queued, a crashed handler loses nothing (its message comes back), the
 * redrive parks a message after maxReceiveCount receives, batches run side by side up to the event
 * source's concurrency, and the consumer's queue adapter sends with a timer and parks in the dead-letter queue.
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
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3AndSqs } from '../../lib/dev/local/emulators.js';
import type { Fauxqs } from '../../lib/dev/local/emulators.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';
import { createWebhookQueues } from '../../lib/dev/local/local-queues.js';
import type { WebhookQueues } from '../../lib/dev/local/local-queues.js';
import { startSqsEventSource } from '../../lib/dev/local/sqs-event-source.js';
import type { SqsHandler } from '../../lib/dev/local/sqs-event-source.js';
import { physicalNames, WEBHOOK_QUEUE, webhookDeadLetterQueueUrl } from '../../functions/adapters/runtime/resources.js';
import { SqsWebhookQueue } from '../../functions/adapters/sqs/webhook-queue.js';
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
    const created = await createWebhookQueues(sqs, fauxqs.endpoint, physicalNames('def'));
    expect(created.queue.url).toBe(`${fauxqs.endpoint}/000000000000/def-webhooks`);
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: created.queue.url, AttributeNames: ['All'] }),
    );
    expect(Attributes?.VisibilityTimeout).toBe(String(WEBHOOK_QUEUE.visibilityTimeoutSeconds));
    expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: created.deadLetterQueue.arn,
      maxReceiveCount: WEBHOOK_QUEUE.maxReceiveCount,
    });
    expect(webhookDeadLetterQueueUrl(created.queue.url)).toBe(created.deadLetterQueue.url);
  });

  it('the consumer sends a next message with its timer, and parks one in the dead-letter queue', async () => {
    const created = await queues(10);
    const queue = new SqsWebhookQueue(sqs, created.queue.url);
    const message = { task_id: randomUUID(), event: 'task.success', attempts: 2 } as const;
    const sentAt = Date.now();
    await queue.send(message, 1);
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: created.queue.url,
        AttributeNames: ['ApproximateNumberOfMessagesDelayed'],
      }),
    );
    // Waiting, but not in flight: it counts toward no in-flight quota.
    expect(Attributes?.ApproximateNumberOfMessagesDelayed).toBe('1');
    const [received] = await receiveFrom(created.queue.url);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(900);
    expect(JSON.parse(received?.Body ?? '{}')).toEqual(message);

    await queue.park('{"task_id":"x"}', 'webhook message: task_id is not a UUID');
    const [parked] = await receiveFrom(created.deadLetterQueue.url);
    expect(parked?.Body).toBe('{"task_id":"x"}');
    expect(parked?.MessageAttributes?.['reason']?.StringValue).toBe('webhook message: task_id is not a UUID');
  });
});

/** The first message(s) the queue hands out, polling until there is one. */
function receiveFrom(url: string) {
  return pollUntil(
    async () =>
      (
        await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            WaitTimeSeconds: 1,
            MessageAttributeNames: ['All'],
          }),
        )
      ).Messages ?? [],
    (messages) => messages.length > 0,
    { timeoutMs: 120_000, intervalMs: 0 },
  );
}

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
        { timeoutMs: 120_000 },
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
        { timeoutMs: 120_000 },
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
        { timeoutMs: 120_000 },
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
        { timeoutMs: 120_000 },
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
        { timeoutMs: 120_000, intervalMs: 0 },
      );
      expect(dead[0]?.Body).toBe('doomed');
    } finally {
      await source.stop();
    }
    expect(calls).toBe(3);
    expect(await counts(created.queue.url)).toBe(0);
  });

  it('a batch that hangs holds back no other: the next one runs and is deleted meanwhile', async () => {
    const created = await queues(10);
    const handled: string[] = [];
    let release: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => (release = resolve));
    const source = eventSource(created, async (event) => {
      for (const record of event.Records) {
        if (record.body === 'hangs') await hanging;
        handled.push(record.body);
      }
      return { batchItemFailures: [] };
    });
    try {
      await sqs.send(new SendMessageCommand({ QueueUrl: created.queue.url, MessageBody: 'hangs' }));
      await pollUntil(
        () => counts(created.queue.url),
        (count) => count === 1,
        { timeoutMs: 120_000 },
      );
      await sqs.send(new SendMessageCommand({ QueueUrl: created.queue.url, MessageBody: 'quick' }));
      // Handled and deleted while the first batch still hangs: only the hanging message is left.
      await pollUntil(
        async () => ({ handled: [...handled], count: await counts(created.queue.url) }),
        (state) => state.handled.includes('quick') && state.count === 1,
        { timeoutMs: 120_000 },
      );
      expect(handled).toEqual(['quick']);
    } finally {
      release();
      await source.stop();
    }
    expect(handled).toEqual(['quick', 'hangs']);
    expect(await counts(created.queue.url)).toBe(0);
  });

  it('runs at most maxConcurrency batches at once, leaving the rest queued until a slot frees', async () => {
    const created = await queues(10);
    for (let n = 0; n < 5; n += 1) {
      await sqs.send(new SendMessageCommand({ QueueUrl: created.queue.url, MessageBody: `m${n}` }));
    }
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let active = 0;
    let mostActive = 0;
    let handled = 0;
    const source = startSqsEventSource({
      sqs,
      queueUrl: created.queue.url,
      queueArn: created.queue.arn,
      handler: async () => async () => {
        active += 1;
        mostActive = Math.max(mostActive, active);
        await gate;
        active -= 1;
        handled += 1;
        return { batchItemFailures: [] };
      },
      functionName: 'test-consumer',
      batchSize: 1,
      maxConcurrency: 2,
      onError: () => undefined,
    });
    try {
      await pollUntil(
        async () => active,
        (count) => count === 2,
        { timeoutMs: 120_000 },
      );
      // Both slots taken: the other three are still visible in the queue, not received and held.
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: created.queue.url, AttributeNames: ['ApproximateNumberOfMessages'] }),
      );
      expect(Attributes?.ApproximateNumberOfMessages).toBe('3');
      release();
      await pollUntil(async () => handled === 5 && (await counts(created.queue.url)) === 0, Boolean, {
        timeoutMs: 120_000,
      });
    } finally {
      release();
      await source.stop();
    }
    expect(mostActive).toBe(2);
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
