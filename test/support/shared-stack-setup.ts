/**
 * Vitest global setup: one local stack for the whole run, shared by every test file that only needs a running
 * service (test/support/shared-stack.ts). Files isolate themselves as customers are isolated (their own
 * accounts and keys, unique prompts); the few that must own a stack say why in their header. Its start builds
 * the Lambda bundles beside the emulators, so every file finds them built.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../lib/dev/local/emulators.js';
import { localStateMachineArn } from '../../lib/dev/local/local-workflow.js';
import { startTestStack } from './test-stack.js';
import { onlyUnitTests } from './run-filters.js';
import type { SharedStackInfo } from './shared-stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    sharedStack: SharedStackInfo | null;
    /** The DynamoDB Local the integration files make their tables in (test/support/dynamodb-local.ts). */
    integrationDynamoDb: string | null;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (onlyUnitTests()) {
    project.provide('sharedStack', null);
    project.provide('integrationDynamoDb', null);
    return undefined;
  }
  // A JVM of their own for the integration files' tables: DynamoDB Local serves one request at a time per
  // database, and their bursts would slow the stack's handlers past their time limits.
  const [stack, dynamo] = await Promise.all([startTestStack(SHARED_STACK_OPTIONS), startDynamoDbLocal(undefined)]);
  project.provide('integrationDynamoDb', dynamo.endpoint);
  project.provide('sharedStack', {
    baseUrl: stack.baseUrl,
    demo: stack.demo,
    console: stack.console,
    endpoints: stack.endpoints,
    names: stack.names,
    webhookQueues: stack.webhookQueues,
    stateMachineArn: localStateMachineArn(stack.names),
    alipaySimulatorUrl: stack.payments.simulator?.baseUrl ?? '',
    payments: stack.payments.endpoint,
  });
  return async () => {
    await stack.stop();
    await dynamo.stop();
  };
}

/**
 * What every file that shares the stack gets: jobs that end in half a second unless a prompt marker holds
 * them, webhook retries a second apart (the schedule's length, not its waits, is what tests count), and a model
 * catalog each warm function reads again after a second (a catalog change shows without a 30-s wait).
 */
const SHARED_STACK_OPTIONS = {
  upstream: { queuedMs: 150, runningMs: 300 },
  environment: { WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1', MODEL_CATALOG_CACHE_SECONDS: '1' },
};
