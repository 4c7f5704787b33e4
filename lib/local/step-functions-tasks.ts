/**
 * The Task states of the definition: what each one runs (an in-process handler, a task-token wait, an SQS
 * send), checked at start, and the definition as aws-local-stepfunctions runs it (timeouts kept here).
 */
import { SendMessageCommand, type SendMessageCommandInput, type SQSClient } from '@aws-sdk/client-sqs';
import { ExecutionError, StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { namedError, terminalError } from './step-functions-errors.js';
import type { JsonValue, LocalLambdaHandler, LocalStepFunctionsOptions } from './step-functions-options.js';
import { MAX_TIMER_MS } from './step-functions-task-tokens.js';
import type { TimeoutErrors, WaitingTask, WaitLimits } from './step-functions-task-tokens.js';

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

export type AslDefinition = { TimeoutSeconds?: unknown; States?: Record<string, AslState> };

const SQS_SEND_MESSAGE = 'arn:aws:states:::sqs:sendMessage';
const LAMBDA_INVOKE_WAIT = 'arn:aws:states:::lambda:invoke.waitForTaskToken';
export const TASK_TOKEN_PATH = '$$.Task.Token';

/** What an invoker may use of the execution it runs in. */
export interface TaskScope {
  /** Counts a call that may outlive its state (a handler still running) in idle() until it settles. */
  track(call: Promise<unknown>): void;
  /** Opens the wait on the token this attempt's Parameters read from `$$.Task.Token`. */
  waitForToken(limits: WaitLimits): WaitingTask;
}

/** One attempt of a Task state: its effective input (after InputPath/Parameters) and its timeout. */
export interface TaskCall {
  input: unknown;
  timeoutSeconds: number;
  scope: TaskScope;
}

type TaskInvoker = (call: TaskCall) => Promise<unknown>;

export interface TaskPlan {
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
export function taskPlans(o: LocalStepFunctionsOptions): Map<string, TaskPlan> {
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
export function libraryDefinition(definition: AslDefinition, plans: Map<string, TaskPlan>): StateMachineDefinition {
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
export function taskCall(plan: TaskPlan, taskInput: JsonValue, scope: TaskScope): TaskCall {
  if (plan.timeoutSeconds !== undefined) return { input: taskInput, timeoutSeconds: plan.timeoutSeconds, scope };
  const carrier = taskInput as Record<string, unknown>;
  const timeoutSeconds = carrier[TIMEOUT_KEY];
  if (!isPositiveInteger(timeoutSeconds)) {
    throw terminalError(`TimeoutSecondsPath gave ${JSON.stringify(timeoutSeconds)}, not a positive integer`);
  }
  const input = PARAMETERS_KEY in carrier ? carrier[PARAMETERS_KEY] : carrier[INPUT_KEY];
  return { input, timeoutSeconds, scope };
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

function isPositiveInteger(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0;
}

export function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}
