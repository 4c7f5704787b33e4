/**
 * The workflow side of the local stack: the local Step Functions running the ASL with the workflow steps,
 * the tasks stream's event source, the scheduled functions and the webhook queue's event source. In its
 * own process (workflow-process.ts), as none of it runs on the API's Lambdas in AWS.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { functionById } from '../../../functions/catalog.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { physicalNames } from '../../../functions/adapters/runtime/resources.js';
import { ENV } from '../../../functions/adapters/runtime/config.js';
import {
  STATE_MACHINE,
  TASK_STARTS,
  UPLOAD_TRANSCODER,
  WEBHOOK_QUEUE,
} from '../../../functions/adapters/runtime/resources.js';
import { ASL_RESOURCE_TOKENS, SCHEDULED_FUNCTIONS, WORKFLOW_FUNCTIONS } from '../../ship/routes.js';
import { REPOSITORY_ROOT } from '../../ship/repository-root.js';
import { startDynamoDbStreamSource } from './dynamodb-stream-source.js';
import type { DynamoDbStreamHandler } from './dynamodb-stream-source.js';
import { applyLocalHandlerEnvironment } from '../../ship/sam-local/handler-environment.js';
import type { LocalHandlerEndpoints } from '../../ship/sam-local/handler-environment.js';
import { loadBundledHandler } from './handler-loader.js';
import type { BundleFiles } from './handler-loader.js';
import { startLambdaInvokeServer } from './lambda-invoke-server.js';
import { localFunction, localTimeoutMs } from './local-function.js';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS, LOCAL_REGION } from '../../ship/sam-local/local-aws.js';
import { startSqsEventSource } from './sqs-event-source.js';
import type { SqsHandler } from './sqs-event-source.js';
import { startLocalStepFunctions } from './step-functions-server.js';
import type { ExecutionRecord } from './step-functions-server.js';

/** AwaitCompletion's fallback poll locally when the job calls back (COMPLETION_CHECK_SECONDS). */
export const LOCAL_COMPLETION_CHECK_SECONDS = 30;

export interface LocalWorkflowConfig {
  names: ReturnType<typeof physicalNames>;
  endpoints: Pick<LocalHandlerEndpoints, 'dynamodb' | 's3AndSqs' | 'upstreams' | 'payments'>;
  webhookQueue: { url: string; arn: string };
  /** Seconds between polls of a job that cannot call back (see LocalStackOptions.pollIntervalSeconds). */
  pollIntervalSeconds: number;
  /** The local API's base URL, where the upstream calls back (CALLBACK_BASE_URL); empty: no callbacks. */
  callbackBaseUrl: string;
  /** How often the reconciler runs after its first run at start. */
  reconcileIntervalMs: number;
  /** Extra environment for the handlers. */
  environment: Record<string, string>;
  /** Each function's bundle by its entry (lib/ship/build/lambda-bundles.ts). */
  bundles: BundleFiles;
}

export interface LocalWorkflow {
  /** The local Step Functions' endpoint, for the API's StopExecution (a cancel). */
  sfnEndpoint: string;
  executions(): ExecutionRecord[];
  /** Holds new tasks' starts (the tasks stream's event source) until resumed: what the bench measures the API without. */
  pauseTaskStarts(): void;
  resumeTaskStarts(): void;
  stop(): Promise<void>;
}

/** The ARN a workflow function has locally, as the ASL's `${Token}` for it is filled in. */
export function localFunctionArn(names: ReturnType<typeof physicalNames>, id: string): string {
  return `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${names.stateMachine}-${id}`;
}

export function localStateMachineArn(names: ReturnType<typeof physicalNames>): string {
  return `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:${names.stateMachine}`;
}

