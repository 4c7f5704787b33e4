/**
 * Child entry of section 4 (lifecycle cost): runs whole tasks through the real handlers and the real
 * statemachine/task-lifecycle.asl.json (aws-local-stepfunctions), against DynamoDB Local and fauxqs,
 * with the poll loop's retry waits overridden to zero and a virtual clock instead: each PollUpstream try
 * advances it by the delay PollUpstream's first retrier (read from the ASL) puts before that try, and the
 * stand-in upstream answers from that clock. A task whose upstream takes 1, 5 or 30 minutes thus runs
 * in well under a second, through exactly the states, invocations and storage calls it would make.
 *
 * Counted, per function or state: invocations, local handler time, DynamoDB operations with the capacity
 * DynamoDB Local reports (ReturnConsumedCapacity=INDEXES, so GSI writes included), S3 and SQS requests,
 * upstream calls, log bytes and failed invocations; per execution: the states entered and the retries
 * (together Step Functions' billed transitions) and the size of their inputs and outputs (for the
 * execution log estimate).
 */
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context, SQSEvent } from 'aws-lambda';
import { StateMachine } from 'aws-local-stepfunctions';
import type { RunOptions, StateMachineDefinition } from 'aws-local-stepfunctions';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS, webhookMaxAttempts } from '../../functions/core/webhook.js';
import { AdminStore } from '../admin/admin-store.js';
import { createBucket, createTables, startDynamoDbLocal, startS3AndSqs } from '../local/emulators.js';
import { loadHandler } from '../local/handler-loader.js';
import { lambdaContext } from '../local/lambda-context.js';
import { loadDefinition, localFunctionArn, localStateMachineArn } from '../local/local-workflow.js';
import { localHandlerEnvironment } from '../local/handler-environment.js';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/local-aws.js';
import { createWebhookQueues } from '../local/local-queues.js';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { physicalNames, TASK_STARTS, WEBHOOK_QUEUE } from '../resource-definitions.js';
import { API_ROUTES, WORKFLOW_FUNCTIONS } from '../routes.js';
import { MESSAGE_PREFIX, sendToParent } from './child.js';

/** The task starter's label in the counts (lib/bench/lifecycle-cost.ts's LAMBDA_LABELS prices it as a Lambda). */
const STARTER_LABEL = 'StartExecutions (stream)';

// ------------------------------------------------------------------ what is measured

export interface Usage {
  invocations: number;
  handlerMs: number[];
  dynamo: Record<string, number>;
  readUnits: number;
  writeUnits: number;
  s3: Record<string, number>;
  sqs: Record<string, number>;
  upstreamCalls: number;
  logBytes: number;
  /** Invocations that ended in an error (PollUpstream's "still generating" is one, by design). */
  failedInvocations: number;
}

export interface ProbeRun {
  name: string;
  upstreamSeconds: number;
  webhook: boolean;
  polls: number;
  transitions: number;
  /** States entered, and `<state> (retry)` for each retry: every one a billed transition. */
  statesEntered: Record<string, number>;
  /** Bytes of the states' inputs and outputs, and how many Task/other states: for the execution log estimate. */
  stateDataBytes: number;
  taskStates: number;
  otherStates: number;
  /** Per function / state / API call. */
  usage: Record<string, Usage>;
  taskItemBytes: number;
  videoBytes: number;
}

export interface ProbeResult {
  type: 'result';
  /** Seconds before each PollUpstream try after the first (the retrier's backoff, the last value repeating). */
  pollSchedule: number[];
  runs: ProbeRun[];
}

const emptyUsage = (): Usage => ({
  invocations: 0,
  handlerMs: [],
  dynamo: {},
  readUnits: 0,
  writeUnits: 0,
  s3: {},
  sqs: {},
  upstreamCalls: 0,
  logBytes: 0,
  failedInvocations: 0,
});

let usage: Record<string, Usage> = {};
/** The probe's own read of the finished task (for its size): not part of the task's cost. */
const BENCH_READ = '(bench: task item size)';
/** What is running now (runs are strictly sequential: one task, one step at a time). */
let current: string | undefined;
const usageOf = (label = current ?? 'unattributed') => (usage[label] ??= emptyUsage());

