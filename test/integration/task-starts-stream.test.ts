/**
 * The local stand-in for Lambda's event source on the tasks table's stream (lib/dev/local/dynamodb-stream-source.ts),
 * against DynamoDB Local, with the service's own filter (TASK_STARTS): only tasks created as pending reach
 * the handler, in batches; a record the handler names as failed comes back (with those after it) until it
 * succeeds; and what was written before the source started is not replayed.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startDynamoDbStreamSource } from '../../lib/dev/local/dynamodb-stream-source.js';
import type { DynamoDbStreamSource } from '../../lib/dev/local/dynamodb-stream-source.js';
import { TASK_STARTS } from '../../functions/adapters/runtime/resources.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { pollUntil } from '../support/test-stack.js';

const local = useDynamoDbLocal('starts');
let source: DynamoDbStreamSource | undefined;

afterEach(async () => {
  await source?.stop();
  source = undefined;
});

/** Starts the source with `handle` as the starter; answers what it was handed, record by record. */
async function startSource(
  handle: (event: DynamoDBStreamEvent) => DynamoDBBatchResponse | void | Promise<DynamoDBBatchResponse> = () =>
    undefined,
  onError?: (error: unknown) => void,
) {
  const seen: { taskId: string; sequence: string }[] = [];
  source = await startDynamoDbStreamSource({
    dynamoDb: local.client,
    endpoint: local.dynamo.endpoint,
    tableName: local.names.tables.tasks,
    handler: async () => async (event) => {
      for (const record of event.Records) {
        seen.push({
          taskId: record.dynamodb!.NewImage!['task_id']!.S!,
          sequence: record.dynamodb!.SequenceNumber!,
        });
      }
      return (await handle(event)) ?? undefined;
    },
    functionName: 'StartExecutions',
    timeoutMs: 5_000,
    batchSize: TASK_STARTS.batchSize,
    filterPattern: TASK_STARTS.filterPattern,
    retryAttempts: TASK_STARTS.retryAttempts,
    idlePollMs: 20,
    retryPauseMs: 20,
    ...(onError && { onError }),
  });
  return seen;
}

const putTask = (taskId: string, status: string) =>
  local.db.send(
    new PutCommand({
      TableName: local.names.tables.tasks,
      Item: { task_id: taskId, status, updated_at: new Date().toISOString() },
    }),
  );

