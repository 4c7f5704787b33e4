/**
 * The webhook queue's consumer as Lambda runs it (functions/webhooks/deliver-webhook.ts, Powertools Batch):
 * each decision of the use case becomes a deleted or a kept message, with the visibility change it asks
 * for; a batch that fails whole is reported, never thrown; batches that overlap in one process stay apart.
 * The composition roots are replaced by fakes; the use case is scripted per task.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type * as MetricsModule from '../../functions/adapters/metrics.js';
import type { DeliveryDecision } from '../../functions/core/use-cases/deliver-webhook.js';
import { MAX_RETRY_DELAY_SECONDS } from '../../functions/core/webhook.js';
import { lambdaContext } from '../../lib/local/lambda-context.js';

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/vgs-webhooks';

const fakes = vi.hoisted(() => ({
  /** What the use case answers (or throws) per task id. */
  decisions: new Map<string, () => Promise<unknown>>(),
  receiveCounts: [] as { taskId: string; receiveCount: number }[],
  visibility: [] as { QueueUrl?: string; ReceiptHandle?: string; VisibilityTimeout?: number }[],
  visibilityFails: false,
  metrics: [] as string[],
}));

vi.mock('../../functions/core/use-cases/deliver-webhook.js', () => ({
  deliverWebhook: async (message: { task_id: string }, receiveCount: number) => {
    fakes.receiveCounts.push({ taskId: message.task_id, receiveCount });
    const decide = fakes.decisions.get(message.task_id);
    if (!decide) throw new Error(`no decision scripted for ${message.task_id}`);
    return decide();
  },
}));
vi.mock('../../functions/adapters/sqs-client.js', () => ({
  sqsClient: () => ({
    send: async (command: { input: (typeof fakes.visibility)[number] }) => {
      if (fakes.visibilityFails) throw new Error('SQS unavailable');
      fakes.visibility.push(command.input);
      return {};
    },
  }),
}));
vi.mock('../../functions/adapters/service-dependencies.js', () => ({ taskRepository: () => ({}) }));
vi.mock('../../functions/adapters/url-signer-dependencies.js', () => ({ videoUrlSigner: () => ({}) }));
vi.mock('../../functions/adapters/webhook-dependencies.js', () => ({
  webhookAttemptLog: () => ({}),
  webhookQueueUrl: () => QUEUE_URL,
  webhookRetrySchedule: () => [5, 30, 120],
  webhookSecrets: () => ({}),
  webhookSender: () => ({}),
}));
vi.mock('../../functions/adapters/metrics.js', async (importOriginal) => {
  const original = await importOriginal<typeof MetricsModule>();
  return {
    METRIC: original.METRIC,
    countMetric: (name: string) => fakes.metrics.push(name),
    publishMetrics: () => ({ after: () => undefined }),
  };
});
vi.mock('../../functions/adapters/logger.js', async () => {
  const { Logger } = await import('@aws-lambda-powertools/logger');
  return { logger: new Logger({ serviceName: 'video-generation', logLevel: 'SILENT' }) };
});

const { handler } = await import('../../functions/webhooks/deliver-webhook.js');
const { METRIC } = await import('../../functions/adapters/metrics.js');

beforeEach(() => {
  fakes.decisions.clear();
  fakes.receiveCounts.length = 0;
  fakes.visibility.length = 0;
  fakes.visibilityFails = false;
  fakes.metrics.length = 0;
});

/** A queued message for `taskId` (or with a body that is no webhook message). */
function record(taskId: string, options: { body?: string; receiveCount?: number } = {}): SQSRecord {
  return {
    messageId: `m-${taskId}`,
    receiptHandle: `rh-${taskId}`,
    body: options.body ?? JSON.stringify({ task_id: taskId, event: 'task.success' }),
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: '1700000000000',
      SenderId: '000000000000',
      ApproximateFirstReceiveTimestamp: '1700000000000',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:vgs-webhooks',
    awsRegion: 'us-east-1',
  };
}

/** A new task whose attempt ends in `decision` (or throws it, for an Error). */
function task(decision: DeliveryDecision | Error): string {
  const taskId = randomUUID();
  fakes.decisions.set(taskId, async () => {
    if (decision instanceof Error) throw decision;
    return decision;
  });
  return taskId;
}

const invoke = (records: SQSRecord[]) =>
  handler({ Records: records } satisfies SQSEvent, lambdaContext('DeliverWebhook')) as Promise<SQSBatchResponse>;

const failedIds = (response: SQSBatchResponse) => response.batchItemFailures.map((f) => f.itemIdentifier).sort();

