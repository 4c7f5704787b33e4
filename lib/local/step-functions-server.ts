/**
 * A local stand-in for AWS Step Functions: an HTTP server that speaks the AWS JSON 1.0 protocol the
 * real `@aws-sdk/client-sfn` sends, while executions run in-process with `aws-local-stepfunctions`.
 *
 * Only one state machine is served (the one passed in), JSONPath definitions only. Task states are
 * dispatched to in-process Lambda handlers and to the DynamoDB / SQS clients given, and their errors
 * carry the names Step Functions gives them, so Retry/Catch blocks behave as they do on AWS.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as dynamodb from '@aws-sdk/client-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, type SendMessageCommandInput, type SQSClient } from '@aws-sdk/client-sqs';
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  StateMachine,
  type RunOptions,
  type StateMachineDefinition,
} from 'aws-local-stepfunctions';

export type LocalLambdaHandler = (event: unknown) => Promise<unknown>;

export interface LocalStepFunctionsOptions {
  /** ASL definition object, already with ${Token} substitutions applied. JSONPath only. */
  definition: Record<string, unknown>;
  /** e.g. arn:aws:states:us-east-1:000000000000:stateMachine:task-lifecycle */
  stateMachineArn: string;
  /** Lambda function ARN (as it appears in the ASL after substitution) → in-process handler. */
  lambdaHandlers: Record<string, LocalLambdaHandler>;
  /** Already pointed at DynamoDB Local. */
  dynamoDb: DynamoDBClient;
  /** Already pointed at the local SQS. */
  sqs: SQSClient;
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Called with every execution's final outcome (for logs). */
  onExecutionEnd?: (e: ExecutionRecord) => void;
  /**
   * Milliseconds a state's retriers wait instead of their IntervalSeconds/BackoffRate, keyed by state name
   * (one value for all its retriers, or one per retrier index): lets the local stack poll in seconds.
   */
  retryIntervalOverrides?: RetryIntervalOverrides;
  /** Milliseconds a Wait state pauses instead of its Seconds, keyed by state name. */
  waitTimeOverrides?: Record<string, number>;
}

type RetryIntervalOverrides = NonNullable<NonNullable<RunOptions['overrides']>['retryIntervalOverrides']>;

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

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
  /** Aborts running executions and stops the server. Does not wait for handlers still in flight: use idle() for that. */
  close(): Promise<void>;
  /** Snapshot of every execution, oldest first. */
  executions(): ExecutionRecord[];
  /** Resolves when no execution is running and no task handler is still in flight. */
  idle(): Promise<void>;
}

export async function startLocalStepFunctions(o: LocalStepFunctionsOptions): Promise<LocalStepFunctions> {
  const machineArn = parseStateMachineArn(o.stateMachineArn);
  const definition = withAwsTaskTimeouts(o.definition);
  // Full validation (schema, JSONPaths, Resource ARNs, reachability): the library's defaults.
  const machine = new StateMachine(definition);
  const tasks = buildTaskInvokers(definition, o);
  const service = new ExecutionService(machine, machineArn, tasks, o.onExecutionEnd, {
    ...(o.retryIntervalOverrides && { retryIntervalOverrides: o.retryIntervalOverrides }),
    ...(o.waitTimeOverrides && { waitTimeOverrides: o.waitTimeOverrides }),
  });
  const server = createServer((req, res) => void handleHttp(req, res, service));
  const endpoint = await listen(server, o.port ?? 0, o.host ?? '127.0.0.1');
  return {
    endpoint,
    close: async () => {
      service.abortAll('Local Step Functions server closed');
      await closeServer(server);
    },
    executions: () => service.snapshot(),
    idle: () => service.idle(),
  };
}

// ---------------------------------------------------------------------------------------------
// Types borrowed from the library (it does not export its JSON types by name).

type TaskHandlers = NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']>;
type JsonValue = Parameters<TaskHandlers[string]>[0];
type JsonObject = Record<string, unknown>;
type AslState = JsonObject & { Type?: unknown; Resource?: unknown; Parameters?: unknown };
type AslMachine = JsonObject & { States?: Record<string, AslState> };

// ---------------------------------------------------------------------------------------------
// ARNs

