/**
 * A local stand-in for AWS Step Functions, so the local stack runs statemachine/task-lifecycle.asl.json as is:
 * an HTTP server speaking the AWS JSON 1.0 protocol `@aws-sdk/client-sfn` sends, executions run in-process by
 * `aws-local-stepfunctions` (which gives Retry/Catch/Wait/Choice). It serves only what our ASL and code use:
 * Lambda task states (in-process handlers), lambda:invoke.waitForTaskToken (task tokens, heartbeats),
 * sqs:sendMessage; Start/Describe/StopExecution and SendTaskSuccess/SendTaskFailure/SendTaskHeartbeat.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageCommand, type SendMessageCommandInput, type SQSClient } from '@aws-sdk/client-sqs';
import { ExecutionError, StateMachine, type RunOptions, type StateMachineDefinition } from 'aws-local-stepfunctions';

export type LocalLambdaHandler = (event: unknown) => Promise<unknown>;

type Overrides = NonNullable<RunOptions['overrides']>;
type TaskHandlers = NonNullable<Overrides['taskResourceLocalHandlers']>;
type JsonValue = Parameters<TaskHandlers[string]>[0];

export interface LocalStepFunctionsOptions {
  /** ASL definition, `${Token}`s filled in. JSONPath only; taskPlans says what else is refused. */
  definition: Record<string, unknown>;
  /** e.g. arn:aws:states:us-east-1:000000000000:stateMachine:task-lifecycle */
  stateMachineArn: string;
  /** Lambda function ARN, exactly as it appears in the ASL (Resource, or FunctionName) → in-process handler. */
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
  /** History events an execution may have before it fails (AWS: 25,000); tests lower it. */
  historyEventLimit?: number;
}

/**
 * AWS's quota: "Maximum execution history size: 25,000 events"; an execution that reaches it fails (Step
 * Functions developer guide, "Step Functions service quotas").
 */
export const HISTORY_EVENT_LIMIT = 25_000;

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
  /** History events so far, counted as AWS would at least (see countHistory). */
  historyEvents: number;
  /** States entered and retries: what AWS bills as state transitions. */
  transitions: number;
}

export interface LocalStepFunctions {
  /** Base URL to give SFNClient as `endpoint`. */
  endpoint: string;
  /** Aborts running executions (their waiting tasks too) and stops the server. Does not wait for handlers: idle() does. */
  close(): Promise<void>;
  /** Snapshot of every execution, oldest first. */
  executions(): ExecutionRecord[];
  /** Resolves when no execution is running and no task handler is still in flight. */
  idle(): Promise<void>;
}

