/**
 * Lambda's SQS event source, locally: long-polls a queue and runs up to `maxConcurrency` batches at once
 * (as Lambda scales to MaximumConcurrency), deleting what the handler did not report in `batchItemFailures`;
 * a handler that throws fails its whole batch, which comes back after its visibility timeout, as on AWS. A throttled
 * invoke (the function at its concurrency) is no failure: it is tried again with backoff while the messages are
 * still invisible, polling slows down meanwhile, and past their visibility timeout they are left to come back.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Message, MessageAttributeValue, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { setTimeout as sleep } from 'node:timers/promises';
import { lambdaContext } from './lambda-context.js';
import { isThrottle } from './lambda-concurrency.js';
import { LOCAL_REGION } from '../../ship/sam-local/local-aws.js';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface SqsEventSourceOptions {
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  /** Resolved on the first batch, so the handler module loads after the environment is set. */
  handler: () => Promise<SqsHandler>;
  functionName: string;
  /** Lambda's timeout for the handler's context. Default 30 s. */
  timeoutMs?: number;
  /** Default 10 (SQS's largest batch). */
  batchSize?: number;
  /** Long poll. Default 1 s, so stop() is quick. */
  waitTimeSeconds?: number;
  /** Batches handled at once (Lambda's MaximumConcurrency). Default 5, the batches Lambda starts with. */
  maxConcurrency?: number;
  /** The queue's visibility timeout: how long a throttled batch is tried again. Default 30 s, SQS's. */
  visibilityTimeoutSeconds?: number;
  /** First pause after a throttle, doubling to 30×. Default 1 s. */
  throttlePauseMs?: number;
  onError?: (error: unknown) => void;
}

export interface SqsEventSource {
  /** Stops polling and waits for the batches in hand to finish (their deletes included). */
  stop(): Promise<void>;
}

export function startSqsEventSource(options: SqsEventSourceOptions): SqsEventSource {
  const abort = new AbortController();
  let handler: Promise<SqsHandler> | undefined;
  const onError = options.onError ?? ((error: unknown) => console.error('local SQS event source:', error));

  const maxConcurrency = Math.max(1, options.maxConcurrency ?? 5);
  const running = new Set<Promise<void>>();
  const visibilityMs = (options.visibilityTimeoutSeconds ?? 30) * 1000;
  const throttlePauseMs = options.throttlePauseMs ?? 1_000;
  /** Receives wait until then after a throttle: Lambda backs the mapping's concurrency off. */
  let pollingPausedUntil = 0;
  const pause = (ms: number) => sleep(ms, undefined, { signal: abort.signal }).catch(() => undefined);

  const receive = async (): Promise<Message[]> => {
    const { Messages } = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: options.batchSize ?? 10,
        WaitTimeSeconds: options.waitTimeSeconds ?? 1,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: abort.signal },
    );
    return Messages ?? [];
  };

  /**
   * Invokes the handler until it is not throttled, or until the messages' visibility timeout (from `receivedAt`)
   * would pass before the next try ("Handling errors for an SQS event source in Lambda", backoff on throttling).
   */
  const invoke = async (records: SQSRecord[], receivedAt: number) => {
    for (let throttles = 0; ; throttles += 1) {
      try {
        handler ??= options.handler();
        return await (
          await handler
        )({ Records: records }, lambdaContext(options.functionName, options.timeoutMs));
      } catch (error) {
        if (!isThrottle(error)) throw error;
        const wait = throttlePauseMs * Math.min(2 ** throttles, 30);
        pollingPausedUntil = Math.max(pollingPausedUntil, Date.now() + wait);
        if (abort.signal.aborted || Date.now() + wait >= receivedAt + visibilityMs) return 'throttled' as const;
        await pause(wait);
      }
    }
  };

  /** One invocation and the deletes after it; never rejects (errors go to onError). */
  const handleBatch = async (messages: Message[], receivedAt: number): Promise<void> => {
    const records = messages.map((message) => toRecord(message, options.queueArn));
    let succeeded: SQSRecord[] = [];
    try {
      const response = await invoke(records, receivedAt);
      // Left in the queue: visible again after its visibility timeout, its receive counted by SQS, as on AWS.
      if (response === 'throttled') return;
      succeeded = succeededRecords(records, response);
    } catch (error) {
      onError(error);
    }
    if (succeeded.length === 0) return;
    try {
      const { Failed } = await options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: succeeded.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
        }),
      );
      if (Failed && Failed.length > 0) onError(new Error(`could not delete ${Failed.length} handled messages`));
    } catch (error) {
      onError(error);
    }
  };

  const loop = (async () => {
    while (!abort.signal.aborted) {
      // Receive only with a free slot, as Lambda's poller does at MaximumConcurrency: what it cannot hand
      // on stays in the queue, neither in flight nor burning a receive.
      if (running.size >= maxConcurrency) {
        await Promise.race(running);
        continue;
      }
      if (Date.now() < pollingPausedUntil) {
        await pause(pollingPausedUntil - Date.now());
        continue;
      }
      try {
        const receivedAt = Date.now();
        const messages = await receive();
        if (messages.length === 0) continue;
        const batch: Promise<void> = handleBatch(messages, receivedAt).finally(() => running.delete(batch));
        running.add(batch);
      } catch (error) {
        if (abort.signal.aborted) break;
        onError(error);
        await sleep(1_000).catch(() => undefined);
      }
    }
    await Promise.all(running);
  })();

  return {
    stop: async () => {
      abort.abort();
      await loop;
    },
  };
}

/** AWS: failures naming no message of the batch (or an empty id) fail the whole batch. */
function succeededRecords(records: SQSRecord[], response: SQSBatchResponse | void): SQSRecord[] {
  const failures = response?.batchItemFailures ?? [];
  const ids = new Set(records.map((record) => record.messageId));
  if (failures.some((failure) => !failure.itemIdentifier || !ids.has(failure.itemIdentifier))) return [];
  const failed = new Set(failures.map((failure) => failure.itemIdentifier));
  return records.filter((record) => !failed.has(record.messageId));
}

function toRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? '000000000000',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: toMessageAttributes(message.MessageAttributes ?? {}),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: LOCAL_REGION,
  };
}

function toMessageAttributes(attributes: Record<string, MessageAttributeValue>): SQSMessageAttributes {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      {
        dataType: value.DataType ?? 'String',
        stringValue: value.StringValue,
        binaryValue: value.BinaryValue ? Buffer.from(value.BinaryValue).toString('base64') : undefined,
        stringListValues: value.StringListValues ?? [],
        binaryListValues: (value.BinaryListValues ?? []).map((item) => Buffer.from(item).toString('base64')),
      },
    ]),
  );
}