interface StateMachineArn {
  arn: string;
  region: string;
  account: string;
  name: string;
}

const STATE_MACHINE_ARN = /^arn:(aws[\w-]*):states:([\w-]+):(\d{12}):stateMachine:([\w-]{1,80})$/;
const EXECUTION_ARN = /^arn:aws[\w-]*:states:[\w-]+:\d{12}:execution:[^:]+:[^:]+$/;
const LAMBDA_ARN = /^arn:aws[\w-]*:lambda:[\w-]+:\d{12}:function:([\w-]+)(?::[\w$-]+)?$/;
const LAMBDA_PARTIAL_NAME = /^(?:\d{12}:function:)?([\w-]+)(?::[\w$-]+)?$/;

function parseStateMachineArn(arn: string): StateMachineArn {
  const m = STATE_MACHINE_ARN.exec(arn);
  if (!m) throw new Error(`Not a state machine ARN: ${arn}`);
  return { arn, region: m[2]!, account: m[3]!, name: m[4]! };
}

function executionArnFor(machine: StateMachineArn, name: string): string {
  const partition = machine.arn.split(':')[1]!;
  return `arn:${partition}:states:${machine.region}:${machine.account}:execution:${machine.name}:${name}`;
}

/** Function name from a full ARN, a partial ARN or a bare name (qualifier dropped), as Lambda accepts. */
function lambdaFunctionName(ref: string): string | undefined {
  return (LAMBDA_ARN.exec(ref) ?? LAMBDA_PARTIAL_NAME.exec(ref))?.[1];
}

// ---------------------------------------------------------------------------------------------
// Definition walking

/** Calls `visit` for every state, descending into Parallel branches and Map processors. */
function forEachState(machine: AslMachine, visit: (name: string, state: AslState) => void): void {
  for (const [name, state] of Object.entries(machine.States ?? {})) {
    visit(name, state);
    for (const child of childMachines(state)) forEachState(child, visit);
  }
}

function childMachines(state: AslState): AslMachine[] {
  if (state.Type === 'Parallel') return (state.Branches as AslMachine[] | undefined) ?? [];
  if (state.Type === 'Map') {
    const processor = (state.ItemProcessor ?? state.Iterator) as AslMachine | undefined;
    return processor ? [processor] : [];
  }
  return [];
}

/**
 * AWS sets no timeout on a Task that declares none, but the library defaults it to 60 s. A copy of
 * the definition gets the largest timeout a Node timer can hold (~24.8 days) instead.
 */
const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

function withAwsTaskTimeouts(definition: Record<string, unknown>): StateMachineDefinition {
  const copy = structuredClone(definition) as AslMachine;
  forEachState(copy, (_name, state) => {
    if (state.Type === 'Task' && state.TimeoutSeconds === undefined && state.TimeoutSecondsPath === undefined) {
      state.TimeoutSeconds = MAX_TIMER_SECONDS;
    }
  });
  return copy as unknown as StateMachineDefinition;
}

// ---------------------------------------------------------------------------------------------
// Task dispatch

/** Runs one Task state's resource with the state's effective input (after InputPath/Parameters). */
type TaskInvoker = (input: unknown) => Promise<unknown>;

interface TaskDeps {
  lambdaHandlers: Record<string, LocalLambdaHandler>;
  dynamoDb: DynamoDBClient;
  sqs: SQSClient;
}

/** Keyed by state name, as the library keys its overrides (ASL state names are unique machine-wide). */
function buildTaskInvokers(definition: StateMachineDefinition, deps: TaskDeps): Map<string, TaskInvoker> {
  const invokers = new Map<string, TaskInvoker>();
  forEachState(definition as unknown as AslMachine, (name, state) => {
    if (state.Type !== 'Task') return;
    if (invokers.has(name)) throw new Error(`Task state name "${name}" is used twice; state names must be unique`);
    invokers.set(name, createTaskInvoker(name, state, deps));
  });
  return invokers;
}

const OPTIMIZED_PREFIX = /^arn:aws[\w-]*:states:::/;