export async function startLocalStepFunctions(o: LocalStepFunctionsOptions): Promise<LocalStepFunctions> {
  const definition = o.definition as AslDefinition;
  const plans = taskPlans(o);
  const machine = new StateMachine(libraryDefinition(definition, plans));
  const executions = new Executions(machine, plans, o, await libraryTimeoutErrors());
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

// ----- Task states: what each one runs, checked at start

type Rule = { ErrorEquals?: string[] };

type AslState = {
  Type?: unknown;
  Comment?: unknown;
  Resource?: unknown;
  InputPath?: unknown;
  Parameters?: unknown;
  TimeoutSeconds?: unknown;
  TimeoutSecondsPath?: unknown;
  HeartbeatSeconds?: unknown;
  HeartbeatSecondsPath?: unknown;
  Retry?: Rule[];
  Catch?: Rule[];
};

type AslDefinition = { TimeoutSeconds?: unknown; States?: Record<string, AslState> };

const SQS_SEND_MESSAGE = 'arn:aws:states:::sqs:sendMessage';
const LAMBDA_INVOKE_WAIT = 'arn:aws:states:::lambda:invoke.waitForTaskToken';
const TASK_TOKEN_PATH = '$$.Task.Token';

/** What an invoker may use of the execution it runs in. */
interface TaskScope {
  /** Counts a call that may outlive its state (a handler still running) in idle() until it settles. */
  track(call: Promise<unknown>): void;
  /** Opens the wait on the token this attempt's Parameters read from `$$.Task.Token`. */
  waitForToken(limits: WaitLimits): WaitingTask;
}

/** One attempt of a Task state: its effective input (after InputPath/Parameters) and its timeout. */
interface TaskCall {
  input: unknown;
  timeoutSeconds: number;
  scope: TaskScope;
}

type TaskInvoker = (call: TaskCall) => Promise<unknown>;

interface TaskPlan {
  invoke: TaskInvoker;
  /** TimeoutSeconds; undefined when TimeoutSecondsPath gives it per attempt (see libraryDefinition). */
  timeoutSeconds: number | undefined;
  /** A .waitForTaskToken state: timed by its WaitingTask, not by the library. */
  waitsForToken: boolean;
}

/**
 * One plan per Task state, keyed by state name as the library keys its handlers. Refuses at start what is not
 * served, rather than letting the library call real AWS or diverge from it at run time.
 */
function taskPlans(o: LocalStepFunctionsOptions): Map<string, TaskPlan> {
  const { States = {}, TimeoutSeconds } = o.definition as AslDefinition;
  if (TimeoutSeconds !== undefined && !isPositiveInteger(TimeoutSeconds)) {
    throw new Error('The machine-level TimeoutSeconds must be a positive integer');
  }
  const plans = new Map<string, TaskPlan>();
  for (const [name, state] of Object.entries(States)) {
    if (state.Type === 'Parallel' || state.Type === 'Map') {
      throw new Error(`State "${name}": ${state.Type} states are not served locally (their tasks would call AWS)`);
    }
    checkTaskTokenUse(name, state);
    if (state.Type === 'Task') plans.set(name, taskPlan(name, state, o));
  }
  return plans;
}

function taskPlan(name: string, state: AslState, o: LocalStepFunctionsOptions): TaskPlan {
  const timeoutSeconds = taskTimeout(name, state);
  if (state.Resource !== LAMBDA_INVOKE_WAIT) {
    if (state.HeartbeatSeconds !== undefined || state.HeartbeatSecondsPath !== undefined) {
      throw new Error(`Task state "${name}": HeartbeatSeconds is served only on ${LAMBDA_INVOKE_WAIT} states`);
    }
    return { invoke: taskInvoker(name, String(state.Resource), o), timeoutSeconds, waitsForToken: false };
  }
  const heartbeatSeconds = taskHeartbeat(name, state, timeoutSeconds);
  return { invoke: callbackInvoker(name, state, o, heartbeatSeconds), timeoutSeconds, waitsForToken: true };
}

/**
 * AWS sets no default Task timeout, the library 60 s; AWS advises always setting one (docs: "Using timeouts to
 * avoid stuck Step Functions workflow executions"), so one is required here: TimeoutSeconds, or TimeoutSecondsPath,
 * read from the state input (docs: "Task workflow state"). Returns undefined for TimeoutSecondsPath.
 */
function taskTimeout(name: string, state: AslState): number | undefined {
  if (state.TimeoutSecondsPath === undefined) {
    if (!isPositiveInteger(state.TimeoutSeconds)) {
      throw new Error(`Task state "${name}" has no TimeoutSeconds (a positive integer) or TimeoutSecondsPath`);
    }
    return state.TimeoutSeconds;
  }
  if (typeof state.TimeoutSecondsPath !== 'string' || state.TimeoutSeconds !== undefined) {
    throw new Error(`Task state "${name}": TimeoutSecondsPath must be a path, and without TimeoutSeconds`);
  }
  // Read from the state input; here it is read along with Parameters (libraryDefinition), after InputPath.
  if (state.InputPath !== undefined) {
    throw new Error(`Task state "${name}": TimeoutSecondsPath with InputPath is not served locally`);
  }
  return undefined;
}

/** ASL: HeartbeatSeconds is a positive integer smaller than TimeoutSeconds (docs: "Task workflow state"). */
function taskHeartbeat(name: string, state: AslState, timeoutSeconds: number | undefined): number | undefined {
  if (state.HeartbeatSecondsPath !== undefined) {
    throw new Error(`Task state "${name}": HeartbeatSecondsPath is not served locally`);
  }
  const heartbeat = state.HeartbeatSeconds;
  if (heartbeat === undefined) return undefined;
  if (!isPositiveInteger(heartbeat) || (timeoutSeconds !== undefined && heartbeat >= timeoutSeconds)) {
    throw new Error(`Task state "${name}": HeartbeatSeconds must be a positive integer smaller than TimeoutSeconds`);
  }
  return heartbeat;
}

/**
 * A .waitForTaskToken state must pass `$$.Task.Token` in its Parameters, the only place AWS gives it (docs:
 * "Discover service integration patterns in Step Functions", Wait for a Callback with Task Token). Any other read
 * is refused: TaskTokens counts on reads happening only while such a state's Parameters are evaluated.
 */
function checkTaskTokenUse(name: string, state: AslState): void {
  const { Parameters, Comment: _comment, ...rest } = state;
  const inParameters = pathsIn(Parameters).some((path) => path.includes(TASK_TOKEN_PATH));
  const waitsForToken = state.Type === 'Task' && state.Resource === LAMBDA_INVOKE_WAIT;
  if (JSON.stringify(rest).includes(TASK_TOKEN_PATH) || (inParameters && !waitsForToken)) {
    throw new Error(`State "${name}": ${TASK_TOKEN_PATH} is served only in the Parameters of .waitForTaskToken states`);
  }
  if (waitsForToken && !inParameters) {
    throw new Error(`Task state "${name}": a .waitForTaskToken state must pass ${TASK_TOKEN_PATH} in its Parameters`);
  }
}

/** The paths and intrinsic functions of a payload template: the values of its `.$` fields, at any depth. */
function pathsIn(template: unknown): string[] {
  if (Array.isArray(template)) return template.flatMap(pathsIn);
  if (!template || typeof template !== 'object') return [];
  return Object.entries(template).flatMap(([key, value]) =>
    key.endsWith('.$') && typeof value === 'string' ? [value] : pathsIn(value),
  );
}

function taskInvoker(stateName: string, resource: string, o: LocalStepFunctionsOptions): TaskInvoker {
  const handler = o.lambdaHandlers[resource];
  if (handler) return ({ input }) => invokeLambda(handler, input);
  if (resource === SQS_SEND_MESSAGE) return ({ input }) => sendMessage(o.sqs, input);
  throw new Error(
    `Task state "${stateName}": Resource "${resource}" is not served locally (served: Lambda function ARNs that ` +
      `have a handler, ${LAMBDA_INVOKE_WAIT} with such a FunctionName, ${SQS_SEND_MESSAGE})`,
  );
}

/**
 * lambda:invoke.waitForTaskToken: invokes the function with Payload, then waits for the token (docs: "Invoke an AWS
 * Lambda function with Step Functions"). The wait opens before the call, as the function may send its own token
 * back before it returns. A function error fails the state at once, named as for a Lambda task (invokeLambda);
 * the heartbeat clock starts only once the function has returned (same page).
 */
function callbackInvoker(
  stateName: string,
  state: AslState,
  o: LocalStepFunctionsOptions,
  heartbeatSeconds: number | undefined,
): TaskInvoker {
  const parameters = (state.Parameters ?? {}) as Record<string, unknown>;
  const functionName = parameters.FunctionName;
  const handler = typeof functionName === 'string' ? o.lambdaHandlers[functionName] : undefined;
  if (!handler) {
    throw new Error(
      `Task state "${stateName}": FunctionName "${String(functionName)}" is not served locally ` +
        '(served: a Lambda function ARN that has a handler)',
    );
  }
  const unserved = Object.keys(parameters).filter((key) => !['FunctionName', 'Payload', 'Payload.$'].includes(key));
  if (unserved.length > 0) {
    throw new Error(`Task state "${stateName}": Parameters ${unserved.join(', ')} are not served locally`);
  }
  return async ({ input, timeoutSeconds, scope }) => {
    const waiting = scope.waitForToken({
      timeoutMs: timeoutSeconds * 1000,
      heartbeatMs: heartbeatSeconds === undefined ? undefined : heartbeatSeconds * 1000,
    });
    const call = invokeLambda(handler, (input as { Payload?: unknown }).Payload);
    scope.track(call);
    call.then(
      () => waiting.functionReturned(),
      (err: Error) => waiting.fail(err),
    );
    return waiting.result;
  };
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

// ----- The definition as the library runs it

/** Where libraryDefinition puts a TimeoutSecondsPath value, and the state's own Parameters or input beside it. */
const TIMEOUT_KEY = 'localTimeoutSeconds';
const PARAMETERS_KEY = 'localParameters';
const INPUT_KEY = 'localInput';

/** The longest delay setTimeout takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** The library's timer for a state timed here: as long as it goes. */
const LIBRARY_TIMER_OFF_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

const HEARTBEAT_TIMEOUT = 'States.HeartbeatTimeout';

/**
 * The definition given to the library. The machine's TimeoutSeconds is kept from it: Executions times an execution
 * out itself, as StopExecution ends one. Task states are adjusted where the library differs from AWS:
 * - TimeoutSecondsPath: the library reads it from the effective input (after Parameters), AWS from the state
 *   input; so the Parameters carry its value under TIMEOUT_KEY, and taskCall unwraps them before the invoker runs.
 * - .waitForTaskToken: their WaitingTask times them (the wait outlives the call the library races).
 * - HeartbeatSeconds: ASL's States.Timeout also names a missed heartbeat ("Error names" in the Amazon States
 *   Language spec), so its retriers and catchers also match States.HeartbeatTimeout.
 */
function libraryDefinition(definition: AslDefinition, plans: Map<string, TaskPlan>): StateMachineDefinition {
  const { TimeoutSeconds: _machineTimeout, States = {}, ...rest } = definition;
  const states = Object.entries(States).map(([name, state]) => {
    const plan = plans.get(name);
    return [name, plan ? libraryTaskState(state, plan) : state];
  });
  return { ...rest, States: Object.fromEntries(states) } as unknown as StateMachineDefinition;
}

function libraryTaskState(state: AslState, plan: TaskPlan): AslState {
  const adjusted: AslState = { ...state };
  if (plan.timeoutSeconds === undefined) {
    const carried =
      state.Parameters === undefined ? { [`${INPUT_KEY}.$`]: '$' } : { [PARAMETERS_KEY]: state.Parameters };
    adjusted.Parameters = { ...carried, [`${TIMEOUT_KEY}.$`]: state.TimeoutSecondsPath };
    adjusted.TimeoutSecondsPath = `$.${TIMEOUT_KEY}`;
  }
  if (plan.waitsForToken) {
    delete adjusted.TimeoutSecondsPath;
    adjusted.TimeoutSeconds = LIBRARY_TIMER_OFF_SECONDS;
  }
  if (state.HeartbeatSeconds !== undefined) {
    // Only set when present: the library reads `"Retry" in state` as "has retriers".
    if (state.Retry) adjusted.Retry = state.Retry.map(withHeartbeatTimeout);
    if (state.Catch) adjusted.Catch = state.Catch.map(withHeartbeatTimeout);
  }
  return adjusted;
}

function withHeartbeatTimeout<T extends Rule>(rule: T): T {
  const errors = rule.ErrorEquals ?? [];
  if (!errors.includes('States.Timeout') || errors.includes(HEARTBEAT_TIMEOUT)) return rule;
  return { ...rule, ErrorEquals: [...errors, HEARTBEAT_TIMEOUT] };
}

/** Undoes libraryDefinition's TimeoutSecondsPath wrapping, checking its value as the library would. */
function taskCall(plan: TaskPlan, taskInput: JsonValue, scope: TaskScope): TaskCall {
  if (plan.timeoutSeconds !== undefined) return { input: taskInput, timeoutSeconds: plan.timeoutSeconds, scope };
  const carrier = taskInput as Record<string, unknown>;
  const timeoutSeconds = carrier[TIMEOUT_KEY];
  if (!isPositiveInteger(timeoutSeconds)) {
    throw terminalError(`TimeoutSecondsPath gave ${JSON.stringify(timeoutSeconds)}, not a positive integer`);
  }
  const input = PARAMETERS_KEY in carrier ? carrier[PARAMETERS_KEY] : carrier[INPUT_KEY];
  return { input, timeoutSeconds, scope };
}

export interface TimeoutErrors {
  /** States.Timeout: TimeoutSeconds passed. */
  timeout(): Error;
  /** States.HeartbeatTimeout: HeartbeatSeconds passed without SendTaskHeartbeat. */
  heartbeat(): Error;
}

let timeoutErrors: Promise<TimeoutErrors> | undefined;

/**
 * Timeouts of the library's own class, which it does not export: its Retry/Catch tell a timeout from other task
 * errors by class (States.TaskFailed matches any task error but a timeout, per the ASL spec). Taken once from a
 * one-state run that times out at once.
 */
export function libraryTimeoutErrors(): Promise<TimeoutErrors> {
  timeoutErrors ??= (async () => {
    const probe = new StateMachine(
      { StartAt: 'Probe', States: { Probe: { Type: 'Task', Resource: 'probe', TimeoutSeconds: 0.001, End: true } } },
      { validationOptions: { noValidate: true } }, // a fraction of a second is not valid ASL
    );
    const run = probe.run({}, { overrides: { taskResourceLocalHandlers: { Probe: () => new Promise(() => {}) } } });
    const failure = await run.result.then(
      () => undefined,
      (err: unknown) => (err instanceof ExecutionError ? err.cause : err),
    );
    if (!(failure instanceof Error) || failure.name !== 'States.Timeout') {
      throw new Error('aws-local-stepfunctions no longer times a task out with its States.Timeout error');
    }
    const TimeoutError = failure.constructor as new () => Error;
    return {
      timeout: () => new TimeoutError(),
      heartbeat: () => Object.assign(new TimeoutError(), { name: HEARTBEAT_TIMEOUT, message: HEARTBEAT_TIMEOUT }),
    };
  })();
  return timeoutErrors;
}

// ----- Task tokens

/** Lifetimes of one .waitForTaskToken attempt, in milliseconds. */
interface WaitLimits {
  timeoutMs: number;
  heartbeatMs: number | undefined;
}

/**
 * `$$.Task.Token` for one execution. The library reads the context object's Task.Token while it evaluates a
 * state's Parameters, once per reference and again on each retry: the first read mints a token, later reads get
 * the same one until the state's invoker takes it, so every attempt has its own. 32 random bytes: unguessable.
 */
class TaskTokens {
  private pending: string | undefined;
  /** The context object's Task node: the library copies the context shallowly, so this getter survives. */
  readonly contextNode: { readonly Token: string };

  constructor() {
    const mint = () => (this.pending ??= randomBytes(32).toString('base64url'));
    this.contextNode = {
      get Token() {
        return mint();
      },
    };
  }

  take(): string | undefined {
    const token = this.pending;
    this.pending = undefined;
    return token;
  }
}

/**
 * A .waitForTaskToken attempt waiting on its token: settled by SendTaskSuccess/SendTaskFailure, by a function
 * error, by its timeouts, or closed with its execution; the first outcome wins.
 */
class WaitingTask {
  readonly result: Promise<unknown>;
  private resolve!: (output: unknown) => void;
  private reject!: (error: Error) => void;
  private open = true;
  private readonly timeout: NodeJS.Timeout;
  private heartbeat: NodeJS.Timeout | undefined;
  private heartbeatRunning = false;

  constructor(
    private readonly limits: WaitLimits,
    private readonly errors: TimeoutErrors,
  ) {
    this.result = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.timeout = unrefTimer(limits.timeoutMs, () => this.fail(errors.timeout()));
  }

  get isOpen(): boolean {
    return this.open;
  }

  succeed(output: unknown): void {
    if (this.close()) this.resolve(output);
  }

  fail(error: Error): void {
    if (this.close()) this.reject(error);
  }

  /** The invoked function has returned: the HeartbeatSeconds clock starts now. */
  functionReturned(): void {
    this.heartbeatRunning = true;
    this.beat();
  }

  /** SendTaskHeartbeat: restarts the HeartbeatSeconds clock, once it runs. */
  beat(): void {
    if (!this.open || !this.heartbeatRunning || this.limits.heartbeatMs === undefined) return;
    clearTimeout(this.heartbeat);
    this.heartbeat = unrefTimer(this.limits.heartbeatMs, () => this.fail(this.errors.heartbeat()));
  }

  private close(): boolean {
    if (!this.open) return false;
    this.open = false;
    clearTimeout(this.timeout);
    clearTimeout(this.heartbeat);
    return true;
  }
}

// API reference length limits (SendTaskSuccess, SendTaskFailure); `output` counts UTF-8 bytes.
const TASK_TOKEN_LIMITS = { required: true, min: 1, max: 2048 };
const OUTPUT_LIMITS = { required: true, max: 262_144, bytes: true };
const ERROR_LIMITS = { max: 256 };
const CAUSE_LIMITS = { max: 32_768 };

/** The JSON of SendTaskSuccess becomes the state's result; anything else is InvalidOutput (API reference). */
function parseTaskOutput(output: string): unknown {
  try {
    return JSON.parse(output);
  } catch (err) {
    throw new ApiError('InvalidOutput', `Invalid Output: '${(err as Error).message}'`);
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

/** What the task handlers of one run use; the library's run adds the rest (Execution). */
interface RunScope {
  record: ExecutionRecord;
  /** Task handler calls not yet settled; a late one can outlive an abort or a States.Timeout. */
  inflight: Set<Promise<unknown>>;
  tokens: TaskTokens;
  /** Its tasks waiting on a token: closed when the execution ends. */
  waiting: Set<WaitingTask>;
}

interface Execution extends RunScope {
  abort: () => void;
  /** Settles once the library has ended the run (handlers may still be in flight). */
  ended: Promise<void>;
}

type ApiInput = Record<string, unknown>;

class Executions {
  private readonly byArn = new Map<string, Execution>();
  /** Every token handed out; a settled task stays, so its token answers TaskTimedOut rather than InvalidToken. */
  private readonly byToken = new Map<string, WaitingTask>();
  /** The machine's TimeoutSeconds, if any. */
  private readonly timeoutSeconds: number | undefined;

  constructor(
    private readonly machine: StateMachine,
    private readonly plans: Map<string, TaskPlan>,
    private readonly options: LocalStepFunctionsOptions,
    private readonly timeoutErrors: TimeoutErrors,
  ) {
    this.timeoutSeconds = (options.definition as AslDefinition).TimeoutSeconds as number | undefined;
  }

  /** The API actions our code sends (functions/adapters/sfn-task-workflow.ts, and task-token workers). */
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
    SendTaskSuccess: (input) => {
      const token = stringMember(input, 'taskToken', TASK_TOKEN_LIMITS)!;
      const output = stringMember(input, 'output', OUTPUT_LIMITS)!;
      const task = this.waitingTask(token);
      task.succeed(parseTaskOutput(output));
      return {};
    },
    SendTaskFailure: (input) => {
      const token = stringMember(input, 'taskToken', TASK_TOKEN_LIMITS)!;
      const error = stringMember(input, 'error', ERROR_LIMITS);
      const cause = stringMember(input, 'cause', CAUSE_LIMITS);
      // Matched by Retry/Catch like a function error; the catcher's output is { Error, Cause }.
      this.waitingTask(token).fail(namedError(error ?? '', cause ?? ''));
      return {};
    },
    SendTaskHeartbeat: (input) => {
      this.waitingTask(stringMember(input, 'taskToken', TASK_TOKEN_LIMITS)!).beat();
      return {};
    },
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
    const scope: RunScope = {
      record: {
        executionArn: arn,
        stateMachineArn: this.options.stateMachineArn,
        name,
        status: 'RUNNING',
        startDate: new Date(),
        input: rawInput,
        historyEvents: 0,
        transitions: 0,
      },
      inflight: new Set(),
      tokens: new TaskTokens(),
      waiting: new Set(),
    };
    const run = this.machine.run(input, {
      overrides: {
        taskResourceLocalHandlers: this.handlersFor(scope),
        retryIntervalOverrides: this.options.retryIntervalOverrides,
        waitTimeOverrides: this.options.waitTimeOverrides,
      },
      context: { Task: scope.tokens.contextNode },
    });
    const ended = run.result.then(
      (output) => this.finish(scope, { status: 'SUCCEEDED', output: JSON.stringify(output) }),
      (err: unknown) => this.finish(scope, failureOutcome(err)),
    );
    const execution: Execution = { ...scope, abort: run.abort, ended };
    this.byArn.set(arn, execution);
    void this.countHistory(execution, run.eventLogs);
    if (this.timeoutSeconds !== undefined) {
      // AWS: an execution that runs longer than the machine's TimeoutSeconds fails with States.Timeout, status
      // TIMED_OUT (Amazon States Language, "State machine structure"; DescribeExecution `status`). Handlers in
      // flight run on, as a Lambda does.
      const timer = unrefTimer(this.timeoutSeconds * 1000, () =>
        this.abort(execution, {
          status: 'TIMED_OUT',
          error: 'States.Timeout',
          cause: `The execution ran longer than the state machine's TimeoutSeconds (${this.timeoutSeconds} s)`,
        }),
      );
      void ended.finally(() => clearTimeout(timer));
    }
    return execution;
  }

  /**
   * Counts the execution's history as AWS writes it, at least: a Task state's entry is 5 events (entered,
   * scheduled, started, its outcome, exited: one more for a task token's submit), each retry 4 more; any other
   * state or execution event 1. Past the limit the execution fails, as in AWS.
   */
  private async countHistory(execution: Execution, events: AsyncGenerator<{ type: string; state?: { type: string } }>) {
    const limit = this.options.historyEventLimit ?? HISTORY_EVENT_LIMIT;
    try {
      for await (const event of events) {
        const task = event.state?.type === 'Task';
        if (event.type === 'StateEntered' || event.type === 'StateRetried') execution.record.transitions += 1;
        execution.record.historyEvents +=
          task && event.type === 'StateEntered' ? 5 : task && event.type === 'StateRetried' ? 4 : 1;
        if (execution.record.historyEvents > limit && execution.record.status === 'RUNNING') {
          this.abort(execution, {
            status: 'FAILED',
            error: 'States.Runtime',
            cause: `The execution history reached ${limit} events, the Step Functions quota`,
          });
        }
      }
    } catch {
      // The log ends with the execution, however it ends.
    }
  }

  /** Per-execution wrappers: track in-flight calls and refuse new ones once the execution has ended. */
  private handlersFor(run: RunScope): TaskHandlers {
    const scope: TaskScope = {
      track: (call) => track(run.inflight, call),
      waitForToken: (limits) => this.waitForToken(run, limits),
    };
    const handlers: TaskHandlers = {};
    for (const [stateName, plan] of this.plans) {
      handlers[stateName] = (taskInput) => {
        // The library still retries after an abort (its retry sleep just returns early): this ends that.
        if (run.record.status !== 'RUNNING') {
          throw terminalError(`Execution ${run.record.executionArn} is ${run.record.status}`);
        }
        const call = plan.invoke(taskCall(plan, taskInput, scope));
        track(run.inflight, call);
        return call as Promise<JsonValue>;
      };
    }
    return handlers;
  }

  private waitForToken(run: RunScope, limits: WaitLimits): WaitingTask {
    const token = run.tokens.take();
    // Unreachable: checkTaskTokenUse makes every .waitForTaskToken state read it in its Parameters.
    if (token === undefined) throw terminalError(`${TASK_TOKEN_PATH} was not read for this attempt`);
    const task = new WaitingTask(limits, this.timeoutErrors);
    this.byToken.set(token, task);
    run.waiting.add(task);
    const forget = () => run.waiting.delete(task);
    task.result.then(forget, forget);
    return task;
  }

  /**
   * AWS answers a token it never issued with InvalidToken, and one whose task no longer waits (settled, timed
   * out, its execution stopped or ended) with TaskTimedOut: "The task token has either expired or the task
   * associated with the token has already been closed" (SendTaskSuccess API reference). Its TaskDoesNotExist,
   * "The activity does not exist", is about activities, which are not served.
   */
  private waitingTask(token: string): WaitingTask {
    const task = this.byToken.get(token);
    if (!task) throw new ApiError('InvalidToken', 'Invalid Token: not a task token this server issued');
    if (!task.isOpen) throw new ApiError('TaskTimedOut', "Task Timed Out: 'Provided task does not exist anymore'");
    return task;
  }

  /**
   * First outcome wins: a stopped execution ignores the result that arrives after StopExecution. Its waiting
   * tasks close with an error no Retry or Catch matches, so the library does not try the state again.
   */
  private finish(run: RunScope, outcome: Partial<ExecutionRecord>): void {
    if (run.record.status !== 'RUNNING') return;
    Object.assign(run.record, outcome, { stopDate: new Date() });
    for (const task of run.waiting) task.fail(terminalError(`Execution ${run.record.executionArn} ended`));
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
    this.finish(execution, { status: 'ABORTED', ...details });
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

function track(inflight: Set<Promise<unknown>>, call: Promise<unknown>): void {
  inflight.add(call);
  const forget = () => inflight.delete(call);
  call.then(forget, forget);
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

/**
 * A string member checked against its API reference length limits. A violation is a ValidationException, as for
 * any AWS JSON API ("Common Errors" in the Step Functions API reference), worded as AWS words them.
 */
function stringMember(
  input: ApiInput,
  name: string,
  limits: { required?: boolean; min?: number; max: number; bytes?: boolean },
): string | undefined {
  const value = input[name];
  const invalid = (constraint: string) =>
    new ApiError(
      'ValidationException',
      `1 validation error detected: Value at '${name}' failed to satisfy constraint: ${constraint}`,
    );
  if (value === undefined || value === null) {
    if (limits.required) throw invalid('Member must not be null');
    return undefined;
  }
  if (typeof value !== 'string') throw new ApiError('SerializationException', `'${name}' must be a string`);
  const length = limits.bytes ? Buffer.byteLength(value) : [...value].length;
  if (length < (limits.min ?? 0)) throw invalid(`Member must have length greater than or equal to ${limits.min}`);
  if (length > limits.max) throw invalid(`Member must have length less than or equal to ${limits.max}`);
  return value;
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

/** States.Runtime that no Retry or Catch matches (in the library's terms), as the library's own. */
function terminalError(message: string): Error {
  return Object.assign(namedError('States.Runtime', message), { isRetryable: false, isCatchable: false });
}

function isPositiveInteger(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0;
}

/**
 * A timer that does not keep the process alive on its own. Past 2^31 - 1 ms setTimeout fires at once, so longer
 * delays (AWS allows a year) are capped there: some 24 days, as good as never for a local run.
 */
function unrefTimer(ms: number, fire: () => void): NodeJS.Timeout {
  const timer = setTimeout(fire, Math.min(ms, MAX_TIMER_MS));
  timer.unref();
  return timer;
}

function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}