async function labelled<T>(label: string, work: () => Promise<T>): Promise<T> {
  const previous = current;
  current = label;
  const started = performance.now();
  try {
    return await work();
  } catch (error) {
    usageOf(label).failedInvocations += 1;
    throw error;
  } finally {
    const entry = usageOf(label);
    entry.invocations += 1;
    entry.handlerMs.push(performance.now() - started);
    current = previous;
  }
}

// Log bytes: everything printed (Powertools logs to stdout) is counted against the step printing it.
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  if (text.startsWith(MESSAGE_PREFIX)) return write(chunk, ...(rest as []));
  if (current) usageOf().logBytes += Buffer.byteLength(text);
  return true;
}) as typeof process.stdout.write;

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
/** lib-dynamodb's command names → the DynamoDB API operations they send. */
const DOCUMENT_OPERATIONS: Record<string, string> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
  TransactGet: 'TransactGetItems',
  TransactWrite: 'TransactWriteItems',
};

type Command = { input: Record<string, unknown>; constructor: { name: string } };
type Sender = { prototype: { send: (command: Command, ...rest: unknown[]) => Promise<unknown> } };

/**
 * Meters every request a client of this class sends, whichever module made the client: DynamoDB calls
 * ask for their consumed capacity (ReturnConsumedCapacity=INDEXES) and book it (reads → RRU, writes →
 * WRU); S3 and SQS requests are counted (a presigned URL sends nothing, so it is not).
 */
function meter(clientClass: Sender, kind: 'dynamo' | 's3' | 'sqs') {
  const send = clientClass.prototype.send;
  clientClass.prototype.send = async function (this: unknown, command: Command, ...rest: unknown[]) {
    const name = command.constructor.name.replace(/Command$/, '');
    const operation = kind === 'dynamo' ? (DOCUMENT_OPERATIONS[name] ?? name) : name;
    const entry = usageOf();
    if (kind !== 'dynamo') {
      const output = await send.call(this, command, ...rest);
      entry[kind][operation] = (entry[kind][operation] ?? 0) + 1;
      return output;
    }
    command.input['ReturnConsumedCapacity'] = 'INDEXES';
    entry.dynamo[operation] = (entry.dynamo[operation] ?? 0) + 1;
    const output = (await send.call(this, command, ...rest)) as Record<string, unknown>;
    const consumed = output['ConsumedCapacity'] as
      { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
    const units = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
      (total, item) => total + (item.CapacityUnits ?? 0),
      0,
    );
    if (READS.has(operation)) entry.readUnits += units;
    else entry.writeUnits += units;
    return output;
  };
}
meter(DynamoDBClient as unknown as Sender, 'dynamo');
meter(DynamoDBDocumentClient as unknown as Sender, 'dynamo');
meter(S3Client as unknown as Sender, 's3');
meter(SQSClient as unknown as Sender, 'sqs');

// ------------------------------------------------------------------ the stand-ins: upstream, Step Functions API, webhook receiver

