/**
 * The tasks table's stream consumer (TASK_STARTS in functions/adapters/runtime/resources.ts): starts each new task's
 * execution, so the submit never waits for StartExecution. A failed start is reported by its record; the
 * event source retries from there, and after its last retry the reconciler starts the task.
 */
import middy from '@middy/core';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../adapters/runtime/logger.js';
import { taskWorkflow } from '../adapters/wiring/workflow-dependencies.js';

const workflow = taskWorkflow();

export const handler = middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event, context) =>
    // A processor per batch: it keeps its batch on itself, and the local stack runs batches in-process.
    processPartialResponse(event, startTask, new BatchProcessor(EventType.DynamoDBStreams), {
      context,
      // A batch whose starts all failed is reported record by record, never thrown: a thrown error would count
      // as a Lambda error and, with bisectBatchOnError, make AWS retry the batch split in two, where reported
      // failures are retried from the earliest one, as the local event source does either way.
      throwOnFullBatchFailure: false,
    }),
  );

/**
 * The execution is named by the task id, so a record delivered twice (the stream is at-least-once), or a
 * task the reconciler started first, starts nothing more.
 */
async function startTask(record: DynamoDBRecord): Promise<void> {
  const taskId = record.dynamodb?.NewImage?.['task_id']?.S;
  // The filter lets only new tasks through; anything else is not ours to start (and retrying cannot help).
  // Without a sequence number a failure could not be reported either.
  if (!taskId || !record.dynamodb?.SequenceNumber) {
    logger.warn('skipped a stream record that names no task', { event_id: record.eventID });
    return;
  }
  try {
    await workflow.start(taskId);
  } catch (error) {
    logger.error('could not start the execution of a new task; the stream will retry', {
      task_id: taskId,
      error: error as Error,
    });
    throw error;
  }
}
