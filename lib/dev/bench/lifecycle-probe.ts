/**
 * Child entry of the cost section: whole tasks through the real handlers and the real ASL (aws-local-stepfunctions,
 * its waits at zero; a virtual clock says how long the job has run, and when each task-token wait would time out
 * or be answered by the upstream's callback), so a 1-hour task takes a second. Storage calls are counted where they
 * arrive: a proxy in front of DynamoDB Local (asking it for each call's capacity) and fauxqs, and a stand-in Step
 * Functions API (StartExecution, SendTaskSuccess). Answers the runs.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { StateMachine } from 'aws-local-stepfunctions';
import type { RunOptions, StateMachineDefinition } from 'aws-local-stepfunctions';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ENV } from '../../../functions/adapters/runtime/config.js';
import { physicalNames, TASK_STARTS } from '../../../functions/adapters/runtime/resources.js';
import { functionById } from '../../../functions/catalog.js';
import { DEFAULT_ACCOUNT } from '../../../functions/core/ports/upstream-capacity.js';
import { AdminStore } from '../../ship/admin/admin-store.js';
import { startApiGatewayServer } from '../local/api-gateway-server.js';
import type { HttpHandler } from '../local/api-gateway-server.js';
import { createBucket, createTables, startDynamoDbLocal, startS3AndSqs } from '../local/emulators.js';
import { childOfLocalStack, sendToParent } from '../local/forked-process.js';
import { everyProviderAt, localHandlerEnvironment } from '../../ship/sam-local/handler-environment.js';
import { loadHandler } from '../local/handler-loader.js';
import { lambdaContext } from '../local/lambda-context.js';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS, LOCAL_REGION } from '../../ship/sam-local/local-aws.js';
import { loadDefinition, localFunctionArn, localStateMachineArn } from '../local/local-workflow.js';
import { libraryTimeoutErrors } from '../local/step-functions-server.js';
import { REPOSITORY_ROOT } from '../../ship/repository-root.js';
import { API_ROUTES, DEFAULT_ROUTE, WORKFLOW_FUNCTIONS } from '../../ship/routes.js';
import { ASSUMPTIONS } from './pricing.js';

/** One Lambda function's share of a task; `calls`: `DynamoDB GetItem`, `S3 PUT`, `SFN SendTaskSuccess` → count. */
export type StepUsage = ReturnType<typeof newUsage>;
/** One task's run; `apiRequests`: the submit and the callbacks (client queries left out). */
export type ProbeRun = Awaited<ReturnType<typeof runTask>>;

const newUsage = () => ({
  ...{ invocations: 0, ms: [] as number[], errors: 0, calls: {} as Record<string, number> },
  ...{ readUnits: 0, writeUnits: 0, upstreamCalls: 0, logBytes: 0 },
});
let steps: Record<string, StepUsage> = {};
let current: string | undefined;
const usage = (label = current ?? '(unattributed)') => (steps[label] ??= newUsage());
const count = (call: string) => void (usage().calls[call] = (usage().calls[call] ?? 0) + 1);

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
const AMZ_JSON = 'application/x-amz-json-1.0';
const json = (res: ServerResponse, value: unknown, status = 200, type = AMZ_JSON) =>
  void res.writeHead(status, { 'content-type': type }).end(JSON.stringify(value));
async function listen(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<string> {
  const server = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

type Consumed = { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] };
/** Forwards to `target`, counting each call; DynamoDB calls ask for (and book) their consumed capacity. */
const countingProxy = (target: string) =>
  listen(async (req, res) => {
    let payload = await body(req);
    const operation = String(req.headers['x-amz-target'] ?? '');
    const dynamo = operation.startsWith('DynamoDB');
    const call = operation ? `${dynamo ? 'DynamoDB' : 'SQS'} ${operation.split('.')[1]}` : `S3 ${req.method}`;
    count(call);
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
      const { ConsumedCapacity = [] } = JSON.parse(answerBody.toString()) as Consumed;
      const units = [ConsumedCapacity].flat().reduce((n, c) => n + (c.CapacityUnits ?? 0), 0);
      // DynamoDB Local books a transaction's items at the standard rate; AWS bills 2 units per item and KB
      // (its index writes included here: an upper bound).
      const billed = /Transact/.test(call) ? 2 * units : units;
      if (/Get|Query|Scan/.test(call)) usage().readUnits += billed;
      else usage().writeUnits += billed;
    }
    const { 'transfer-encoding': _chunked, ...answerHeaders } = answer.headers;
    res.writeHead(answer.statusCode ?? 502, { ...answerHeaders, 'content-length': answerBody.length }).end(answerBody);
  });