const VIDEO = randomBytes(Number(process.env['BENCH_COST_VIDEO_MIB'] ?? 5) * 1024 * 1024);
/** Seconds since the upstream job was created, on the virtual clock. */
let virtualSeconds = 0;
let upstreamSeconds = 60;
let polls = 0;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown, type = 'application/json') {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) }).end(text);
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<string> {
  const server = createServer(
    (req, res) => void handler(req, res).catch((error: unknown) => json(res, 500, { error: String(error) })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const upstreamUrl = await listen(async (req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (path.startsWith('/files/')) {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': VIDEO.length });
    return void res.end(req.method === 'HEAD' ? undefined : VIDEO);
  }
  usageOf().upstreamCalls += 1;
  if (req.method === 'POST') {
    await readBody(req);
    virtualSeconds = 0;
    return json(res, 200, { id: `cgt-bench-${randomUUID().slice(0, 8)}` });
  }
  const id = path.split('/').pop() ?? '';
  const status = virtualSeconds >= upstreamSeconds ? 'succeeded' : virtualSeconds < 5 ? 'queued' : 'running';
  json(res, 200, {
    id,
    status,
    ...(status === 'succeeded' ? { content: { video_url: `${upstreamUrl}/files/${id}.mp4` } } : {}),
  });
});

/** StartExecution is recorded; the probe runs the execution itself once the task starter has returned. */
let started: { name: string; input: string } | undefined;
const sfnUrl = await listen(async (req, res) => {
  const body = JSON.parse(await readBody(req)) as { name?: string; input?: string };
  const target = String(req.headers['x-amz-target'] ?? '');
  if (!target.endsWith('StartExecution'))
    return json(res, 400, { __type: 'UnknownOperationException' }, 'application/x-amz-json-1.0');
  started = { name: body.name ?? randomUUID(), input: body.input ?? '{}' };
  json(
    res,
    200,
    {
      executionArn: `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:execution:bench:${started.name}`,
      startDate: Date.now() / 1000,
    },
    'application/x-amz-json-1.0',
  );
});

const webhookUrl = await listen(async (req, res) => {
  await readBody(req);
  res.writeHead(204).end();
});

// ------------------------------------------------------------------ emulators, tables, data, environment

const dynamo = await startDynamoDbLocal(undefined);
const fauxqs = await startS3AndSqs(undefined);
const names = physicalNames('bench-cost');
const clientConfig = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
const dynamoClient = new DynamoDBClient({ ...clientConfig, endpoint: dynamo.endpoint });
const sqs = new SQSClient({ ...clientConfig, endpoint: fauxqs.endpoint });
const setupS3 = new S3Client({ ...clientConfig, endpoint: fauxqs.endpoint, forcePathStyle: true });
await createTables(dynamoClient, names.tables);
await createBucket(setupS3, names.videoBucket);
const queues = await createWebhookQueues(
  sqs,
  fauxqs.endpoint,
  names,
  webhookMaxAttempts(DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS),
);
const admin = new AdminStore(
  DynamoDBDocumentClient.from(dynamoClient, { marshallOptions: { removeUndefinedValues: true } }),
  names.tables,
);
await admin.seedModels(
  JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'lib/seed/model-catalog.json'), 'utf8')) as {
    version: number;
    models: unknown[];
  },
);
await admin.createAccount('cost', '100000');
// No practical rate limit: the probe's calls come faster than any client's, and a 429 is not what it measures.
const { key } = await admin.createKey({ accountId: 'cost', ratePerSecond: 1_000_000 });
await admin.webhookSecret('cost');

const stateMachineArn = localStateMachineArn(names);
const functionArn = (id: string) => localFunctionArn(names, id);
Object.assign(process.env, {
  ...localHandlerEnvironment(names, {
    dynamodb: dynamo.endpoint,
    s3AndSqs: fauxqs.endpoint,
    sfn: sfnUrl,
    upstreamBaseUrl: upstreamUrl,
    upstreamApiKey: 'bench-ark-key',
    stateMachineArn,
    webhookQueueUrl: queues.queue.url,
  }),
  // As deployed (lib/cdk/service-function.ts): the log volume is part of the cost.
  POWERTOOLS_LOG_LEVEL: 'INFO',
});

// Handlers load after the environment is set (they read their configuration at load).
type Handler = (event: unknown, context: Context) => Promise<unknown>;
const load = (entry: string) => loadHandler<Handler>(entry);
const workflow = Object.fromEntries(
  await Promise.all(WORKFLOW_FUNCTIONS.map(async (fn) => [fn.id, await load(fn.entry)] as const)),
);
const route = (id: string) => API_ROUTES.find((candidate) => candidate.id === id)!.entry;
const submitHandler = await load(route('SubmitTask'));
const getTaskHandler = await load(route('GetTask'));
const webhookHandler = await load(WEBHOOK_QUEUE.consumer.entry);
const starterHandler = await load(TASK_STARTS.starter.entry);

/**
 * The tasks stream's delivery of a new task to the starter, as Lambda makes it: one invocation per task here
 * (in AWS a batch holds up to TASK_STARTS.batchSize new tasks, so this counts high). Lambda reads the stream
 * for its event source at no charge.
 */
