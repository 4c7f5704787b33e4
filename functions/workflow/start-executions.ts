/**
 * The tasks table's stream consumer (a DynamoDB event source with ReportBatchItemFailures, filtered to
 * tasks created as pending: TASK_STARTS in lib/resource-definitions.ts): starts each new task's lifecycle
 * execution, so the submit itself never waits for StartExecution. A start that fails is reported by its
 * record's sequence number; the event source retries from there, and after its last retry the
 * reconciler starts the task.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { startExecutions } from '../core/use-cases/start-executions.js';
import type { NewTask } from '../core/use-cases/start-executions.js';
import { logger } from '../adapters/logger.js';
import { taskWorkflow } from '../adapters/workflow-dependencies.js';

const deps = {
  workflow: taskWorkflow(),
  onStartFailure: (taskId: string, error: unknown) =>
    logger.error('could not start the execution of a new task; the stream will retry', {
      task_id: taskId,
      error: error as Error,
    }),
};

export const handler = middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event) => {
    const tasks: NewTask[] = [];
    for (const record of event.Records) {
      const taskId = record.dynamodb?.NewImage?.['task_id']?.S;
      const position = record.dynamodb?.SequenceNumber;
      // The filter lets only new tasks through; anything else is not ours to start (and retrying cannot help).
      if (taskId && position) tasks.push({ taskId, position });
      else logger.warn('skipped a stream record that names no task', { event_id: record.eventID });
    }
    const failed = await startExecutions(tasks, deps);
    return { batchItemFailures: failed.map((position) => ({ itemIdentifier: position })) };
  });
