/**
 * The webhook queue's consumer as Lambda runs it (functions/webhooks/deliver-webhook.ts, Powertools Batch):
 * each decision of the use case becomes a deleted record and the message it sends on (a retry, a hop, a
 * parked copy); only a failure keeps a record queued, and a batch that fails whole is reported, never
 * thrown. The composition roots are replaced by fakes; the use case is scripted per task.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type * as MetricsModule from '../../functions/adapters/runtime/metrics.js';
import type { DeliveryDecision } from '../../functions/core/use-cases/deliver-webhook.js';
import type { WebhookMessage } from '../../functions/core/webhook.js';
import { lambdaContext } from '../../lib/dev/local/lambda-context.js';

const fakes = vi.hoisted(() => ({
  /** What the use case answers (or throws) per task id. */
  decisions: new Map<string, () => Promise<unknown>>(),
  sent: [] as { message: unknown; delaySeconds: number }[],
  parked: [] as { body: string; reason: string }[],
  queueFails: false,
  metrics: [] as string[],
}));

vi.mock('../../functions/core/use-cases/deliver-webhook.js', () => ({
  deliverWebhook: async (message: { task_id: string }) => {
    const decide = fakes.decisions.get(message.task_id);
    if (!decide) throw new Error(`no decision scripted for ${message.task_id}`);
    return decide();
  },
}));
vi.mock('../../functions/adapters/wiring/service-dependencies.js', () => ({ taskRepository: () => ({}) }));
vi.mock('../../functions/adapters/wiring/url-signer-dependencies.js', () => ({ videoUrlSigner: () => ({}) }));
vi.mock('../../functions/adapters/wiring/webhook-dependencies.js', () => ({
  webhookAttemptLog: () => ({}),
  webhookDeliveries: () => ({}),
  webhookQueue: () => ({
    send: async (message: unknown, delaySeconds: number) => {
      if (fakes.queueFails) throw new Error('SQS unavailable');
      fakes.sent.push({ message, delaySeconds });
    },
    park: async (body: string, reason: string) => {
      if (fakes.queueFails) throw new Error('SQS unavailable');
      fakes.parked.push({ body, reason });
    },
  }),
  webhookRetrySchedule: () => [5, 30, 120],
  webhookSecrets: () => ({}),
  webhookSender: () => ({}),
}));
vi.mock('../../functions/adapters/runtime/metrics.js', async (importOriginal) => {
  const original = await importOriginal<typeof MetricsModule>();
  return {
    METRIC: original.METRIC,
    countMetric: (name: string) => fakes.metrics.push(name),
    publishMetrics: () => ({ after: () => undefined }),
  };
});
vi.mock('../../functions/adapters/runtime/logger.js', async () => {
  const { Logger } = await import('@aws-lambda-powertools/logger');
  return { logger: new Logger({ serviceName: 'video-generation', logLevel: 'SILENT' }) };
});

const { handler } = await import('../../functions/webhooks/deliver-webhook.js');
const { METRIC } = await import('../../functions/adapters/runtime/metrics.js');

beforeEach(() => {
  fakes.decisions.clear();
  fakes.sent.length = 0;
  fakes.parked.length = 0;
  fakes.queueFails = false;
  fakes.metrics.length = 0;
});