function createTaskInvoker(stateName: string, state: AslState, deps: TaskDeps): TaskInvoker {
  const resource = String(state.Resource);
  if (LAMBDA_ARN.test(resource)) return lambdaArnTask(stateName, resource, deps.lambdaHandlers);
  const integration = resource.replace(OPTIMIZED_PREFIX, '');
  if (integration === 'lambda:invoke') return lambdaInvokeTask(stateName, state, deps.lambdaHandlers);
  if (integration === 'sqs:sendMessage') return (input) => sqsSendMessage(deps.sqs, input);
  const optimizedDynamo = /^dynamodb:(getItem|putItem|updateItem|deleteItem)$/.exec(integration);
  if (optimizedDynamo) return dynamoOptimizedTask(deps.dynamoDb, optimizedDynamo[1]!);
  const sdkDynamo = /^aws-sdk:dynamodb:(\w+)$/.exec(integration);
  if (sdkDynamo) return dynamoSdkTask(stateName, deps.dynamoDb, sdkDynamo[1]!);
  throw new Error(
    `Task state "${stateName}" uses Resource "${resource}", which the local Step Functions server does not ` +
      'support (supported: Lambda function ARNs, lambda:invoke, dynamodb:getItem|putItem|updateItem|deleteItem, ' +
      'aws-sdk:dynamodb:<action>, sqs:sendMessage)',
  );
}

// ----- Lambda

function lambdaArnTask(stateName: string, arn: string, handlers: Record<string, LocalLambdaHandler>): TaskInvoker {
  const handler = findLambdaHandler(arn, handlers);
  if (!handler) throw new Error(`Task state "${stateName}": no local Lambda handler for ${arn}`);
  return (input) => invokeLambda(handler, input);
}

function lambdaInvokeTask(stateName: string, state: AslState, handlers: Record<string, LocalLambdaHandler>) {
  const params = (state.Parameters ?? {}) as JsonObject;
  const staticName = params.FunctionName;
  if (typeof staticName === 'string' && !findLambdaHandler(staticName, handlers)) {
    throw new Error(`Task state "${stateName}": no local Lambda handler for FunctionName ${staticName}`);
  }
  if (staticName === undefined && params['FunctionName.$'] === undefined) {
    throw new Error(`Task state "${stateName}": lambda:invoke needs Parameters.FunctionName`);
  }
  return async (input: unknown): Promise<unknown> => {
    const { FunctionName, Payload } = (input ?? {}) as JsonObject;
    const handler = findLambdaHandler(String(FunctionName), handlers);
    if (!handler) throw namedError('Lambda.ResourceNotFoundException', `Function not found: ${String(FunctionName)}`);
    // No Payload: the function still runs, and gets an empty object here.
    const result = await invokeLambda(handler, Payload ?? {});
    return { ExecutedVersion: '$LATEST', Payload: result, StatusCode: 200 };
  };
}

/** Exact ARN first, then by function name, so a qualified, partial or bare reference still resolves. */
function findLambdaHandler(ref: string, handlers: Record<string, LocalLambdaHandler>) {
  if (handlers[ref]) return handlers[ref];
  const name = lambdaFunctionName(ref);
  const matches = Object.keys(handlers).filter((arn) => name !== undefined && lambdaFunctionName(arn) === name);
  return matches.length === 1 ? handlers[matches[0]!] : undefined;
}

/** The event and the result cross a JSON boundary, as they do on Lambda (Dates become strings, undefined null). */
async function invokeLambda(handler: LocalLambdaHandler, event: unknown): Promise<unknown> {
  let result: unknown;
  try {
    result = await handler(toJson(event));
  } catch (err) {
    throw lambdaFunctionError(err);
  }
  return toJson(result);
}

/** Step Functions names a function error by its errorType and puts Lambda's error payload in Cause. */
function lambdaFunctionError(err: unknown): Error {
  const errorType = err instanceof Error ? err.name : 'Error';
  const errorMessage = err instanceof Error ? err.message : String(err);
  const trace = err instanceof Error && err.stack ? err.stack.split('\n') : [];
  return namedError(errorType, JSON.stringify({ errorType, errorMessage, trace }));
}

// ----- DynamoDB

type DynamoCommand = Parameters<DynamoDBClient['send']>[0];
type DynamoCommandCtor = new (input: unknown) => DynamoCommand;