describe('the tasks stream event source (local)', () => {
  it('hands over only tasks created pending, once each, and nothing written before it started', async () => {
    const before = `before-${randomUUID()}`;
    await putTask(before, 'pending');
    const seen = await startSource();
    const pending = Array.from({ length: 30 }, () => `pending-${randomUUID()}`);
    const running = `running-${randomUUID()}`;
    await Promise.all(pending.map((taskId) => putTask(taskId, 'pending')));
    await putTask(running, 'running');
    // A pending task that changes is a MODIFY: not a new task.
    await local.db.send(
      new UpdateCommand({
        TableName: local.names.tables.tasks,
        Key: { task_id: pending[0] },
        UpdateExpression: 'SET updated_at = :now',
        ExpressionAttributeValues: { ':now': new Date().toISOString() },
      }),
    );
    const last = `last-${randomUUID()}`;
    await putTask(last, 'pending');
    await pollUntil(
      async () => seen.map((record) => record.taskId),
      (ids) => ids.includes(last),
      { timeoutMs: 120_000, intervalMs: 20 },
    );
    expect(seen.map((record) => record.taskId).sort()).toEqual([...pending, last].sort());
  });

  it('a record the handler names as failed is delivered again, with the ones after it, until it succeeds', async () => {
    let failuresLeft = 2;
    const failing = `failing-${randomUUID()}`;
    const seen = await startSource((event) => {
      const record = event.Records.find((candidate) => candidate.dynamodb?.NewImage?.['task_id']?.S === failing);
      if (!record || failuresLeft === 0) return { batchItemFailures: [] };
      failuresLeft -= 1;
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb!.SequenceNumber! }] };
    });
    const after = `after-${randomUUID()}`;
    await putTask(failing, 'pending');
    await putTask(after, 'pending');
    await pollUntil(
      async () => seen.filter((record) => record.taskId === failing).length,
      (count) => count === 3,
      { timeoutMs: 120_000, intervalMs: 20 },
    );
    await pollUntil(
      async () => seen.filter((record) => record.taskId === after).length,
      (count) => count >= 1,
      { timeoutMs: 120_000, intervalMs: 20 },
    );
    // Sequence numbers only grow within a delivery; the retried record was never skipped.
    expect(failuresLeft).toBe(0);
    const lastDelivery = seen.filter((record) => record.taskId === failing).at(-1)!;
    expect(seen.slice(seen.indexOf(lastDelivery)).map((record) => record.taskId)).toContain(after);
  });

  // The starter reports a batch whose every start failed (Powertools' throwOnFullBatchFailure: false);
  // thrown instead, the records would be delivered again the same way, only with a function error on top.
  it.each([
    ['reported record by record (as the starter does)', false],
    ["thrown as Powertools' FullBatchFailureError", true],
  ])(
    'a batch that failed whole, %s, is delivered again from its first record',
    async (_name, throwOnFullBatchFailure) => {
      const tries = new Map<string, number>();
      const failFirstTry = async (record: DynamoDBRecord) => {
        const taskId = record.dynamodb!.NewImage!['task_id']!.S!;
        tries.set(taskId, (tries.get(taskId) ?? 0) + 1);
        if (tries.get(taskId) === 1) throw new Error('ThrottlingException');
      };
      const errors: unknown[] = [];
      const seen = await startSource(
        (event) =>
          processPartialResponse(event, failFirstTry, new BatchProcessor(EventType.DynamoDBStreams), {
            throwOnFullBatchFailure,
          }),
        (error) => errors.push(error),
      );
      const both = [`whole-a-${randomUUID()}`, `whole-b-${randomUUID()}`];
      for (const taskId of both) await putTask(taskId, 'pending');
      await pollUntil(
        async () => both.map((taskId) => tries.get(taskId) ?? 0),
        (counts) => counts.every((count) => count >= 2),
        { timeoutMs: 120_000, intervalMs: 20 },
      );
      // Each failed once and succeeded once: retried from the earliest failure, never skipped nor run again.
      expect(both.map((taskId) => seen.filter((record) => record.taskId === taskId).length)).toEqual([2, 2]);
      if (throwOnFullBatchFailure) {
        expect(errors.length).toBeGreaterThan(0);
        expect(errors.every((error) => (error as Error).name === 'FullBatchFailureError')).toBe(true);
      } else expect(errors).toEqual([]);
    },
  );

  it('a failure that names no record of the batch fails the whole batch, and reading goes on', async () => {
    let answeredBadly = false;
    const first = `first-${randomUUID()}`;
    const seen = await startSource(() => {
      if (answeredBadly) return { batchItemFailures: [] };
      answeredBadly = true;
      return { batchItemFailures: [{ itemIdentifier: '' }] };
    });
    await putTask(first, 'pending');
    await pollUntil(
      async () => seen.filter((record) => record.taskId === first).length,
      (count) => count === 2,
      { timeoutMs: 120_000, intervalMs: 20 },
    );
    const later = `later-${randomUUID()}`;
    await putTask(later, 'pending');
    await pollUntil(
      async () => seen.map((record) => record.taskId),
      (ids) => ids.includes(later),
      { timeoutMs: 120_000, intervalMs: 20 },
    );
  });

  it('paused, it hands nothing over; resumed, it hands over what was written meanwhile', async () => {
    const seen = await startSource();
    source!.pause();
    const during = Array.from({ length: 5 }, () => `paused-${randomUUID()}`);
    await Promise.all(during.map((taskId) => putTask(taskId, 'pending')));
    // A marker written after, on a second source that is not paused, proves the stream has those records.
    const witness: string[] = [];
    const other = await startDynamoDbStreamSource({
      dynamoDb: local.client,
      endpoint: local.dynamo.endpoint,
      tableName: local.names.tables.tasks,
      handler: async () => async (event) => {
        for (const record of event.Records) witness.push(record.dynamodb!.NewImage!['task_id']!.S!);
      },
      functionName: 'Witness',
      timeoutMs: 5_000,
      batchSize: TASK_STARTS.batchSize,
      filterPattern: TASK_STARTS.filterPattern,
      retryAttempts: 0,
      idlePollMs: 20,
    });
    try {
      const marker = `marker-${randomUUID()}`;
      await putTask(marker, 'pending');
      await pollUntil(
        async () => witness,
        (ids) => ids.includes(marker),
        { timeoutMs: 120_000, intervalMs: 20 },
      );
    } finally {
      await other.stop();
    }
    expect(seen.filter((record) => during.includes(record.taskId))).toEqual([]);
    source!.resume();
    await pollUntil(
      async () => seen.map((record) => record.taskId),
      (ids) => during.every((taskId) => ids.includes(taskId)),
      { timeoutMs: 120_000, intervalMs: 20 },
    );
  });
});
