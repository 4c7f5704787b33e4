/**
 * Child entry of the cost section: whole tasks through the real handlers and the real ASL
 * (aws-local-stepfunctions, its waits at zero; a virtual clock tells the stand-in upstream how long the job
 * has run), so a 30-minute task takes a second. Storage calls are counted where they arrive: a proxy in
 * front of DynamoDB Local (asking it for each call's capacity) and fauxqs. Answers one `result` message.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { StateMachine } from 'aws-local-stepfunctions';
import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { physicalNames, TASK_STARTS } from '../../functions/adapters/resources.js';
import { AdminStore } from '../admin/admin-store.js';
import { startApiGatewayServer } from '../local/api-gateway-server.js';
import type { HttpHandler } from '../local/api-gateway-server.js';
import { createBucket, createTables, startDynamoDbLocal, startS3AndSqs } from '../local/emulators.js';
import { everyProviderAt, localHandlerEnvironment } from '../local/handler-environment.js';
import { loadHandler } from '../local/handler-loader.js';
import { lambdaContext } from '../local/lambda-context.js';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/local-aws.js';
import { loadDefinition, localFunctionArn, localStateMachineArn } from '../local/local-workflow.js';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { API_ROUTES, DEFAULT_ROUTE, WORKFLOW_FUNCTIONS } from '../routes.js';
import { sendToParent } from './child.js';
import { ASSUMPTIONS } from './pricing.js';

/** One Lambda function's share of a task. `calls`: `DynamoDB GetItem`, `S3 PUT`, `SQS SendMessage` → count. */
export interface StepUsage {
  invocations: number;
  ms: number[];
  errors: number;
  calls: Record<string, number>;
  readUnits: number;
  writeUnits: number;
  upstreamCalls: number;
  logBytes: number;
}
export interface ProbeRun {
  minutes: number;
  polls: number;
  transitions: number;
  /** The state machine's own log at level ALL (estimated from its events, see pricing.ts). */
  executionLogBytes: number;
  videoBytes: number;
  steps: Record<string, StepUsage>;
}
export interface ProbeResult {
  type: 'result';
  runs: ProbeRun[];
}

let steps: Record<string, StepUsage> = {};
let current: string | undefined;
const usage = (label = current ?? '(unattributed)') =>
  (steps[label] ??= {
    invocations: 0,
    ms: [],
    errors: 0,
    calls: {},
    readUnits: 0,
    writeUnits: 0,
    upstreamCalls: 0,
    logBytes: 0,
  });

/** Runs one invocation of `label`; everything it calls or logs meanwhile is booked to it (runs are sequential). */
async function invoke<T>(label: string, work: () => Promise<T>): Promise<T> {
  current = label;
  const started = performance.now();
  try {
    return await work();
  } catch (error) {
    usage(label).errors += 1;
    throw error;
  } finally {
    usage(label).invocations += 1;
    usage(label).ms.push(performance.now() - started);
    current = undefined;
  }
}

// The handlers' log lines (Powertools writes to stdout) are counted, not printed.
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array, ...rest: []) => {
  if (!current) return write(chunk, ...rest);
  usage().logBytes += Buffer.byteLength(chunk);
  return true;
}) as typeof process.stdout.write;

const body = async (req: IncomingMessage) => Buffer.concat(await req.toArray());
const json = (res: ServerResponse, value: unknown, type = 'application/json') =>
  void res.writeHead(200, { 'content-type': type }).end(JSON.stringify(value));
