/**
 * The tasks stream's starter as Lambda runs it (functions/workflow/start-executions.ts, Powertools Batch):
 * one execution per new task, named by it; a start that fails is reported by its record's sequence number,
 * a batch that fails whole too (never thrown); records naming no task are passed over; at most 10 starts
 * at once. The workflow's composition root is replaced by a scripted fake.
 */
import { TASK_STARTS } from '../../functions/adapters/runtime/resources.js';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../../lib/dev/local/lambda-context.js';

const fakes = vi.hoisted(() => ({
  started: [] as string[],
  start: async (_taskId: string): Promise<void> => undefined,
}));

vi.mock('../../functions/adapters/wiring/workflow-dependencies.js', () => ({
  taskWorkflow: () => ({
    start: async (taskId: string) => {
      await fakes.start(taskId);
      fakes.started.push(taskId);
    },
  }),
}));
vi.mock('../../functions/adapters/runtime/logger.js', async () => {
  const { Logger } = await import('@aws-lambda-powertools/logger');
  return { logger: new Logger({ serviceName: 'video-generation', logLevel: 'SILENT' }) };
});

const { handler } = await import('../../functions/workflow/start-executions.js');
const { logger } = await import('../../functions/adapters/runtime/logger.js');

beforeEach(() => {
  fakes.started.length = 0;
  fakes.start = async () => undefined;
  vi.restoreAllMocks();
});

/** The INSERT record of a task created pending, at `sequence` in the stream. */
function newTask(taskId: string, sequence: string): DynamoDBRecord {
  return {
    eventID: `e-${sequence}`,
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: {
      Keys: { task_id: { S: taskId } },
      NewImage: { task_id: { S: taskId }, status: { S: 'pending' } },
      SequenceNumber: sequence,
      SizeBytes: 100,
      StreamViewType: 'NEW_IMAGE',
    },
  };
}

const tasks = (count: number) =>
  Array.from({ length: count }, (_, i) => newTask(`task-${i}`, String(100_000_000_000 + i).padStart(21, '0')));

const invoke = (records: DynamoDBRecord[]) =>
  handler(
    { Records: records } satisfies DynamoDBStreamEvent,
    lambdaContext('StartExecutions'),
  ) as Promise<DynamoDBBatchResponse>;

const failedPositions = (response: DynamoDBBatchResponse) =>
  response.batchItemFailures.map((failure) => failure.itemIdentifier).sort();

describe('the task starter', () => {
  it('starts every new task of a batch under its own id and reports no failure', async () => {
    const batch = tasks(25);
    expect(await invoke(batch)).toEqual({ batchItemFailures: [] });
    expect(fakes.started.sort()).toEqual(batch.map((record) => record.dynamodb!.NewImage!['task_id']!.S!).sort());
  });

  it('a start that fails is reported by its sequence number and logged; the others still start', async () => {
    const errors = vi.spyOn(logger, 'error');
    const throttled = new Error('ThrottlingException');
    fakes.start = async (taskId) => {
      if (taskId === 'task-3' || taskId === 'task-17') throw throttled;
    };
    const batch = tasks(20);
    const response = await invoke(batch);
    expect(failedPositions(response)).toEqual([batch[3]!, batch[17]!].map((r) => r.dynamodb!.SequenceNumber!).sort());
    expect(fakes.started).toHaveLength(18);
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('could not start'), {
      task_id: 'task-3',
      error: throttled,
    });
  });

  it('a batch whose every start failed is reported record by record, not thrown', async () => {
    fakes.start = async () => {
      throw new Error('ServiceUnavailable');
    };
    const batch = tasks(3);
    const response = await invoke(batch);
    expect(failedPositions(response)).toEqual(batch.map((record) => record.dynamodb!.SequenceNumber!).sort());
  });

  it('passes over a record that names no task: not started, not reported, but logged', async () => {
    const warnings = vi.spyOn(logger, 'warn');
    const [good, noImage, noSequence] = tasks(3);
    delete noImage!.dynamodb!.NewImage;
    delete noSequence!.dynamodb!.SequenceNumber;
    expect(await invoke([good!, noImage!, noSequence!])).toEqual({ batchItemFailures: [] });
    expect(fakes.started).toEqual(['task-0']);
    expect(warnings).toHaveBeenCalledTimes(2);
  });

  it('starts a whole batch at once, and a batch is at most 10 records (inside the API burst)', async () => {
    let inFlight = 0;
    let most = 0;
    fakes.start = async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
    };
    expect(TASK_STARTS.batchSize).toBeLessThanOrEqual(10);
    expect(await invoke(tasks(TASK_STARTS.batchSize))).toEqual({ batchItemFailures: [] });
    expect(most).toBe(TASK_STARTS.batchSize);
  });

  it('batches that overlap in one process (the local stack) each report only their own failures', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fakes.start = async (taskId) => {
      if (taskId === 'slow') {
        await gate;
        throw new Error('ThrottlingException');
      }
      if (taskId === 'task-1') throw new Error('ThrottlingException');
    };
    const slow = newTask('slow', '900000000000000000000');
    const first = invoke([slow]);
    const batch = tasks(2);
    const second = await invoke(batch);
    release();
    expect(failedPositions(second)).toEqual([batch[1]!.dynamodb!.SequenceNumber!]);
    expect(failedPositions(await first)).toEqual(['900000000000000000000']);
  });
});