const OPTIMIZED_DYNAMO_COMMANDS: Record<string, DynamoCommandCtor> = {
  getItem: dynamodb.GetItemCommand as unknown as DynamoCommandCtor,
  putItem: dynamodb.PutItemCommand as unknown as DynamoCommandCtor,
  updateItem: dynamodb.UpdateItemCommand as unknown as DynamoCommandCtor,
  deleteItem: dynamodb.DeleteItemCommand as unknown as DynamoCommandCtor,
};

/**
 * Error prefix per the Step Functions DynamoDB integration docs ("Exception prefix differences"):
 * `DynamoDB.` for the optimized integration, `DynamoDb.` for the AWS SDK integration.
 */
function dynamoOptimizedTask(client: DynamoDBClient, action: string): TaskInvoker {
  const Command = OPTIMIZED_DYNAMO_COMMANDS[action]!;
  return (input) =>
    sendCommand(
      () => client.send(new Command(input)),
      (err) => optimizedServiceError('DynamoDB', 'AmazonDynamoDBv2', err),
    );
}

function dynamoSdkTask(stateName: string, client: DynamoDBClient, action: string): TaskInvoker {
  const commandName = `${action.charAt(0).toUpperCase()}${action.slice(1)}Command`;
  const Command = (dynamodb as unknown as Record<string, unknown>)[commandName];
  if (typeof Command !== 'function' || !/^[a-z]/.test(action)) {
    throw new Error(`Task state "${stateName}": aws-sdk:dynamodb:${action} is not a DynamoDB API action`);
  }
  const Ctor = Command as DynamoCommandCtor;
  return (input) =>
    sendCommand(
      () => client.send(new Ctor(input)),
      (err) => sdkIntegrationError('DynamoDb', err),
    );
}

// ----- SQS

/**
 * Step Functions serialises a non-string MessageBody to JSON. Error names follow what AWS reports for
 * this integration (Java SDK v1 class names), not SQS's own codes: `SQS.AmazonSQSException` for a
 * service error, `SQS.SdkClientException` when the call never got an answer.
 */
function sqsSendMessage(client: SQSClient, input: unknown): Promise<unknown> {
  const params = { ...(input as JsonObject) };
  if (typeof params.MessageBody !== 'string') params.MessageBody = JSON.stringify(params.MessageBody);
  const command = new SendMessageCommand(params as unknown as SendMessageCommandInput);
  return sendCommand(
    () => client.send(command),
    (err) => optimizedServiceError('SQS', 'AmazonSQS', err, 'SQS.AmazonSQSException'),
  );
}

// ----- AWS SDK calls shared by the integrations

interface SdkServiceError {
  name: string;
  message: string;
  $metadata: { httpStatusCode?: number; requestId?: string };
}

/** Output is the API response minus the SDK's `$metadata`, as plain JSON. */
async function sendCommand(send: () => Promise<object>, renameError: (err: unknown) => Error): Promise<unknown> {
  let response: object;
  try {
    response = await send();
  } catch (err) {
    throw renameError(err);
  }
  const { $metadata: _metadata, ...output } = response as JsonObject;
  return toJson(output);
}

function isServiceError(err: unknown): err is SdkServiceError {
  return err instanceof Error && typeof (err as Partial<SdkServiceError>).$metadata === 'object';
}

/** Optimized integrations: `<Prefix>.<ErrorCode>` (or a fixed name), Cause in the Java SDK's format. */
function optimizedServiceError(prefix: string, service: string, err: unknown, fixedName?: string): Error {
  if (!isServiceError(err)) return clientError(prefix, err);
  const { httpStatusCode, requestId } = err.$metadata;
  const details = `Service: ${service}; Status Code: ${httpStatusCode}; Error Code: ${err.name}; Request ID: ${requestId}; Proxy: null`;
  return namedError(fixedName ?? `${prefix}.${err.name}`, `${err.message} (${details})`);
}

/** AWS SDK integrations: `<Service>.<ErrorName>`, with "Exception" appended when the name lacks it (per the docs). */
function sdkIntegrationError(service: string, err: unknown): Error {
  if (!isServiceError(err)) return clientError(service, err);
  const suffix = err.name.endsWith('Exception') ? '' : 'Exception';
  const { httpStatusCode, requestId } = err.$metadata;
  const details = `Service: ${service}, Status Code: ${httpStatusCode}, Request ID: ${requestId}`;
  return namedError(`${service}.${err.name}${suffix}`, `${err.message} (${details})`);
}