describe('the webhook consumer', () => {
  it('deletes what is done and keeps the rest, each with the visibility its decision asks for', async () => {
    const delivered = task({ action: 'done', outcome: 'delivered', detail: 'HTTP 200' });
    const skipped = task({ action: 'done', outcome: 'skipped', detail: 'the task does not exist' });
    const gone = task({ action: 'done', outcome: 'permanent-failure', detail: 'HTTP 410' });
    const retry = task({ action: 'retry', delaySeconds: 30, detail: 'HTTP 500' });
    const spent = task({ action: 'dead-letter', detail: 'received 5 times, more than the 4 tries' });
    const crashed = task(new Error('DynamoDB unavailable'));
    const unreadable = record('unreadable', { body: '{"task_id": "not-a-uuid"}' });

    const response = await invoke([
      ...[delivered, skipped, gone, retry, spent, crashed].map((taskId) => record(taskId)),
      unreadable,
    ]);

    expect(failedIds(response)).toEqual([`m-${crashed}`, `m-${retry}`, `m-${spent}`, 'm-unreadable'].sort());
    expect(fakes.visibility).toEqual(
      expect.arrayContaining([
        { QueueUrl: QUEUE_URL, ReceiptHandle: `rh-${retry}`, VisibilityTimeout: 30 },
        { QueueUrl: QUEUE_URL, ReceiptHandle: `rh-${spent}`, VisibilityTimeout: 0 },
        { QueueUrl: QUEUE_URL, ReceiptHandle: 'rh-unreadable', VisibilityTimeout: 0 },
      ]),
    );
    // A crash leaves the message to the queue's own visibility timeout: a later try, never a silent drop.
    expect(fakes.visibility).toHaveLength(3);
    // Every attempt but a skip is counted; every one but a delivery is a failure.
    expect(fakes.metrics.filter((name) => name === METRIC.webhookAttempts)).toHaveLength(4);
    expect(fakes.metrics.filter((name) => name === METRIC.webhookFailures)).toHaveLength(3);
  });

  it('a batch whose every message failed is reported message by message, not thrown', async () => {
    const retries = Array.from({ length: 3 }, () => task({ action: 'retry', delaySeconds: 5, detail: 'timeout' }));
    const response = await invoke(retries.map((taskId) => record(taskId)));
    expect(failedIds(response)).toEqual(retries.map((taskId) => `m-${taskId}`).sort());
    expect(fakes.visibility.map((input) => input.VisibilityTimeout)).toEqual([5, 5, 5]);
  });

  it('a batch that all went well reports no failure', async () => {
    const ok = task({ action: 'done', outcome: 'delivered', detail: 'HTTP 204' });
    expect(await invoke([record(ok)])).toEqual({ batchItemFailures: [] });
    expect(fakes.visibility).toEqual([]);
  });

  it('hands the use case each message’s receive count', async () => {
    const first = task({ action: 'done', outcome: 'delivered', detail: 'HTTP 200' });
    const third = task({ action: 'done', outcome: 'delivered', detail: 'HTTP 200' });
    await invoke([record(first), record(third, { receiveCount: 3 })]);
    expect(fakes.receiveCounts).toEqual(
      expect.arrayContaining([
        { taskId: first, receiveCount: 1 },
        { taskId: third, receiveCount: 3 },
      ]),
    );
  });

  it('never asks SQS for more than 12 h of invisibility (less the receive margin)', async () => {
    const far = task({ action: 'retry', delaySeconds: MAX_RETRY_DELAY_SECONDS, detail: 'HTTP 503' });
    await invoke([record(far)]);
    const [change] = fakes.visibility;
    expect(change?.VisibilityTimeout).toBeLessThanOrEqual(MAX_RETRY_DELAY_SECONDS - 300);
    expect(change?.VisibilityTimeout).toBeGreaterThanOrEqual(MAX_RETRY_DELAY_SECONDS - 301);
  });

  it('a visibility change SQS refuses still keeps the message (the queue default applies)', async () => {
    fakes.visibilityFails = true;
    const retry = task({ action: 'retry', delaySeconds: 30, detail: 'HTTP 500' });
    expect(failedIds(await invoke([record(retry)]))).toEqual([`m-${retry}`]);
  });

  it('batches that overlap in one process (the local stack) each report only their own failures', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowRetry = randomUUID();
    fakes.decisions.set(slowRetry, async () => {
      await gate;
      return { action: 'retry', delaySeconds: 5, detail: 'HTTP 500' };
    });
    const quickDelivery = task({ action: 'done', outcome: 'delivered', detail: 'HTTP 200' });
    const quickRetry = task({ action: 'retry', delaySeconds: 5, detail: 'HTTP 500' });

    const first = invoke([record(slowRetry)]);
    const second = await invoke([record(quickDelivery), record(quickRetry)]);
    release();

    expect(failedIds(second)).toEqual([`m-${quickRetry}`]);
    expect(failedIds(await first)).toEqual([`m-${slowRetry}`]);
  });
});
