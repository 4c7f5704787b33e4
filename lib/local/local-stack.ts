/**
 * The whole service on one machine: emulators (DynamoDB Local, fauxqs), the simulated upstream, the
 * local Step Functions running statemachine/task-lifecycle.asl.json, and a local API Gateway, all wired
 * to the very handlers that run in Lambda. Handlers find everything through the same environment
 * variables as in AWS, so one process holds one stack.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AdminStore } from '../admin/admin-store.js';
import {
  DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS,
  parseWebhookRetrySchedule,
  webhookMaxAttempts,
} from '../../functions/core/webhook.js';
import { physicalNames, STATE_MACHINE, WEBHOOK_QUEUE } from '../resource-definitions.js';
import { API_ROUTES, ASL_RESOURCE_TOKENS, DEFAULT_ROUTE, SCHEDULED_FUNCTIONS, WORKFLOW_FUNCTIONS } from '../routes.js';
import { startApiGatewayServer } from './api-gateway-server.js';
import type { HttpHandler } from './api-gateway-server.js';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { createBucket, createTables, startDynamoDbLocal, startS3AndSqs } from './emulators.js';
import { localHandlerEnvironment } from './handler-environment.js';
import { LOCAL_ACCOUNT as ACCOUNT, LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.js';
import { lambdaContext } from './lambda-context.js';
import { createWebhookQueues } from './local-queues.js';
import type { WebhookQueues } from './local-queues.js';
import { startSqsEventSource } from './sqs-event-source.js';
import type { SqsHandler } from './sqs-event-source.js';
import { startLocalStepFunctions } from './step-functions-server.js';
import type { LocalStepFunctions } from './step-functions-server.js';
import { startUpstreamSimulator } from './upstream-simulator.js';
import type { UpstreamSimulator } from './upstream-simulator.js';

const UPSTREAM_API_KEY = 'local-ark-key';

export interface LocalStackOptions {
  /** API port; 0 picks a free one. Default 3000. */
  port?: number;
  /** Where data persists (DynamoDB tables, S3 objects); undefined keeps everything in memory. */
  dataDir?: string;
  /** Name prefix of tables and bucket. */
  prefix?: string;
  /**
   * Seconds between upstream polls. Locally the poll loop (PollUpstream's first retrier) waits this fixed
   * interval instead of the ASL's 10 s → 60 s backoff. Default 1: tasks finish in seconds.
   */
  pollIntervalSeconds?: number;
  upstream?: { queuedMs?: number; runningMs?: number };
  /** Extra environment for the handlers (e.g. DEFAULT_RATE_LIMIT_PER_SECOND). */
  environment?: Record<string, string>;
  /** Plaintext of the demo account's key; when absent a random one is made (or reused from dataDir). */
  demoApiKey?: string;
  demoBalanceYuan?: string;
  /** One line per API request, when given. */
  accessLog?: (line: string) => void;
  /** How often the reconciler looks for stuck tasks. Default 30 s. */
  reconcileIntervalMs?: number;
}