// The stand-in upstream answers from the virtual clock: seconds since the job was created. It keeps the
// callback URL the job was made with, to call back as Ark does.
const VIDEO = randomBytes(Number(process.env['BENCH_COST_VIDEO_MIB'] ?? 5) * 1024 * 1024);
let [clock, jobSeconds, callbackUrl] = [0, 0, undefined as string | undefined];
const jobBody = (id: string | undefined) =>
  clock < jobSeconds
    ? { id, status: 'running' }
    : { id, status: 'succeeded', content: { video_url: `${upstream}/files/${id}.mp4` } };
const upstream: string = await listen(async (req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (path.startsWith('/files/')) return void res.writeHead(200, { 'content-type': 'video/mp4' }).end(VIDEO);
  usage().upstreamCalls += 1;
  const sent = await body(req);
  if (req.method !== 'POST') return json(res, jobBody(path.split('/').pop()), 200, 'application/json');
  clock = 0;
  callbackUrl = (JSON.parse(sent.toString()) as { callback_url?: string }).callback_url;
  json(res, { id: `cgt-${randomUUID()}` }, 200, 'application/json');
});

// Step Functions' API: StartExecution (the task starter's call: the input is kept, the probe runs the execution)
// and the task-token answers, kept by token for the wait that issued it (a token no longer waiting: refused).
let executionInput: string | undefined;
const openTokens = new Set<string>();
const answers = new Map<string, { output?: unknown; error?: string; cause?: string }>();
const sfn = await listen(async (req, res) => {
  const action = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
  const input = JSON.parse((await body(req)).toString()) as Record<string, string>;
  count(`SFN ${action}`);
  const token = input['taskToken'] ?? '';
  if (action === 'StartExecution') {
    executionInput = input['input'];
    const executionArn = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:execution:bench:${randomUUID()}`;
    return json(res, { executionArn, startDate: 0 });
  }
  if (action !== 'SendTaskSuccess' && action !== 'SendTaskFailure')
    return json(res, { __type: 'UnknownOperation', message: action }, 400);
  if (!openTokens.delete(token)) {
    const type = answers.has(token) ? 'TaskTimedOut' : 'InvalidToken';
    return json(res, { __type: type, message: 'the token does not wait (any more)' }, 400);
  }
  const { output, error, cause } = input;
  answers.set(token, action === 'SendTaskSuccess' ? { output: JSON.parse(output ?? 'null') } : { error, cause });
  json(res, {});
});

// The parent gone: the whole group goes, DynamoDB Local's JVM with it.
const killGroup = () => process.kill(-process.pid, 'SIGKILL');
childOfLocalStack('lifecycle-probe', () => false, killGroup);
const dynamoDbLocal = await startDynamoDbLocal(undefined);
const fauxqs = await startS3AndSqs(undefined);
const names = physicalNames('bench-cost');
const aws = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
const dynamoClient = new DynamoDBClient({ ...aws, endpoint: dynamoDbLocal.endpoint });
const s3 = new S3Client({ ...aws, endpoint: fauxqs.endpoint, forcePathStyle: true });
await createTables(dynamoClient, names.tables);
await createBucket(s3, names.videoBucket);
const admin = new AdminStore(DynamoDBDocumentClient.from(dynamoClient), names.tables);
await admin.seedModels(
  JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'lib/ship/seed/model-catalog.json'), 'utf8')) as never,
);
await admin.createAccount('cost', '100000');
await admin.setUpstreamAccount('ark', DEFAULT_ACCOUNT, { capacity: 120 });
const { key } = await admin.createKey({ accountId: 'cost', ratePerSecond: 1_000_000 });

const fauxqsProxy = await countingProxy(fauxqs.endpoint);
const functionArn = (id: string) => localFunctionArn(names, id);
const webhookQueueUrl = `${fauxqsProxy}/${LOCAL_ACCOUNT}/${names.webhookQueue}`;
// As deployed: INFO logs and metrics (EMF log lines) on, since log volume is part of the cost; the fallback
// looks at AWS's defaults. CALLBACK_BASE_URL is set per run (the API below, or empty: no callbacks).
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
  [ENV.completionCheckSeconds.name]: ENV.completionCheckSeconds.default,
  [ENV.completionPollSeconds.name]: ENV.completionPollSeconds.default,
});

type Handler = (event: unknown, context: Context) => Promise<unknown>;
const route = (id: string) => API_ROUTES.find((r) => r.id === id)!;
const apiRoute = async (id: string) => {
  const handler = await loadHandler<HttpHandler>(route(id).entry);
  return { ...route(id), handler: ((event, context) => invoke(id, () => handler(event, context))) as HttpHandler };
};
const api = await startApiGatewayServer({
  routes: [await apiRoute('SubmitTask'), await apiRoute('UpstreamCallback')],
  defaultRoute: { id: DEFAULT_ROUTE.id, handler: async () => ({ statusCode: 404 }) },
  contextFor: (id) => lambdaContext(id),
  port: 0,
});
const starter = await loadHandler<Handler>(functionById(TASK_STARTS.starter.id).entry);

type State = { Type: string; Resource?: string; Parameters?: { FunctionName?: string }; TimeoutSeconds?: number };
type Retrier = { ErrorEquals: string[]; IntervalSeconds: number };
const definition = loadDefinition(functionArn, webhookQueueUrl) as unknown as StateMachineDefinition & {
  States: Record<string, State & { TimeoutSecondsPath?: string; Retry?: Retrier[] }>;
};
const WAIT_FOR_TOKEN = 'arn:aws:states:::lambda:invoke.waitForTaskToken';
// The task-token waits are timed here, on the virtual clock: the library's own timer is set out of the way.
for (const state of Object.values(definition.States).filter((s) => s.Resource === WAIT_FOR_TOKEN)) {
  delete state.TimeoutSecondsPath;
  state.TimeoutSeconds = 86_400;
}
// AwaitCompletion's timeout retrier: its interval comes on top of each fallback look's wait.
const onTimeout = (retrier: Retrier) => retrier.ErrorEquals.includes('States.Timeout');
const timeoutRetryInterval = definition.States['AwaitCompletion']!.Retry!.find(onTimeout)!.IntervalSeconds;
const timeoutError = (await libraryTimeoutErrors()).timeout;

let [checks, checkSeconds, callbacksDelivered, callbacksOn] = [0, 0, 0, false];

const post = (url: string, value: object, headers = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(value),
  });
/** The upstream calls back (Ark POSTs the job as GET shows it): one API request, one UpstreamCallback invocation. */
async function deliverCallback(status: string): Promise<void> {
  if (!callbackUrl) throw new Error('the job was made without a callback URL');
  callbacksDelivered += 1;
  const answer = await post(callbackUrl, { ...jobBody('job'), status });
  if (!answer.ok) throw new Error(`the callback answered ${answer.status}: ${await answer.text()}`);
}

const toJson = (value: unknown) => JSON.parse(JSON.stringify(value ?? null)) as never;
const handlers = Object.fromEntries(WORKFLOW_FUNCTIONS.map((fn) => [fn.id, loadHandler<Handler>(fn.entry)]));
const call = async (id: string, event: unknown) =>
  toJson(await invoke(id, async () => (await handlers[id]!)(toJson(event), lambdaContext(id, 900_000))));

/** What a .waitForTaskToken state's wait ends with once its token is answered: the output, or the error thrown. */
function answered(token: string, why: string): never {
  const answer = answers.get(token);
  if (!answer) throw new Error(`probe: ${why}`);
  if (answer.error !== undefined) throw Object.assign(new Error(answer.cause), { name: answer.error });
  return (answer.output ?? null) as never;
}

type TaskHandlers = NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']>;
type Input = { Payload: { task_id: string; task_token: string } };
const stateHandlers: TaskHandlers = {};
for (const [name, state] of Object.entries(definition.States)) {
  if (state.Type !== 'Task' || state.Resource === 'arn:aws:states:::sqs:sendMessage') continue;
  const arn = state.Resource === WAIT_FOR_TOKEN ? state.Parameters?.FunctionName : state.Resource;
  const id = WORKFLOW_FUNCTIONS.find((fn) => functionArn(fn.id) === arn)!.id;
  stateHandlers[name] = async (input) => {
    const { Payload } = input as unknown as Input;
    if (name === 'WaitForUpstreamSlot') {
      openTokens.add(Payload.task_token);
      await call(id, Payload);
      // One task and free slots: the dispatch in this very call answers the token.
      return answered(Payload.task_token, 'the waiting room did not answer at once');
    }
    if (name === 'AwaitCompletion') {
      openTokens.add(Payload.task_token);
      if (checks > 0) clock += timeoutRetryInterval;
      checks += 1;
      await call(id, Payload);
      if (answers.has(Payload.task_token)) return answered(Payload.task_token, '');
      // The wait, on the virtual clock: the job's final callback if it comes before the timeout, else the timeout.
      if (callbacksOn && jobSeconds <= clock + checkSeconds) {
        clock = jobSeconds;
        await deliverCallback('succeeded');
        return answered(Payload.task_token, 'the callback did not wake the execution');
      }
      clock += checkSeconds;
      openTokens.delete(Payload.task_token);
      answers.set(Payload.task_token, {});
      throw timeoutError();
    }
    const output = (await call(id, input)) as { check_seconds?: number };
    if (name === 'StartUpstream') {
      checkSeconds = output.check_seconds ?? Number.NaN;
      // As the simulator does (Ark: "on status changes"): queued and running come right after the create.
      if (callbacksOn) for (let i = 0; i < ASSUMPTIONS.progressCallbacks; i += 1) await deliverCallback('running');
    }
    return output;
  };
}
const machine = new StateMachine(definition);
const retryIntervalOverrides = { AwaitCompletion: 0, WaitForUpstreamSlot: 0 };
const overrides = { taskResourceLocalHandlers: stateHandlers, retryIntervalOverrides };

async function runTask(minutes: number, callbacks: boolean) {
  [steps, checks, callbacksDelivered, callbacksOn, jobSeconds] = [{}, 0, 0, callbacks, minutes * 60];
  [callbackUrl, executionInput] = [undefined, undefined];
  process.env[ENV.callbackBaseUrl.name] = callbacks ? api.url : '';
  const task = { model: 'seedance-1.5-pro', prompt: `a fox in the snow, ${minutes} min`, duration: 5 };
  const answer = await post(`${api.url}${route('SubmitTask').path}`, task, { authorization: `Bearer ${key}` });
  const taskId = ((await answer.json()) as { data: { task_id: string } }).data.task_id;
  // The tasks stream's delivery of the new task, one record per invocation (Lambda batches up to 100: high).
  const NewImage = { task_id: { S: taskId }, status: { S: 'pending' } };
  const record = { eventID: randomUUID(), eventName: 'INSERT', dynamodb: { NewImage, SequenceNumber: '1' } };
  await invoke('StartExecutions', () => starter({ Records: [record] }, lambdaContext('StartExecutions')));
  if (!executionInput) throw new Error(`task ${taskId}: the starter started no execution`);
  // Each state's `$$.Task.Token` read (once per attempt of a .waitForTaskToken state) is a new token.
  const Task = Object.defineProperty({}, 'Token', { get: () => randomBytes(32).toString('base64url') });
  const execution = machine.run(JSON.parse(executionInput) as never, { overrides, context: { Task } as never });
  let transitions = 0;
  const transitionsByState: Record<string, number> = {};
  const { eventsPerTaskState, eventsPerOtherState, historyEventBytes } = ASSUMPTIONS;
  let executionLogBytes = 2 * historyEventBytes;
  for await (const event of execution.eventLogs) {
    // Each state entered and each retry is a billed transition; the log holds every event with the state's data.
    if (event.type === 'StateEntered' || event.type === 'StateRetried') {
      transitions += 1;
      const label = `${event.state.name}${event.type === 'StateRetried' ? ' (retry)' : ''}`;
      transitionsByState[label] = (transitionsByState[label] ?? 0) + 1;
      executionLogBytes += JSON.stringify(event.state.input ?? null).length;
      executionLogBytes += (event.state.type === 'Task' ? eventsPerTaskState : eventsPerOtherState) * historyEventBytes;
    } else if (event.type === 'StateExited') executionLogBytes += JSON.stringify(event.state.output ?? null).length;
  }
  const output = (await execution.result) as { upstream?: { state?: string } };
  if (output.upstream?.state !== 'succeeded')
    throw new Error(`task ${taskId} did not succeed: ${JSON.stringify(output)}`);
  const run = { minutes, callbacks, checkSeconds, checks, callbacksDelivered, apiRequests: 1 + callbacksDelivered };
  return { ...run, transitions, transitionsByState, executionLogBytes, videoBytes: VIDEO.length, steps };
}

const minutes = (process.env['BENCH_COST_MINUTES'] ?? '1,5,30,60').split(',').map(Number);
// Warms every handler (cold starts are not per task), the callback's too.
await runTask(1, true);
await runTask(1, false);
const runs: ProbeRun[] = [];
for (const callbacks of [true, false]) for (const length of minutes) runs.push(await runTask(length, callbacks));
await sendToParent({ type: 'ready', runs });
await Promise.all([api.close(), fauxqs.stop(), dynamoDbLocal.stop()]);
process.exit(0);
