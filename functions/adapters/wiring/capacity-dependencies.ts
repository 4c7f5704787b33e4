/**
 * Composition root for upstream capacity (docs/upstream-capacity.md; docs/task-lifecycle.md, "Completion"): the accounts, the waiting room, the task
 * waker and the callback URL. Every function that ends a job gives its slot back, so most steps need it.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TaskRecord } from '../../core/task.js';
import type { WaitingRoomDeps } from '../../core/use-cases/waiting-room.js';
import { readEnv } from '../runtime/config.js';
import { dynamoDocumentClient } from '../dynamodb/client.js';
import { logger } from '../runtime/logger.js';
import { DynamoDbUpstreamCapacity } from '../dynamodb/upstream-capacity.js';
import { taskRepository } from './service-dependencies.js';
import { sfnClient } from '../sfn/client.js';
import { StepFunctionsTaskWaker } from '../sfn/task-waker.js';

export function upstreamCapacity() {
  return new DynamoDbUpstreamCapacity(dynamoDocumentClient(), {
    tasks: readEnv('tasksTable'),
    upstreamAccounts: readEnv('upstreamAccountsTable'),
    upstreamQueue: readEnv('upstreamQueueTable'),
  });
}

export function waitingRoomDependencies(): WaitingRoomDeps {
  return {
    capacity: upstreamCapacity(),
    tasks: taskRepository(),
    waker: new StepFunctionsTaskWaker(sfnClient()),
    now: () => new Date(),
    newToken: () => randomBytes(24).toString('base64url'),
    pause: async (ms) => {
      await sleep(ms);
    },
    onDispatchError: (error) =>
      logger.warn('a freed upstream slot could not be handed on now; the reconciler will', { error: error as Error }),
    onContended: (rounds, elapsedMs) =>
      logger.warn(
        'a hand-over of upstream slots stopped (contended, or a slow store); waiting tasks are served by the next one',
        {
          rounds,
          elapsed_ms: elapsedMs,
        },
      ),
  };
}

/** Where the upstream reports a task's job: our API, with the task's secret in the path (docs/task-lifecycle.md, "Completion"). */
export const CALLBACK_ROUTE_PREFIX = '/api/v1/upstream-callbacks';

export function callbackUrl(task: Pick<TaskRecord, 'task_id' | 'callback_token'>): string | undefined {
  const base = readEnv('callbackBaseUrl').replace(/\/+$/, '');
  if (!base || !task.callback_token) return undefined;
  return `${base}${CALLBACK_ROUTE_PREFIX}/${task.task_id}/${task.callback_token}`;
}