async function listen(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<string> {
  const server = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Forwards to `target`, counting each call; DynamoDB calls ask for (and book) their consumed capacity. */
const countingProxy = (target: string) =>
  listen(async (req, res) => {
    let payload = await body(req);
    const operation = String(req.headers['x-amz-target'] ?? '');
    const dynamo = operation.startsWith('DynamoDB');
    const call = operation ? `${dynamo ? 'DynamoDB' : 'SQS'} ${operation.split('.')[1]}` : `S3 ${req.method}`;
    usage().calls[call] = (usage().calls[call] ?? 0) + 1;
    if (dynamo)
      payload = Buffer.from(JSON.stringify({ ...JSON.parse(payload.toString()), ReturnConsumedCapacity: 'INDEXES' }));
    const { expect: _expect, 'transfer-encoding': _te, ...headers } = req.headers;
    const forwarded = request(`${target}${req.url}`, {
      method: req.method,
      headers: { ...headers, 'content-length': payload.length },
    });
    forwarded.end(payload);
    const answer = await new Promise<IncomingMessage>((resolve, reject) =>
      forwarded.on('response', resolve).on('error', reject),
    );
    const answerBody = await body(answer);
    if (dynamo && answer.statusCode === 200) {
      const consumed = (JSON.parse(answerBody.toString()) as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const units = [consumed ?? []]
        .flat()
        .reduce((n: number, c) => n + ((c as { CapacityUnits?: number }).CapacityUnits ?? 0), 0);
      if (/Get|Query|Scan/.test(call)) usage().readUnits += units;
      else usage().writeUnits += units;
    }
    const { 'transfer-encoding': _chunked, ...answerHeaders } = answer.headers;
    res.writeHead(answer.statusCode ?? 502, { ...answerHeaders, 'content-length': answerBody.length }).end(answerBody);
  });

// The stand-in upstream answers from the virtual clock: seconds since the job was created.
const VIDEO = randomBytes(Number(process.env['BENCH_COST_VIDEO_MIB'] ?? 5) * 1024 * 1024);
let clock = 0;
let jobSeconds = 0;
const upstream: string = await listen(async (req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (path.startsWith('/files/')) return void res.writeHead(200, { 'content-type': 'video/mp4' }).end(VIDEO);
  usage().upstreamCalls += 1;
  await body(req);
  if (req.method === 'POST') return void ((clock = 0), json(res, { id: `cgt-${randomUUID()}` }));
  const id = path.split('/').pop();
  if (clock < jobSeconds) return json(res, { id, status: 'running' });
  json(res, { id, status: 'succeeded', content: { video_url: `${upstream}/files/${id}.mp4` } });
});
// Step Functions' StartExecution (the task starter's call): the input is kept; the probe runs the execution.
let executionInput: string | undefined;
const sfn = await listen(async (req, res) => {
  executionInput = (JSON.parse((await body(req)).toString()) as { input: string }).input;
  json(
    res,
    { executionArn: `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:execution:bench:${randomUUID()}`, startDate: 0 },
    'application/x-amz-json-1.0',
  );
});

const dynamoDbLocal = await startDynamoDbLocal(undefined);
const fauxqs = await startS3AndSqs(undefined);
const names = physicalNames('bench-cost');
const aws = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
const dynamoClient = new DynamoDBClient({ ...aws, endpoint: dynamoDbLocal.endpoint });
const s3 = new S3Client({ ...aws, endpoint: fauxqs.endpoint, forcePathStyle: true });
await createTables(dynamoClient, names.tables);
await createBucket(s3, names.videoBucket);
const admin = new AdminStore(DynamoDBDocumentClient.from(dynamoClient), names.tables);
await admin.seedModels(JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'lib/seed/model-catalog.json'), 'utf8')) as never);
await admin.createAccount('cost', '100000');
const { key } = await admin.createKey({ accountId: 'cost', ratePerSecond: 1_000_000 });

const fauxqsProxy = await countingProxy(fauxqs.endpoint);
const functionArn = (id: string) => localFunctionArn(names, id);
const webhookQueueUrl = `${fauxqsProxy}/${LOCAL_ACCOUNT}/${names.webhookQueue}`;
// As deployed: INFO logs and metrics (EMF log lines) on, since log volume is part of the cost.
Object.assign(process.env, {
  ...localHandlerEnvironment(names, {
    dynamodb: await countingProxy(dynamoDbLocal.endpoint),
    s3AndSqs: fauxqsProxy,
    sfn,
    // The stand-in answers every provider; the shell's own keys are overwritten, never used.
    upstreams: everyProviderAt(upstream, 'bench'),
    stateMachineArn: localStateMachineArn(names),
    webhookQueueUrl,
  }),
  POWERTOOLS_LOG_LEVEL: 'INFO',
});

type Handler = (event: unknown, context: Context) => Promise<unknown>;
const submitRoute = API_ROUTES.find((route) => route.id === 'SubmitTask')!;
const submit = await loadHandler<HttpHandler>(submitRoute.entry);
const starter = await loadHandler<Handler>(TASK_STARTS.starter.entry);
const api = await startApiGatewayServer({
  routes: [{ ...submitRoute, handler: (event, context) => invoke('SubmitTask', () => submit(event, context)) }],
  defaultRoute: { id: DEFAULT_ROUTE.id, handler: async () => ({ statusCode: 404 }) },
  contextFor: (id) => lambdaContext(id),
  port: 0,
});