async function startFromStream(taskId: string): Promise<void> {
  await labelled(STARTER_LABEL, () =>
    starterHandler(
      {
        Records: [
          {
            eventID: randomUUID(),
            eventName: 'INSERT',
            eventSource: 'aws:dynamodb',
            dynamodb: {
              Keys: { task_id: { S: taskId } },
              NewImage: { task_id: { S: taskId }, status: { S: 'pending' } },
              SequenceNumber: String(Date.now()),
              StreamViewType: 'NEW_IMAGE',
            },
          },
        ],
      },
      lambdaContext(STARTER_LABEL),
    ),
  );
}
const documents = DynamoDBDocumentClient.from(dynamoClient);

// ------------------------------------------------------------------ the state machine, with waits overridden

const definition = loadDefinition(functionArn, queues.queue.url) as unknown as StateMachineDefinition & {
  States: Record<string, { Type: string; Resource?: string }>;
};
const machine = new StateMachine(definition);

interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  BackoffRate?: number;
  MaxDelaySeconds?: number;
}
/** The poll loop: PollUpstream's retrier for GenerationInProgressError, as AWS would run it (no jitter set). */
const pollRetrier = (definition.States['PollUpstream'] as { Retry?: Retrier[] }).Retry?.find((retrier) =>
  retrier.ErrorEquals.includes('GenerationInProgressError'),
);
if (!pollRetrier) throw new Error('PollUpstream has no GenerationInProgressError retrier: where is the poll loop?');
/** Seconds Step Functions waits before retry number `retry` (1-based), per the ASL's retrier. */
function retryDelaySeconds(retry: number): number {
  const { IntervalSeconds = 1, BackoffRate = 2, MaxDelaySeconds = Number.POSITIVE_INFINITY } = pollRetrier!;
  return Math.min(IntervalSeconds * BackoffRate ** (retry - 1), MaxDelaySeconds);
}
const firstPollDelaySeconds = Number((definition.States['WaitBeforeFirstPoll'] as { Seconds?: number }).Seconds);
if (!Number.isFinite(firstPollDelaySeconds)) throw new Error('no WaitBeforeFirstPoll with Seconds in the ASL');
const schedule = [firstPollDelaySeconds, ...Array.from({ length: 7 }, (_, index) => retryDelaySeconds(index + 1))];

type EventLog = ReturnType<StateMachine['run']>['eventLogs'] extends AsyncGenerator<infer E> ? E : never;

const toJson = <T>(value: unknown): T => JSON.parse(JSON.stringify(value ?? null)) as T;

function lambdaState(id: string) {
  return async (input: unknown) => {
    if (id === 'PollUpstream') {
      // The wait before this try, on the virtual clock: the Wait state's before the first, the retrier's after.
      virtualSeconds += polls === 0 ? firstPollDelaySeconds : retryDelaySeconds(polls);
      polls += 1;
    }
    return labelled(id, async () => toJson(await workflow[id]!(toJson(input), lambdaContext(id, 900_000))));
  };
}

type TaskHandlers = NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']>;
const taskHandlers: TaskHandlers = {};
for (const [stateName, state] of Object.entries(definition.States)) {
  if (state.Type !== 'Task') continue;
  const lambda = WORKFLOW_FUNCTIONS.find((fn) => functionArn(fn.id) === state.Resource);
  if (lambda) taskHandlers[stateName] = lambdaState(lambda.id) as TaskHandlers[string];
  else if (state.Resource === 'arn:aws:states:::dynamodb:updateItem') {
    taskHandlers[stateName] = (async (input: UpdateItemCommandInput) =>
      labelled(`${stateName} (Step Functions → DynamoDB)`, async () => {
        const { $metadata: _metadata, ...output } = await dynamoClient.send(new UpdateItemCommand(input));
        return toJson(output);
      })) as unknown as TaskHandlers[string];
  } else if (state.Resource === 'arn:aws:states:::sqs:sendMessage') {
    taskHandlers[stateName] = (async (input: { QueueUrl: string; MessageBody: unknown }) =>
      labelled(`${stateName} (Step Functions → SQS)`, async () => {
        const { $metadata: _metadata, ...output } = await sqs.send(
          new SendMessageCommand({ QueueUrl: input.QueueUrl, MessageBody: JSON.stringify(input.MessageBody) }),
        );
        return toJson(output);
      })) as unknown as TaskHandlers[string];
  } else throw new Error(`no local stand-in for state ${stateName} (${state.Resource})`);
}

