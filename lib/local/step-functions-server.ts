/**
 * A local stand-in for AWS Step Functions, so the local stack runs statemachine/task-lifecycle.asl.json as is:
 * an HTTP server speaking the AWS JSON 1.0 protocol `@aws-sdk/client-sfn` sends, executions run in-process by
 * `aws-local-stepfunctions` (which gives Retry/Catch/Wait/Choice). It serves only what our ASL and code use:
 * Lambda task states (in-process handlers), sqs:sendMessage, and Start/Describe/StopExecution.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageCommand, type SendMessageCommandInput, type SQSClient } from '@aws-sdk/client-sqs';
import { ExecutionError, StateMachine, type RunOptions, type StateMachineDefinition } from 'aws-local-stepfunctions';

export type LocalLambdaHandler = (event: unknown) => Promise<unknown>;

type Overrides = NonNullable<RunOptions['overrides']>;
type TaskHandlers = NonNullable<Overrides['taskResourceLocalHandlers']>;
type JsonValue = Parameters<TaskHandlers[string]>[0];

export interface LocalStepFunctionsOptions {
  /** ASL definition, `${Token}`s filled in. JSONPath only; taskInvokers says what else is refused. */
  definition: Record<string, unknown>;
  /** e.g. arn:aws:states:us-east-1:000000000000:stateMachine:task-lifecycle */
  stateMachineArn: string;
  /** Lambda function ARN, exactly as it appears in the ASL → in-process handler. */
  lambdaHandlers: Record<string, LocalLambdaHandler>;
  /** Pointed at the local SQS, for sqs:sendMessage states. */
  sqs: SQSClient;
  /**
   * Milliseconds a state's retriers wait instead of their backoff, by state name (one value for all, or one per
   * retrier index): lets the local stack poll in seconds.
   */
  retryIntervalOverrides?: Overrides['retryIntervalOverrides'];
  /** Milliseconds a Wait state pauses instead of its Seconds, by state name. */
  waitTimeOverrides?: Overrides['waitTimeOverrides'];
}

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'TIMED_OUT';

export interface ExecutionRecord {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: ExecutionStatus;
  startDate: Date;
  stopDate?: Date;
  /** The execution input exactly as given to StartExecution (a JSON string). */
  input: string;
  /** JSON string, when SUCCEEDED. */
  output?: string;
  error?: string;
  cause?: string;
}

export interface LocalStepFunctions {
  /** Base URL to give SFNClient as `endpoint`. */
  endpoint: string;
  /** Aborts running executions and stops the server. Does not wait for handlers still in flight: idle() does. */
  close(): Promise<void>;
  /** Snapshot of every execution, oldest first. */
  executions(): ExecutionRecord[];
  /** Resolves when no execution is running and no task handler is still in flight. */
  idle(): Promise<void>;
}

export async function startLocalStepFunctions(o: LocalStepFunctionsOptions): Promise<LocalStepFunctions> {
  const tasks = taskInvokers(o);
  // The library validates the rest (schema, JSONPaths, Resource ARNs, reachability). The machine's own
  // TimeoutSeconds is kept from it: Executions times out an execution itself, as StopExecution ends one.
  const { TimeoutSeconds: timeoutSeconds, ...definition } = o.definition as AslDefinition;
  const machine = new StateMachine(definition as unknown as StateMachineDefinition);
  const executions = new Executions(machine, tasks, o, timeoutSeconds as number | undefined);
  const server = createServer((req, res) => void handleHttp(req, res, executions));
  const endpoint = await listen(server);
  return {
    endpoint,
    close: async () => {
      executions.abortAll('Local Step Functions server closed');
      await closeServer(server);
    },
    executions: () => executions.snapshot(),
    idle: () => executions.idle(),
  };
}

// ----- Task states

/** Runs one Task state's resource with the state's effective input (after InputPath/Parameters). */
type TaskInvoker = (input: unknown) => Promise<unknown>;

type AslDefinition = {
  TimeoutSeconds?: unknown;
  States?: Record<string, { Type?: unknown; Resource?: unknown; TimeoutSeconds?: unknown }>;
};

const SQS_SEND_MESSAGE = 'arn:aws:states:::sqs:sendMessage';

/**
 * One invoker per Task state, keyed by state name as the library keys its handlers. Refuses at start what is
 * not served, rather than letting the library call real AWS or diverge from it at run time.
 */