/** No HTTP answer (connection refused, bad config): the Java SDK's SdkClientException. */
function clientError(prefix: string, err: unknown): Error {
  return namedError(`${prefix}.SdkClientException`, err instanceof Error ? err.message : String(err));
}

// ---------------------------------------------------------------------------------------------
// Executions

class ApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

interface Execution {
  record: ExecutionRecord;
  abort: () => void;
  /** Task handler calls not yet settled; a late one can outlive an abort or a States.Timeout. */
  inflight: Set<Promise<unknown>>;
  /** Settles once the library has ended the run (handlers may still be in flight). */
  ended: Promise<void>;
}

type ApiInput = Record<string, unknown>;

class ExecutionService {
  private readonly byArn = new Map<string, Execution>();

  constructor(
    private readonly machine: StateMachine,
    private readonly machineArn: StateMachineArn,
    private readonly tasks: Map<string, TaskInvoker>,
    private readonly onEnd?: (e: ExecutionRecord) => void,
    private readonly timing: Pick<LocalStepFunctionsOptions, 'retryIntervalOverrides' | 'waitTimeOverrides'> = {},
  ) {}

  readonly operations: Record<string, (input: ApiInput) => unknown> = {
    StartExecution: (input) => this.start(input),
    DescribeExecution: (input) => describe(this.find(input.executionArn).record),
    StopExecution: (input) => this.stop(input),
    ListExecutions: (input) => this.list(input),
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
    this.checkMachineArn(input.stateMachineArn);
    const name = input.name === undefined ? randomUUID() : validName(input.name);
    const rawInput = input.input === undefined ? '{}' : String(input.input);
    const arn = executionArnFor(this.machineArn, name);
    const existing = this.byArn.get(arn);
    if (existing) return startResult(sameRunningExecution(existing.record, rawInput));
    const execution = this.launch(arn, name, rawInput, parseExecutionInput(rawInput));
    return startResult(execution.record);
  }

  private launch(arn: string, name: string, rawInput: string, input: JsonValue): Execution {
    const record: ExecutionRecord = {
      executionArn: arn,
      stateMachineArn: this.machineArn.arn,
      name,
      status: 'RUNNING',
      startDate: new Date(),
      input: rawInput,
    };
    const inflight = new Set<Promise<unknown>>();
    const run = this.machine.run(input, {
      overrides: {
        taskResourceLocalHandlers: this.handlersFor(record, inflight),
        ...this.timing,
      },
      context: this.contextFor(record, input),
    });
    const ended = run.result.then(
      (output) => this.finish(record, { status: 'SUCCEEDED', output: JSON.stringify(output) }),
      (err: unknown) => this.finish(record, failureOutcome(err)),
    );
    const execution: Execution = { record, abort: run.abort, inflight, ended };
    this.byArn.set(arn, execution);
    return execution;
  }

  /** The Context Object AWS provides; the library itself only sets Execution.Input and StartTime. */
  private contextFor(record: ExecutionRecord, input: JsonValue) {
    return {
      Execution: {
        Id: record.executionArn,
        Name: record.name,
        Input: input,
        StartTime: record.startDate.toISOString(),
        RoleArn: `arn:aws:iam::${this.machineArn.account}:role/local-step-functions`,
      },
      StateMachine: { Id: this.machineArn.arn, Name: this.machineArn.name },
    };
  }

  /** Per-execution wrappers: track in-flight calls and refuse new ones once the execution has ended. */
  private handlersFor(record: ExecutionRecord, inflight: Set<Promise<unknown>>): TaskHandlers {
    const handlers: TaskHandlers = {};
    for (const [stateName, invoke] of this.tasks) {
      handlers[stateName] = (taskInput) => {
        // The library retries even after abort (its retry sleep returns early), so stop that here.
        if (record.status !== 'RUNNING') throw executionEndedError(record);
        const call = invoke(taskInput);
        inflight.add(call);
        void call.then(
          () => inflight.delete(call),
          () => inflight.delete(call),
        );
        return call as Promise<JsonValue>;
      };
    }
    return handlers;
  }