// ------------------------------------------------------------------ one task, start to end

function apiEvent(
  method: string,
  path: string,
  body?: unknown,
  pathParameters?: Record<string, string>,
): APIGatewayProxyEventV2 {
  const now = new Date();
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', host: 'api.example.com' },
    ...(pathParameters ? { pathParameters } : {}),
    requestContext: {
      accountId: LOCAL_ACCOUNT,
      apiId: 'bench',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.1', userAgent: 'bench' },
      requestId: randomUUID(),
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body === undefined ? { isBase64Encoded: false } : { body: JSON.stringify(body), isBase64Encoded: false }),
  };
}

async function callRoute(label: string, handler: Handler, event: APIGatewayProxyEventV2) {
  const result = (await labelled(label, () =>
    handler(event, lambdaContext(label)),
  )) as APIGatewayProxyStructuredResultV2;
  const body = JSON.parse(result.body ?? '{}') as { code: number; message: string; data: Record<string, unknown> };
  if (result.statusCode !== 200) throw new Error(`${label}: ${result.statusCode} ${result.body}`);
  return body.data;
}

async function runTask(name: string, seconds: number, webhook: boolean): Promise<ProbeRun> {
  usage = {};
  polls = 0;
  upstreamSeconds = seconds;
  started = undefined;
  const body = {
    model: 'seedance-1.5-pro',
    prompt: `a red fox in the snow (${name})`,
    duration: 5,
    ...(webhook ? { webhook_url: `${webhookUrl}/hook` } : {}),
  };
  const submitted = await callRoute(
    'SubmitTask (API)',
    submitHandler,
    apiEvent('POST', '/api/v1/video/generate', body),
  );
  const taskId = submitted['task_id'] as string;
  await startFromStream(taskId);
  const begun = started as { name: string; input: string } | undefined;
  if (!begun) throw new Error('the task starter did not start an execution');

  const entered: Record<string, number> = {};
  let stateDataBytes = 0;
  let taskStates = 0;
  let otherStates = 0;
  const execution = machine.run(JSON.parse(begun.input) as never, {
    overrides: {
      taskResourceLocalHandlers: taskHandlers,
      retryIntervalOverrides: { PollUpstream: [0] },
      waitTimeOverrides: { WaitBeforeFirstPoll: 0 },
    },
  });
  for await (const event of execution.eventLogs as AsyncGenerator<EventLog>) {
    if (event.type === 'StateEntered') {
      entered[event.state.name] = (entered[event.state.name] ?? 0) + 1;
      if (event.state.type === 'Task') taskStates += 1;
      else otherStates += 1;
      stateDataBytes += Buffer.byteLength(JSON.stringify(event.state.input ?? null));
    } else if (event.type === 'StateRetried') {
      // A retry is billed as a transition, and logs like a Task state's try (scheduled, started, failed).
      const retried = `${event.state.name} (retry)`;
      entered[retried] = (entered[retried] ?? 0) + 1;
      taskStates += 1;
      stateDataBytes += Buffer.byteLength(JSON.stringify(event.state.input ?? null));
    } else if (event.type === 'StateExited') {
      stateDataBytes += Buffer.byteLength(JSON.stringify(event.state.output ?? null));
    } else if (event.type === 'ExecutionFailed') {
      throw new Error(`execution failed: ${JSON.stringify(event)}`);
    }
  }
  await execution.result;

  if (webhook) {
    // Lambda's SQS event source: one receive (long poll) and one delete per batch, then the consumer.
    const received = await labelled('Webhook event source (SQS)', async () =>
      sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queues.queue.url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          AttributeNames: ['All'],
        }),
      ),
    );
    const message = received.Messages?.[0];
    if (!message) throw new Error('no webhook message was queued');
    const event: SQSEvent = {
      Records: [
        {
          messageId: message.MessageId!,
          receiptHandle: message.ReceiptHandle!,
          body: message.Body!,
          attributes: {
            ApproximateReceiveCount: message.Attributes?.['ApproximateReceiveCount'] ?? '1',
            SentTimestamp: message.Attributes?.['SentTimestamp'] ?? String(Date.now()),
            SenderId: 'bench',
            ApproximateFirstReceiveTimestamp: String(Date.now()),
          },
          messageAttributes: {},
          md5OfBody: message.MD5OfBody ?? '',
          eventSource: 'aws:sqs',
          eventSourceARN: queues.queue.arn,
          awsRegion: LOCAL_REGION,
        },
      ],
    };
    const outcome = (await labelled(WEBHOOK_QUEUE.consumer.id, () =>
      webhookHandler(event, lambdaContext(WEBHOOK_QUEUE.consumer.id)),
    )) as {
      batchItemFailures: unknown[];
    };
    if (outcome.batchItemFailures.length > 0) throw new Error(`webhook delivery failed: ${JSON.stringify(outcome)}`);
    await labelled('Webhook event source (SQS)', () =>
      sqs.send(new DeleteMessageCommand({ QueueUrl: queues.queue.url, ReceiptHandle: message.ReceiptHandle! })),
    );
  }

  // The client's last query, of the finished task, is counted apart (clients poll as often as they like).
  const view = await callRoute(
    'GetTask (API, finished task)',
    getTaskHandler,
    apiEvent('GET', `/api/v1/video/tasks/${taskId}`, undefined, { id: taskId }),
  );
  if (view['status'] !== 'success') throw new Error(`task ended ${String(view['status'])}`);
  const stored = await labelled(BENCH_READ, () =>
    documents.send(new GetCommand({ TableName: names.tables.tasks, Key: { task_id: taskId } })),
  );
  delete usage[BENCH_READ];
  return {
    name,
    upstreamSeconds: seconds,
    webhook,
    polls,
    transitions: Object.values(entered).reduce((total, count) => total + count, 0),
    statesEntered: entered,
    stateDataBytes,
    taskStates,
    otherStates,
    usage,
    taskItemBytes: Buffer.byteLength(JSON.stringify(stored.Item ?? {})),
    videoBytes: VIDEO.length,
  };
}