/** A queued message for `taskId` (or with a body that is no webhook message). */
function record(taskId: string, body?: string): SQSRecord {
  return {
    messageId: `m-${taskId}`,
    receiptHandle: `rh-${taskId}`,
    body: body ?? JSON.stringify({ task_id: taskId, event: 'task.success' }),
    attributes: {
      ApproximateReceiveCount: '1',
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

/** A new task whose message ends in `decide(taskId)` (or throws it, for an Error). */
function task(decide: (taskId: string) => DeliveryDecision | Error): string {
  const taskId = randomUUID();
  const decision = decide(taskId);
  fakes.decisions.set(taskId, async () => {
    if (decision instanceof Error) throw decision;
    return decision;
  });
  return taskId;
}

const nextOf = (taskId: string, attempts: number): WebhookMessage => ({
  task_id: taskId,
  event: 'task.success',
  attempts,
});

const invoke = (records: SQSRecord[]) =>
  handler({ Records: records } satisfies SQSEvent, lambdaContext('DeliverWebhook')) as Promise<SQSBatchResponse>;

const failedIds = (response: SQSBatchResponse) => response.batchItemFailures.map((f) => f.itemIdentifier).sort();

describe('the webhook consumer', () => {
  it('deletes every record it decided on and sends on what comes next; only a crash keeps one queued', async () => {
    const delivered = task(() => ({ action: 'done', outcome: 'delivered', detail: 'HTTP 200' }));
    const skipped = task(() => ({ action: 'done', outcome: 'skipped', detail: 'the task does not exist' }));
    const gone = task(() => ({ action: 'done', outcome: 'permanent-failure', detail: 'HTTP 410' }));
    const retry = task((id) => ({ action: 'retry', message: nextOf(id, 1), delaySeconds: 30, detail: 'HTTP 500' }));
    const hop = task((id) => ({ action: 'wait', message: nextOf(id, 3), delaySeconds: 900, detail: 'due later' }));
    const spent = task((id) => ({ action: 'dead-letter', message: nextOf(id, 4), detail: 'HTTP 503; try 4 of 4' }));
    const crashed = task(() => new Error('DynamoDB unavailable'));
    const unreadable = record('unreadable', '{"task_id": "not-a-uuid"}');

    const response = await invoke([
      ...[delivered, skipped, gone, retry, hop, spent, crashed].map((taskId) => record(taskId)),
      unreadable,
    ]);

    // A crash leaves the message to the queue's own visibility timeout: a later try, never a silent drop.
    expect(failedIds(response)).toEqual([`m-${crashed}`]);
    expect(fakes.sent).toEqual(
      expect.arrayContaining([
        { message: nextOf(retry, 1), delaySeconds: 30 },
        { message: nextOf(hop, 3), delaySeconds: 900 },
      ]),
    );
    expect(fakes.sent).toHaveLength(2);
    expect(fakes.parked).toEqual(
      expect.arrayContaining([
        { body: JSON.stringify(nextOf(spent, 4)), reason: 'HTTP 503; try 4 of 4' },
        { body: '{"task_id": "not-a-uuid"}', reason: expect.stringMatching(/^webhook message: /) },
      ]),
    );
    expect(fakes.parked).toHaveLength(2);
    // Every try is counted (not a skip, not a hop); every one but a delivery is a failure.
    expect(fakes.metrics.filter((name) => name === METRIC.webhookAttempts)).toHaveLength(4);
    expect(fakes.metrics.filter((name) => name === METRIC.webhookFailures)).toHaveLength(3);
  });

  it('a next message SQS refuses keeps the record queued; a refused parking does not (the task says failed)', async () => {
    fakes.queueFails = true;
    const retry = task((id) => ({ action: 'retry', message: nextOf(id, 1), delaySeconds: 5, detail: 'HTTP 500' }));
    const spent = task((id) => ({ action: 'dead-letter', message: nextOf(id, 4), detail: 'HTTP 500' }));
    expect(failedIds(await invoke([record(retry), record(spent)]))).toEqual([`m-${retry}`]);
  });

  it('a batch whose every record failed is reported record by record, not thrown', async () => {
    const crashes = Array.from({ length: 3 }, () => task(() => new Error('DynamoDB unavailable')));
    const response = await invoke(crashes.map((taskId) => record(taskId)));
    expect(failedIds(response)).toEqual(crashes.map((taskId) => `m-${taskId}`).sort());
  });

  it('a batch that all went well reports no failure', async () => {
    const ok = task(() => ({ action: 'done', outcome: 'delivered', detail: 'HTTP 204' }));
    expect(await invoke([record(ok)])).toEqual({ batchItemFailures: [] });
  });

  it('batches that overlap in one process (the local stack) each report only their own failures', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowCrash = randomUUID();
    fakes.decisions.set(slowCrash, async () => {
      await gate;
      throw new Error('timed out');
    });
    const quickDelivery = task(() => ({ action: 'done', outcome: 'delivered', detail: 'HTTP 200' }));
    const quickCrash = task(() => new Error('DynamoDB unavailable'));

    const first = invoke([record(slowCrash)]);
    const second = await invoke([record(quickDelivery), record(quickCrash)]);
    release();

    expect(failedIds(second)).toEqual([`m-${quickCrash}`]);
    expect(failedIds(await first)).toEqual([`m-${slowCrash}`]);
  });
});