  /** First outcome wins: a stopped execution ignores the result that arrives after StopExecution. */
  private finish(record: ExecutionRecord, outcome: Partial<ExecutionRecord>): void {
    if (record.status !== 'RUNNING') return;
    Object.assign(record, outcome, { stopDate: new Date() });
    try {
      this.onEnd?.({ ...record });
    } catch (err) {
      // A broken log callback must not fail StopExecution or leave an unhandled rejection behind.
      process.emitWarning(`onExecutionEnd threw: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private stop(input: ApiInput) {
    const execution = this.find(input.executionArn);
    if (execution.record.status === 'RUNNING') {
      this.abort(execution, { error: optionalString(input.error), cause: optionalString(input.cause) });
    }
    return { stopDate: epochSeconds(execution.record.stopDate!) };
  }

  private abort(execution: Execution, details: { error?: string; cause?: string }): void {
    this.finish(execution.record, { status: 'ABORTED', ...details });
    execution.abort();
  }

  private list(input: ApiInput) {
    this.checkMachineArn(input.stateMachineArn);
    const matching = [...this.byArn.values()]
      .map((e) => e.record)
      .filter((r) => input.statusFilter === undefined || r.status === input.statusFilter)
      .reverse(); // newest first, as AWS lists them
    const offset = decodeToken(input.nextToken);
    const pageSize = Number(input.maxResults) > 0 ? Math.min(Number(input.maxResults), 1000) : 100;
    const page = matching.slice(offset, offset + pageSize);
    const next = offset + pageSize < matching.length ? encodeToken(offset + pageSize) : undefined;
    return { executions: page.map(listItem), nextToken: next };
  }

  private find(executionArn: unknown): Execution {
    if (typeof executionArn !== 'string' || !EXECUTION_ARN.test(executionArn)) {
      throw new ApiError('InvalidArn', `Invalid Arn: '${String(executionArn)}'`);
    }
    const execution = this.byArn.get(executionArn);
    if (!execution) throw new ApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    return execution;
  }

  private checkMachineArn(arn: unknown): void {
    if (typeof arn !== 'string' || !STATE_MACHINE_ARN.test(arn)) {
      throw new ApiError('InvalidArn', `Invalid Arn: '${String(arn)}'`);
    }
    if (arn !== this.machineArn.arn) {
      throw new ApiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`);
    }
  }
}

/** AWS: same name and input while RUNNING is idempotent; any other reuse of a name is refused. */
function sameRunningExecution(record: ExecutionRecord, rawInput: string): ExecutionRecord {
  if (record.status === 'RUNNING' && record.input === rawInput) return record;
  throw new ApiError('ExecutionAlreadyExists', `Execution Already Exists: '${record.executionArn}'`);
}

function failureOutcome(err: unknown): Partial<ExecutionRecord> {
  if (err instanceof ExecutionTimeoutError) {
    return { status: 'TIMED_OUT', error: 'States.Timeout', cause: 'The execution timed out (TimeoutSeconds)' };
  }
  if (err instanceof ExecutionAbortedError) return { status: 'ABORTED' };
  const failure = err instanceof ExecutionError && err.cause instanceof Error ? err.cause : err;
  if (failure instanceof Error) return { status: 'FAILED', error: failure.name, cause: failure.message };
  return { status: 'FAILED', error: 'States.Runtime', cause: String(failure) };
}

/** Thrown into a run that has already ended; neither retryable nor catchable in the library's terms. */
function executionEndedError(record: ExecutionRecord): Error {
  const err = namedError('States.Runtime', `Execution ${record.executionArn} is ${record.status}`);
  return Object.assign(err, { isRetryable: false, isCatchable: false });
}

async function drain(inflight: Set<Promise<unknown>>): Promise<void> {
  while (inflight.size > 0) await Promise.allSettled([...inflight]);
}

// ---------------------------------------------------------------------------------------------
// API shapes

function startResult(record: ExecutionRecord) {
  return { executionArn: record.executionArn, startDate: epochSeconds(record.startDate) };
}