/** A query of a task still generating: the API's live status check (one upstream call) is part of it. */
async function runLiveQuery(): Promise<ProbeRun> {
  usage = {};
  upstreamSeconds = 3_600;
  started = undefined;
  const submitted = await callRoute(
    'SubmitTask (API)',
    submitHandler,
    apiEvent('POST', '/api/v1/video/generate', { model: 'seedance-1.5-pro', prompt: 'live query', duration: 5 }),
  );
  const taskId = submitted['task_id'] as string;
  // Only the first step: the task gets its upstream job and is `running`.
  await labelled('StartUpstream', async () =>
    toJson(await workflow['StartUpstream']!({ task_id: taskId }, lambdaContext('StartUpstream'))),
  );
  virtualSeconds = 30;
  usage = {};
  await callRoute(
    'GetTask (API, running task)',
    getTaskHandler,
    apiEvent('GET', `/api/v1/video/tasks/${taskId}`, undefined, { id: taskId }),
  );
  return {
    name: 'live query',
    upstreamSeconds: 3_600,
    webhook: false,
    polls: 0,
    transitions: 0,
    statesEntered: {},
    stateDataBytes: 0,
    taskStates: 0,
    otherStates: 0,
    usage,
    taskItemBytes: 0,
    videoBytes: 0,
  };
}

const durations = (process.env['BENCH_COST_MINUTES'] ?? '1,5,30').split(',').map((minutes) => Number(minutes) * 60);
const runs: ProbeRun[] = [];
// A first task warms every handler (its numbers are not kept): cold starts are priced apart.
await runTask('warm-up', 60, true);
for (const seconds of durations) runs.push(await runTask(`${seconds / 60} min`, seconds, false));
runs.push(await runTask('5 min, with webhook', 300, true));
runs.push(await runLiveQuery());

const result: ProbeResult = { type: 'result', pollSchedule: schedule, runs };
sendToParent(result as unknown as Record<string, unknown>);
dynamoClient.destroy();
sqs.destroy();
setupS3.destroy();
await fauxqs.stop();
await dynamo.stop();
process.exit(0);