function taskInvokers(o: LocalStepFunctionsOptions): Map<string, TaskInvoker> {
  const { States = {}, TimeoutSeconds } = o.definition as AslDefinition;
  if (TimeoutSeconds !== undefined && !(Number.isInteger(TimeoutSeconds) && (TimeoutSeconds as number) > 0)) {
    throw new Error('The machine-level TimeoutSeconds must be a positive integer');
  }
  const invokers = new Map<string, TaskInvoker>();
  for (const [name, state] of Object.entries(States)) {
    if (state.Type === 'Parallel' || state.Type === 'Map') {
      throw new Error(`State "${name}": ${state.Type} states are not served locally (their tasks would call AWS)`);
    }
    if (state.Type !== 'Task') continue;
    invokers.set(name, taskInvoker(name, String(state.Resource), o));
    // AWS sets no default Task timeout, the library 60 s; AWS advises always setting one (docs: "Using timeouts
    // to avoid stuck Step Functions workflow executions"), so that is required here.
    if (typeof state.TimeoutSeconds !== 'number') throw new Error(`Task state "${name}" has no TimeoutSeconds`);
  }
  return invokers;
}

function taskInvoker(stateName: string, resource: string, o: LocalStepFunctionsOptions): TaskInvoker {
  const handler = o.lambdaHandlers[resource];
  if (handler) return (input) => invokeLambda(handler, input);
  if (resource === SQS_SEND_MESSAGE) return (input) => sendMessage(o.sqs, input);
  // Task tokens (a later issue) start here: a `<resource>.waitForTaskToken` invoker runs its integration, then
  // parks a WaitingTask on its execution until SendTaskSuccess/SendTaskFailure settles it.
  throw new Error(
    `Task state "${stateName}": Resource "${resource}" is not served locally ` +
      `(served: Lambda function ARNs that have a handler, ${SQS_SEND_MESSAGE})`,
  );
}

/**
 * The event and the result cross a JSON boundary, as on Lambda. A thrown error's `name` becomes the Step
 * Functions error name (what Retry/Catch match, States.TaskFailed included) and Lambda's error payload the
 * Cause (docs: "Handling errors in Step Functions workflows"; Lambda's Node.js errors: errorType/errorMessage/trace).
 */
async function invokeLambda(handler: LocalLambdaHandler, event: unknown): Promise<unknown> {
  let result: unknown;
  try {
    result = await handler(toJson(event));
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    const trace = error.stack?.split('\n') ?? [];
    throw namedError(error.name, JSON.stringify({ errorType: error.name, errorMessage: error.message, trace }));
  }
  return toJson(result);
}

/**
 * Step Functions sends a MessageBody that is not a string as JSON (docs: "Send messages to an Amazon SQS queue
 * with Step Functions"). Errors take the names AWS reports for this integration (Java SDK class names):
 * `SQS.AmazonSQSException` when SQS answered, `SQS.SdkClientException` when it never did.
 */
async function sendMessage(sqs: SQSClient, input: unknown): Promise<unknown> {
  const params = { ...(input as Record<string, unknown>) };
  if (typeof params.MessageBody !== 'string') params.MessageBody = JSON.stringify(params.MessageBody);
  try {
    const response = await sqs.send(new SendMessageCommand(params as unknown as SendMessageCommandInput));
    const { $metadata: _metadata, ...output } = response;
    return toJson(output);
  } catch (err) {
    const answered = err instanceof Error && '$metadata' in err;
    const message = err instanceof Error ? err.message : String(err);
    throw namedError(answered ? 'SQS.AmazonSQSException' : 'SQS.SdkClientException', message);
  }
}

// ----- Executions

class ApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Task tokens (a later issue): a Task waiting on its token, settled by SendTaskSuccess / SendTaskFailure, its
 * HeartbeatSeconds restarted by SendTaskHeartbeat, rejected by StopExecution.
 */
interface WaitingTask {
  resolve(output: unknown): void;
  reject(error: Error): void;
}

interface Execution {
  record: ExecutionRecord;
  abort: () => void;
  /** Task handler calls not yet settled; a late one can outlive an abort or a States.Timeout. */
  inflight: Set<Promise<unknown>>;
  /** Settles once the library has ended the run (handlers may still be in flight). */
  ended: Promise<void>;
  /** By task token; stays empty until task tokens are served. */
  waiting: Map<string, WaitingTask>;
}

type ApiInput = Record<string, unknown>;

class Executions {
  private readonly byArn = new Map<string, Execution>();

  constructor(
    private readonly machine: StateMachine,
    private readonly tasks: Map<string, TaskInvoker>,
    private readonly options: LocalStepFunctionsOptions,
    /** The machine's TimeoutSeconds, if any. */
    private readonly timeoutSeconds: number | undefined,
  ) {}