const definition = loadDefinition(functionArn, webhookQueueUrl) as unknown as StateMachineDefinition & {
  States: Record<
    string,
    {
      Type: string;
      Resource?: string;
      Seconds?: number;
      Retry?: { ErrorEquals: string[]; IntervalSeconds: number; BackoffRate: number; MaxDelaySeconds: number }[];
    }
  >;
};
// The waits the ASL puts before each poll: WaitBeforeFirstPoll, then PollUpstream's poll-loop retrier.
const firstWait = definition.States['WaitBeforeFirstPoll']!.Seconds!;
const loop = definition.States['PollUpstream']!.Retry!.find((retrier) =>
  retrier.ErrorEquals.includes('GenerationInProgressError'),
)!;
const waitBeforePoll = (poll: number) =>
  poll === 0 ? firstWait : Math.min(loop.IntervalSeconds * loop.BackoffRate ** (poll - 1), loop.MaxDelaySeconds);

let polls = 0;
const toJson = (value: unknown) => JSON.parse(JSON.stringify(value ?? null)) as never;
const taskHandlers = Object.fromEntries(
  WORKFLOW_FUNCTIONS.map((fn) => {
    const state = Object.entries(definition.States).find(([, s]) => s.Resource === functionArn(fn.id))![0];
    const handler = loadHandler<Handler>(fn.entry);
    return [
      state,
      async (input: unknown) => {
        if (fn.id === 'PollUpstream') clock += waitBeforePoll(polls++);
        return toJson(await invoke(fn.id, async () => (await handler)(toJson(input), lambdaContext(fn.id, 900_000))));
      },
    ];
  }),
);
const machine = new StateMachine(definition);

async function runTask(minutes: number): Promise<ProbeRun> {
  steps = {};
  polls = 0;
  jobSeconds = minutes * 60;
  executionInput = undefined;
  const answer = await fetch(`${api.url}${submitRoute.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'seedance-1.5-pro', prompt: `a fox in the snow, ${minutes} min`, duration: 5 }),
  });
  const taskId = ((await answer.json()) as { data: { task_id: string } }).data.task_id;
  // The tasks stream's delivery of the new task, one record per invocation (Lambda batches up to 100: high).
  const record = {
    eventID: randomUUID(),
    eventName: 'INSERT',
    dynamodb: { NewImage: { task_id: { S: taskId }, status: { S: 'pending' } }, SequenceNumber: '1' },
  };
  await invoke('StartExecutions', () => starter({ Records: [record] }, lambdaContext('StartExecutions')));
  if (!executionInput) throw new Error(`task ${taskId}: the starter started no execution`);
  const execution = machine.run(JSON.parse(executionInput) as never, {
    overrides: {
      taskResourceLocalHandlers: taskHandlers,
      waitTimeOverrides: { WaitBeforeFirstPoll: 0 },
      retryIntervalOverrides: { PollUpstream: [0] },
    },
  });
  let transitions = 0;
  let executionLogBytes = 0;
  const { eventsPerTaskState: task, eventsPerOtherState: other, historyEventBytes } = ASSUMPTIONS;
  for await (const event of execution.eventLogs) {
    // Each state entered and each retry is a billed transition; the log holds every event with the state's data.
    if (event.type === 'StateEntered' || event.type === 'StateRetried') {
      transitions += 1;
      executionLogBytes += JSON.stringify(event.state.input ?? null).length;
      executionLogBytes += (event.state.type === 'Task' ? task : other) * historyEventBytes;
    } else if (event.type === 'StateExited') executionLogBytes += JSON.stringify(event.state.output ?? null).length;
  }
  const output = (await execution.result) as { upstream?: { state?: string } };
  if (output.upstream?.state !== 'succeeded')
    throw new Error(`task ${taskId} did not succeed: ${JSON.stringify(output)}`);
  return {
    minutes,
    polls,
    transitions,
    executionLogBytes: executionLogBytes + 2 * historyEventBytes,
    videoBytes: VIDEO.length,
    steps,
  };
}

const minutes = (process.env['BENCH_COST_MINUTES'] ?? '1,5,30').split(',').map(Number);
await runTask(1); // warms every handler: cold starts are not per task
const runs: ProbeRun[] = [];
for (const length of minutes) runs.push(await runTask(length));
sendToParent({ type: 'result', runs } satisfies ProbeResult);
await api.close();
dynamoClient.destroy();
s3.destroy();
await fauxqs.stop();
await dynamoDbLocal.stop();
process.exit(0);