export async function startLocalWorkflow(config: LocalWorkflowConfig): Promise<LocalWorkflow> {
  const { names } = config;
  // Before anything restarts: a task final after this moment was ended by this process, which queued its webhook.
  const startedAt = new Date().toISOString();
  const stoppers: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stoppers.reverse()) await stop().catch((error) => console.error('stop failed:', error));
    stoppers.length = 0;
  };
  try {
    const clientConfig = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
    const dynamoDb = new DynamoDBClient({ ...clientConfig, endpoint: config.endpoints.dynamodb });
    const sqs = new SQSClient({ ...clientConfig, endpoint: config.endpoints.s3AndSqs });
    stoppers.push(async () => [dynamoDb, sqs].forEach((client) => client.destroy()));

    const stateMachineArn = localStateMachineArn(names);
    const functionArn = (id: string) => localFunctionArn(names, id);
    /** A function's bundle, run with only its own variables and under its own timeout (local-function.ts). */
    const local = <E, R>(id: string) =>
      localFunction<E, R>(
        functionById(id),
        () => loadBundledHandler<(event: E, context: Context) => Promise<R>>(config.bundles, functionById(id).entry),
        `${names.stateMachine}-${id}`,
      );
    const stepFunctions = await startLocalStepFunctions({
      definition: loadDefinition(functionArn, config.webhookQueue.url),
      stateMachineArn,
      lambdaHandlers: Object.fromEntries(
        WORKFLOW_FUNCTIONS.map((fn) => [functionArn(fn.id), local<unknown, unknown>(fn.id)]),
      ),
      sqs,
    });
    stoppers.push(async () => {
      await stepFunctions.close();
      // A handler stuck in I/O must not hold the shutdown hostage.
      await Promise.race([stepFunctions.idle(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    });

    // Functions that others invoke (PrepareInputs → TranscodeUpload), behind Lambda's Invoke API.
    // Run as the other functions are: only its own variables, under its own timeout (local-function.ts).
    const transcoder = local<unknown, unknown>(UPLOAD_TRANSCODER.id);
    const invoked = await startLambdaInvokeServer({
      [names.transcoderFunction]: {
        handler: async () => (event: unknown) => transcoder(event),
        timeoutMs: localTimeoutMs(functionById(UPLOAD_TRANSCODER.id)),
      },
    });
    stoppers.push(invoked.close);

    applyLocalHandlerEnvironment(
      names,
      {
        dynamodb: config.endpoints.dynamodb,
        s3AndSqs: config.endpoints.s3AndSqs,
        sfn: stepFunctions.endpoint,
        upstreams: config.endpoints.upstreams,
        ...(config.endpoints.payments && { payments: config.endpoints.payments }),
        stateMachineArn,
        webhookQueueUrl: config.webhookQueue.url,
      },
      {
        [ENV.callbackBaseUrl.name]: config.callbackBaseUrl,
        [ENV.lambdaEndpoint.name]: invoked.endpoint,
        [ENV.completionPollSeconds.name]: String(config.pollIntervalSeconds),
        // With callbacks only a lost one waits for this: shorter than in AWS, still rare enough for a burst.
        [ENV.completionCheckSeconds.name]: String(LOCAL_COMPLETION_CHECK_SECONDS),
        ...config.environment,
      },
    );

    // The scheduled functions (the reconciler, the webhook requeuer): once now (executions and queued
    // webhooks live in memory, so after a restart every task in flight has lost its execution and every
    // owed webhook its message), then periodically like the one-minute schedule in AWS.
    const scheduled = await Promise.all(
      SCHEDULED_FUNCTIONS.map(async ({ id }) => {
        const run = local<Record<string, unknown>, unknown>(id);
        await run.ready();
        return { id, run };
      }),
    );
    let reconciling: Promise<unknown> = Promise.resolve();
    const runReconcile = (eventOf: (id: string) => Record<string, unknown> = () => ({})) =>
      (reconciling = Promise.all(
        scheduled.map(({ id, run }) =>
          run(eventOf(id)).catch((error: unknown) => console.error(`${id} failed:`, error)),
        ),
      ));
    // Lambda's event source on the tasks table's stream: each new task's execution starts from it. Started
    // (at the stream's end) before the reconciler's first run, so no new task falls between the two.
    const taskStarts = await startDynamoDbStreamSource({
      dynamoDb,
      endpoint: config.endpoints.dynamodb,
      tableName: names.tables.tasks,
      handler: async () => {
        const run = local<Parameters<DynamoDbStreamHandler>[0], Awaited<ReturnType<DynamoDbStreamHandler>>>(
          TASK_STARTS.starter.id,
        );
        return (event) => run(event);
      },
      functionName: `${names.stateMachine}-${TASK_STARTS.starter.id}`,
      timeoutMs: localTimeoutMs(functionById(TASK_STARTS.starter.id)),
      batchSize: TASK_STARTS.batchSize,
      filterPattern: TASK_STARTS.filterPattern,
      retryAttempts: TASK_STARTS.retryAttempts,
    });
    stoppers.push(taskStarts.stop);

    // At start every task in flight is stale (executions live in memory): runs until one restarts nothing,
    // as the reconciler takes at most its limit (100) per run.
    const reconcile = scheduled.find(({ id }) => id === 'ReconcileTasks');
    for (let run = 0; reconcile && run < 50; run += 1) {
      const report = (await reconcile.run({ minAgeSeconds: 0 }).catch((error) => {
        console.error(`${reconcile.id} failed:`, error);
        return undefined;
      })) as { restarted?: number } | undefined;
      if (!report?.restarted) break;
    }
    // The requeuer only for webhooks owed before the start: a restarted execution that has just ended a task
    // queued that webhook itself, and a second message would be a second try at it.
    await runReconcile((id) =>
      id === 'RequeueWebhooks' ? { minAgeSeconds: 0, finalBefore: startedAt } : { minAgeSeconds: 0 },
    );
    const reconcileTimer = setInterval(() => void runReconcile(), config.reconcileIntervalMs);
    reconcileTimer.unref();
    stoppers.push(async () => {
      clearInterval(reconcileTimer);
      await reconciling;
    });

    // Lambda's SQS event source: pushed last so it stops first.
    const webhookConsumer = startSqsEventSource({
      sqs,
      queueUrl: config.webhookQueue.url,
      queueArn: config.webhookQueue.arn,
      handler: async () => {
        const run = local<Parameters<SqsHandler>[0], Awaited<ReturnType<SqsHandler>>>(WEBHOOK_QUEUE.consumer.id);
        return (event) => run(event);
      },
      functionName: `${names.stateMachine}-${WEBHOOK_QUEUE.consumer.id}`,
      timeoutMs: localTimeoutMs(functionById(WEBHOOK_QUEUE.consumer.id)),
      batchSize: WEBHOOK_QUEUE.consumer.batchSize,
      maxConcurrency: WEBHOOK_QUEUE.consumer.maxConcurrency,
      visibilityTimeoutSeconds: WEBHOOK_QUEUE.visibilityTimeoutSeconds,
    });
    stoppers.push(webhookConsumer.stop);

    return {
      sfnEndpoint: stepFunctions.endpoint,
      executions: () => stepFunctions.executions(),
      pauseTaskStarts: () => taskStarts.pause(),
      resumeTaskStarts: () => taskStarts.resume(),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** statemachine/task-lifecycle.asl.json with its `${Token}`s filled in: every one must have a value. */
export function loadDefinition(functionArn: (id: string) => string, webhookQueueUrl: string) {
  const substitutions: Record<string, string> = {
    [ASL_RESOURCE_TOKENS.webhookQueueUrl]: webhookQueueUrl,
    // The local Step Functions speaks the commercial partition's ARNs (step-functions-server.ts).
    [ASL_RESOURCE_TOKENS.partition]: 'aws',
  };
  for (const fn of WORKFLOW_FUNCTIONS) substitutions[fn.aslToken] = functionArn(fn.id);
  const text = readFileSync(join(REPOSITORY_ROOT, STATE_MACHINE.definitionFile), 'utf8').replace(
    /\$\{(\w+)\}/g,
    (_match, token: string) => {
      const value = substitutions[token];
      if (value === undefined) throw new Error(`no substitution for \${${token}} in ${STATE_MACHINE.definitionFile}`);
      return value;
    },
  );
  return JSON.parse(text) as Record<string, unknown>;
}