  /** The API actions our code sends (functions/adapters/sfn-task-workflow.ts). Task tokens add theirs here. */
  readonly operations: Record<string, (input: ApiInput) => unknown> = {
    StartExecution: (input) => this.start(input),
    DescribeExecution: (input) => {
      const { record } = this.find(input.executionArn);
      return {
        ...record,
        startDate: epochSeconds(record.startDate),
        stopDate: record.stopDate && epochSeconds(record.stopDate),
      };
    },
    StopExecution: (input) => this.stop(input),
  };

  snapshot(): ExecutionRecord[] {
    return [...this.byArn.values()].map((e) => ({ ...e.record }));
  }

  async idle(): Promise<void> {
    for (;;) {
      const pending = [...this.byArn.values()].filter((e) => e.record.status === 'RUNNING' || e.inflight.size > 0);
      if (pending.length === 0) return;
      await Promise.all(pending.map((e) => e.ended.then(() => drain(e.inflight))));
    }
  }

  abortAll(cause: string): void {
    for (const execution of this.byArn.values()) {
      if (execution.record.status === 'RUNNING') this.abort(execution, { cause });
    }
  }

  private start(input: ApiInput) {
    const machineArn = this.options.stateMachineArn;
    if (input.stateMachineArn !== machineArn) {
      throw new ApiError(
        'StateMachineDoesNotExist',
        `State Machine Does Not Exist: '${String(input.stateMachineArn)}'`,
      );
    }
    const name = input.name === undefined ? randomUUID() : validName(input.name);
    const rawInput = input.input === undefined ? '{}' : String(input.input);
    const arn = `${machineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const existing = this.byArn.get(arn);
    // AWS: the same name and input while the first runs answers with that one; any other reuse of a name is
    // refused (StartExecution API reference, `name`).
    if (existing && (existing.record.status !== 'RUNNING' || existing.record.input !== rawInput)) {
      throw new ApiError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
    }
    const { record } = existing ?? this.launch(arn, name, rawInput, parseExecutionInput(rawInput));
    return { executionArn: record.executionArn, startDate: epochSeconds(record.startDate) };
  }

  private launch(arn: string, name: string, rawInput: string, input: JsonValue): Execution {
    const record: ExecutionRecord = {
      executionArn: arn,
      stateMachineArn: this.options.stateMachineArn,
      name,
      status: 'RUNNING',
      startDate: new Date(),
      input: rawInput,
    };
    const inflight = new Set<Promise<unknown>>();
    const run = this.machine.run(input, {
      overrides: {
        taskResourceLocalHandlers: this.handlersFor(record, inflight),
        retryIntervalOverrides: this.options.retryIntervalOverrides,
        waitTimeOverrides: this.options.waitTimeOverrides,
      },
    });
    const ended = run.result.then(
      (output) => this.finish(record, { status: 'SUCCEEDED', output: JSON.stringify(output) }),
      (err: unknown) => this.finish(record, failureOutcome(err)),
    );
    const execution: Execution = { record, abort: run.abort, inflight, ended, waiting: new Map() };
    this.byArn.set(arn, execution);
    if (this.timeoutSeconds !== undefined) {
      // AWS: an execution that runs longer than the machine's TimeoutSeconds fails with States.Timeout, status
      // TIMED_OUT (Amazon States Language, "State machine structure"; DescribeExecution `status`). Handlers in
      // flight run on, as a Lambda does.
      const timer = setTimeout(
        () =>
          this.abort(execution, {
            status: 'TIMED_OUT',
            error: 'States.Timeout',
            cause: `The execution ran longer than the state machine's TimeoutSeconds (${this.timeoutSeconds} s)`,
          }),
        this.timeoutSeconds * 1000,
      );
      timer.unref();
      void ended.finally(() => clearTimeout(timer));
    }
    return execution;
  }

  /** Per-execution wrappers: track in-flight calls and refuse new ones once the execution has ended. */
  private handlersFor(record: ExecutionRecord, inflight: Set<Promise<unknown>>): TaskHandlers {
    const handlers: TaskHandlers = {};
    for (const [stateName, invoke] of this.tasks) {
      handlers[stateName] = (taskInput) => {
        // The library still retries after an abort (its retry sleep just returns early): this ends that, with an
        // error no Retry or Catch matches (in the library's terms).
        if (record.status !== 'RUNNING') {
          const ended = namedError('States.Runtime', `Execution ${record.executionArn} is ${record.status}`);
          throw Object.assign(ended, { isRetryable: false, isCatchable: false });
        }
        const call = invoke(taskInput);
        inflight.add(call);
        const forget = () => inflight.delete(call);
        void call.then(forget, forget);
        return call as Promise<JsonValue>;
      };
    }
    return handlers;
  }

  /** First outcome wins: a stopped execution ignores the result that arrives after StopExecution. */
  private finish(record: ExecutionRecord, outcome: Partial<ExecutionRecord>): void {
    if (record.status === 'RUNNING') Object.assign(record, outcome, { stopDate: new Date() });
  }

  private stop(input: ApiInput) {
    const execution = this.find(input.executionArn);
    // A closed execution keeps its outcome: a cancel can race the execution's own end.
    if (execution.record.status === 'RUNNING') {
      this.abort(execution, { error: input.error as string | undefined, cause: input.cause as string | undefined });
    }
    return { stopDate: epochSeconds(execution.record.stopDate!) };
  }

  private abort(execution: Execution, details: Partial<ExecutionRecord>): void {
    this.finish(execution.record, { status: 'ABORTED', ...details });
    execution.abort();
  }

  private find(executionArn: unknown): Execution {
    const execution = typeof executionArn === 'string' ? this.byArn.get(executionArn) : undefined;
    if (!execution) throw new ApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${String(executionArn)}'`);
    return execution;
  }
}