function describe(record: ExecutionRecord) {
  return {
    executionArn: record.executionArn,
    stateMachineArn: record.stateMachineArn,
    name: record.name,
    status: record.status,
    startDate: epochSeconds(record.startDate),
    stopDate: record.stopDate && epochSeconds(record.stopDate),
    input: record.input,
    inputDetails: { included: true },
    output: record.output,
    outputDetails: record.output === undefined ? undefined : { included: true },
    error: record.error,
    cause: record.cause,
  };
}

function listItem(record: ExecutionRecord) {
  return {
    executionArn: record.executionArn,
    stateMachineArn: record.stateMachineArn,
    name: record.name,
    status: record.status,
    startDate: epochSeconds(record.startDate),
    stopDate: record.stopDate && epochSeconds(record.stopDate),
  };
}

/** awsJson1_0 timestamps are epoch seconds (fractions allowed). */
function epochSeconds(date: Date): number {
  return date.getTime() / 1000;
}

// AWS limits: 1-80 characters, none of whitespace, brackets, wildcards, these specials or control codes.
const INVALID_NAME_CHARS = /[\s<>{}[\]?*"#%\\^|~`$&,;:/]/;

function validName(name: unknown): string {
  const valid =
    typeof name === 'string' &&
    name.length >= 1 &&
    name.length <= 80 &&
    !INVALID_NAME_CHARS.test(name) &&
    !hasControlCharacter(name);
  if (!valid) throw new ApiError('InvalidName', `Invalid Name: '${String(name)}'`);
  return name;
}

function hasControlCharacter(text: string): boolean {
  return [...text].some((c) => {
    const code = c.codePointAt(0)!;
    return code < 0x20 || (code >= 0x7f && code <= 0x9f);
  });
}

function parseExecutionInput(raw: string): JsonValue {
  try {
    return JSON.parse(raw) as JsonValue;
  } catch (err) {
    throw new ApiError('InvalidExecutionInput', `Invalid State Machine Execution Input: '${(err as Error).message}'`);
  }
}

function optionalString(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : String(value);
}

function encodeToken(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64');
}

function decodeToken(token: unknown): number {
  if (token === undefined || token === null) return 0;
  try {
    const { offset } = JSON.parse(Buffer.from(String(token), 'base64').toString('utf8')) as { offset: unknown };
    if (typeof offset === 'number' && Number.isInteger(offset) && offset >= 0) return offset;
  } catch {
    // falls through to InvalidToken
  }
  throw new ApiError('InvalidToken', 'Invalid Token');
}

// ---------------------------------------------------------------------------------------------
// HTTP (AWS JSON 1.0)

const TARGET_PREFIX = 'AWSStepFunctions.';

async function handleHttp(req: IncomingMessage, res: ServerResponse, service: ExecutionService): Promise<void> {
  try {
    const operation = operationFor(req, service);
    const input = parseRequestBody(await readBody(req));
    sendJson(res, 200, operation(input));
  } catch (err) {
    if (err instanceof ApiError) sendJson(res, 400, { __type: err.type, message: err.message });
    else sendJson(res, 500, { __type: 'InternalFailure', message: err instanceof Error ? err.message : String(err) });
  }
}

function operationFor(req: IncomingMessage, service: ExecutionService) {
  const target = String(req.headers['x-amz-target'] ?? '');
  const operation = target.startsWith(TARGET_PREFIX)
    ? service.operations[target.slice(TARGET_PREFIX.length)]
    : undefined;
  if (req.method !== 'POST' || !operation) {
    throw new ApiError('UnknownOperationException', `Operation not supported by the local server: '${target}'`);
  }
  return operation;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseRequestBody(body: string): ApiInput {
  try {
    const parsed: unknown = body === '' ? {} : JSON.parse(body);
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

function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${hostPart}:${address.port}`);
    });
  });
}

/** SDK clients keep connections alive, so idle sockets are closed explicitly or close() would hang. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
}

// ---------------------------------------------------------------------------------------------
// Helpers

function namedError(name: string, message: string): Error {
  const err = new Error(message);
  err.name = name;
  return err;
}

/** JSON round trip; binary values (DynamoDB B/BS) become base64 strings as in the Step Functions JSON. */
function toJson(value: unknown): JsonValue {
  const text = JSON.stringify(value ?? null, (_key, v: unknown) =>
    v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v,
  );
  return JSON.parse(text) as JsonValue;
}