export interface LocalStack {
  baseUrl: string;
  demo: { accountId: string; apiKey: string };
  endpoints: { dynamodb: string; s3: string; sqs: string; sfn: string; upstream: string };
  names: ReturnType<typeof physicalNames>;
  admin: AdminStore;
  db: DynamoDBDocumentClient;
  stepFunctions: LocalStepFunctions;
  upstream: UpstreamSimulator;
  /** The webhook queue (consumed in-process, as Lambda's event source would) and its dead-letter queue. */
  webhookQueues: WebhookQueues;
  stop(): Promise<void>;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const stoppers: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stoppers.reverse()) await stop().catch((error) => console.error('stop failed:', error));
    stoppers.length = 0;
  };
  try {
    const dynamo = await startDynamoDbLocal(options.dataDir && join(options.dataDir, 'dynamodb'));
    stoppers.push(dynamo.stop);
    const fauxqs = await startS3AndSqs(options.dataDir && join(options.dataDir, 's3'));
    stoppers.push(fauxqs.stop);
    const upstream = await startUpstreamSimulator({
      ...options.upstream,
      apiKey: UPSTREAM_API_KEY,
      ...(options.dataDir ? { stateFile: join(options.dataDir, 'upstream-jobs.json') } : {}),
    });
    stoppers.push(() => upstream.close());

    const names = physicalNames(options.prefix ?? 'vgs-local');
    const clientConfig = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
    const dynamoClient = new DynamoDBClient({ ...clientConfig, endpoint: dynamo.endpoint });
    const s3 = new S3Client({ ...clientConfig, endpoint: fauxqs.endpoint, forcePathStyle: true });
    const sqs = new SQSClient({ ...clientConfig, endpoint: fauxqs.endpoint });
    stoppers.push(async () => [dynamoClient, s3, sqs].forEach((client) => client.destroy()));
    await createTables(dynamoClient, names.tables);
    await createBucket(s3, names.videoBucket);
    const webhookSchedule = parseWebhookRetrySchedule(
      options.environment?.['WEBHOOK_RETRY_SCHEDULE_SECONDS'] ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS.join(','),
    );
    const webhookQueues = await createWebhookQueues(sqs, fauxqs.endpoint, names, webhookMaxAttempts(webhookSchedule));

    const stateMachineArn = `arn:aws:states:${LOCAL_REGION}:${ACCOUNT}:stateMachine:${names.stateMachine}`;
    const functionArn = (id: string) =>
      `arn:aws:lambda:${LOCAL_REGION}:${ACCOUNT}:function:${names.stateMachine}-${id}`;
    const stepFunctions = await startLocalStepFunctions({
      definition: loadDefinition(names, functionArn, webhookQueues.queue.url),
      stateMachineArn,
      lambdaHandlers: Object.fromEntries(
        WORKFLOW_FUNCTIONS.map((fn) => [functionArn(fn.id), lazyStepHandler(fn.entry, fn.id)]),
      ),
      dynamoDb: dynamoClient,
      sqs,
      // The wait before the first poll, and PollUpstream's poll-loop retrier (index 0; its transient-error
      // retrier keeps the ASL's backoff).
      waitTimeOverrides: { WaitBeforeFirstPoll: (options.pollIntervalSeconds ?? 1) * 1000 },
      retryIntervalOverrides: { PollUpstream: [(options.pollIntervalSeconds ?? 1) * 1000] },
    });
    stoppers.push(async () => {
      await stepFunctions.close();
      // A handler stuck in I/O must not hold the shutdown hostage.
      await Promise.race([stepFunctions.idle(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    });

    Object.assign(process.env, {
      ...localHandlerEnvironment(names, {
        dynamodb: dynamo.endpoint,
        s3AndSqs: fauxqs.endpoint,
        sfn: stepFunctions.endpoint,
        upstreamBaseUrl: upstream.baseUrl,
        upstreamApiKey: UPSTREAM_API_KEY,
        stateMachineArn,
        webhookQueueUrl: webhookQueues.queue.url,
      }),
      // Metrics are CloudWatch EMF log lines: noise on a terminal, so off locally.
      POWERTOOLS_METRICS_DISABLED: 'true',
      ...options.environment,
    });
    process.env['POWERTOOLS_LOG_LEVEL'] ??= 'WARN';

    const db = DynamoDBDocumentClient.from(dynamoClient, { marshallOptions: { removeUndefinedValues: true } });
    const admin = new AdminStore(db, names.tables);
    await admin.seedModels(readJson('lib/seed/model-catalog.json'));
    const demo = await ensureDemoAccount(admin, options);

    const api = await startApiGatewayServer({
      routes: await Promise.all(
        API_ROUTES.map(async (route) => ({ ...route, handler: await loadHandler<HttpHandler>(route.entry) })),
      ),
      defaultRoute: { id: DEFAULT_ROUTE.id, handler: await loadHandler<HttpHandler>(DEFAULT_ROUTE.entry) },
      contextFor: (routeId) => lambdaContext(`${names.stateMachine}-${routeId}`),
      port: options.port ?? 3000,
      ...(options.accessLog ? { accessLog: options.accessLog } : {}),
    });
    stoppers.push(api.close);

    // The scheduled reconciler, locally: once now (executions live in memory, so after a restart every
    // task in flight has lost its execution), then periodically like the one-minute schedule in AWS.
    const reconcile = await loadHandler<(event: unknown, context: Context) => Promise<unknown>>(
      SCHEDULED_FUNCTIONS[0].entry,
    );
    const runReconcile = (minAgeSeconds?: number) =>
      reconcile(minAgeSeconds === undefined ? {} : { minAgeSeconds }, lambdaContext('ReconcileTasks')).catch(
        (error: unknown) => console.error('reconcile failed:', error),
      );
    await runReconcile(0);
    const reconcileTimer = setInterval(() => void runReconcile(), options.reconcileIntervalMs ?? 30_000);
    reconcileTimer.unref();
    stoppers.push(async () => clearInterval(reconcileTimer));

    // Lambda's SQS event source, locally: pushed last so it stops first, before the queues and tables go.
    const webhookConsumer = startSqsEventSource({
      sqs,
      queueUrl: webhookQueues.queue.url,
      queueArn: webhookQueues.queue.arn,
      handler: () => loadHandler<SqsHandler>(WEBHOOK_QUEUE.consumer.entry),
      functionName: `${names.stateMachine}-${WEBHOOK_QUEUE.consumer.id}`,
      timeoutMs: WEBHOOK_QUEUE.consumer.timeoutSeconds * 1000,
      batchSize: WEBHOOK_QUEUE.consumer.batchSize,
    });
    stoppers.push(webhookConsumer.stop);

    return {
      baseUrl: api.url,
      demo,
      endpoints: {
        dynamodb: dynamo.endpoint,
        s3: fauxqs.endpoint,
        sqs: fauxqs.endpoint,
        sfn: stepFunctions.endpoint,
        upstream: upstream.baseUrl,
      },
      names,
      admin,
      db,
      stepFunctions,
      upstream,
      webhookQueues,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function loadDefinition(
  names: ReturnType<typeof physicalNames>,
  functionArn: (id: string) => string,
  webhookQueueUrl: string,
) {
  const substitutions: Record<string, string> = {
    [ASL_RESOURCE_TOKENS.webhookQueueUrl]: webhookQueueUrl,
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

/** Handlers are imported only after the environment is set: they read their config at load time. */
async function loadHandler<T>(entry: string): Promise<T> {
  const module = (await import(pathToFileURL(join(REPOSITORY_ROOT, entry)).href)) as { handler: T };
  return module.handler;
}

function lazyStepHandler(entry: string, id: string) {
  let handler: Promise<(event: unknown, context: Context) => Promise<unknown>> | undefined;
  return async (event: unknown) => {
    handler ??= loadHandler(entry);
    return (await handler)(event, lambdaContext(id, 900_000));
  };
}

async function ensureDemoAccount(admin: AdminStore, options: LocalStackOptions) {
  const accountId = 'demo';
  if (!(await admin.accountExists(accountId))) await admin.createAccount(accountId, options.demoBalanceYuan ?? '100');
  if (options.demoApiKey) {
    await admin.createKey({ accountId, plaintext: options.demoApiKey }).catch((error: Error) => {
      if (error.message !== 'this key already exists') throw error;
    });
    return { accountId, apiKey: options.demoApiKey };
  }
  const { key } = await admin.createKey({ accountId });
  return { accountId, apiKey: key };
}

function readJson<T = { version: number; models: unknown[] }>(path: string): T {
  return JSON.parse(readFileSync(join(REPOSITORY_ROOT, path), 'utf8')) as T;
}