/** The failing state's error and cause (a Fail state's Error/Cause, or a task's), as DescribeExecution gives them. */
function failureOutcome(err: unknown): Partial<ExecutionRecord> {
  const failure = err instanceof ExecutionError && err.cause instanceof Error ? err.cause : err;
  if (failure instanceof Error) return { status: 'FAILED', error: failure.name, cause: failure.message };
  return { status: 'FAILED', error: 'States.Runtime', cause: String(failure) };
}

async function drain(inflight: Set<Promise<unknown>>): Promise<void> {
  while (inflight.size > 0) await Promise.allSettled([...inflight]);
}

/** awsJson1_0 timestamps are epoch seconds (fractions allowed). */
function epochSeconds(date: Date): number {
  return date.getTime() / 1000;
}

// AWS: 1-80 characters, none of whitespace, brackets, wildcards, these specials or control characters
// (StartExecution API reference, `name`). Our names are task ids and `<task id>-r<n>` restarts.
const VALID_NAME = /^[^\s\p{Cc}<>{}[\]?*"#%\\^|~`$&,;:/]{1,80}$/u;

function validName(name: unknown): string {
  if (typeof name !== 'string' || !VALID_NAME.test(name)) {
    throw new ApiError('InvalidName', `Invalid Name: '${String(name)}'`);
  }
  return name;
}

function parseExecutionInput(raw: string): JsonValue {
  try {
    return JSON.parse(raw) as JsonValue;
  } catch (err) {
    throw new ApiError('InvalidExecutionInput', `Invalid State Machine Execution Input: '${(err as Error).message}'`);
  }
}

// ----- HTTP: AWS JSON 1.0, a POST naming its action in X-Amz-Target; errors as `{ __type, message }`, which the
// SDK turns into its named exception classes (ExecutionAlreadyExists, ExecutionDoesNotExist, ...).

const TARGET_PREFIX = 'AWSStepFunctions.';

async function handleHttp(req: IncomingMessage, res: ServerResponse, executions: Executions): Promise<void> {
  try {
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.startsWith(TARGET_PREFIX)
      ? executions.operations[target.slice(TARGET_PREFIX.length)]
      : undefined;
    if (req.method !== 'POST' || !operation) {
      throw new ApiError('UnknownOperationException', `Operation not served locally: '${target}'`);
    }
    sendJson(res, 200, operation(await readRequest(req)));
  } catch (err) {
    if (err instanceof ApiError) sendJson(res, 400, { __type: err.type, message: err.message });
    else sendJson(res, 500, { __type: 'InternalFailure', message: err instanceof Error ? err.message : String(err) });
  }
}

async function readRequest(req: IncomingMessage): Promise<ApiInput> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as ApiInput;
  } catch {
    // falls through to SerializationException
  }
  throw new ApiError('SerializationException', 'Request body is not a JSON object');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/x-amz-json-1.0',
    'Content-Length': Buffer.byteLength(payload),
    'x-amzn-RequestId': randomUUID(),
  });
  res.end(payload);
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

/** SDK clients keep connections alive, so idle sockets are closed explicitly or close() would hang. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
}

function namedError(name: string, message: string): Error {
  const err = new Error(message);
  err.name = name;
  return err;
}

function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}
