/**
 * The Task states of the local Step Functions: an in-process Lambda handler, lambda:invoke.waitForTaskToken (the
 * function invoked, then its task token waited on) or sqs:sendMessage, refused at start if not served; and the
 * definition as aws-local-stepfunctions runs it, adjusted where the library differs from AWS.
 */
import { SendMessageCommand, type SendMessageCommandInput, type SQSClient } from '@aws-sdk/client-sqs';
import { ExecutionError, StateMachine, type RunOptions, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { isThrottle } from './lambda-concurrency.js';

export type LocalLambdaHandler = (event: unknown) => Promise<unknown>;
type LibraryHandler = NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']>[string];
export type JsonValue = Parameters<LibraryHandler>[0];
type Rules = { ErrorEquals: string[] }[];
type AslState = Partial<Record<'Type' | 'Resource' | 'TimeoutSecondsPath', string>> &
  Partial<Record<'TimeoutSeconds' | 'HeartbeatSeconds', number>> &
  Partial<{ Parameters: Record<string, unknown>; Retry: Rules; Catch: Rules }>;
export type AslDefinition = { TimeoutSeconds?: number; States: Record<string, AslState> };

/** What a handler uses of its execution: idle() waits for tracked calls; the wait on this attempt's token. */
export interface TaskScope {
  track(call: Promise<unknown>): void;
  waitForToken(timeoutMs: number, heartbeatMs: number | undefined): WaitingTask;
}
export type TaskHandler = (input: JsonValue, scope: TaskScope) => Promise<unknown>;
export type TimeoutErrors = Record<'timeout' | 'heartbeat', () => Error>;
export type WaitingTask = ReturnType<typeof waitingTask>;

const LAMBDA_INVOKE_WAIT = 'arn:aws:states:::lambda:invoke.waitForTaskToken';
/** setTimeout's longest delay (some 24 days, as good as never here); past it, it fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const TIMER_OFF_SECONDS = Math.floor(MAX_TIMER_MS / 1000);
/** Where libraryDefinition puts a .waitForTaskToken state's own Parameters and its timeout. */
const [PARAMETERS, TIMEOUT] = ['localParameters', 'localTimeoutSeconds'];
const HEARTBEAT = 'States.HeartbeatTimeout';

/** An error as Retry/Catch see it; a terminal one (States.Runtime) no Retry or Catch matches, as the library's. */
export function namedError(name: string, message: string, terminal = false): Error {
  return Object.assign(new Error(message), { name }, terminal && { isRetryable: false, isCatchable: false });
}

export const unrefTimer = (ms: number, fire: () => void) => setTimeout(fire, Math.min(ms, MAX_TIMER_MS)).unref();

/** One handler per Task state, by state name as the library keys them. Refuses what is not served. */
export function taskHandlers({ States }: AslDefinition, lambdas: Record<string, LocalLambdaHandler>, sqs: SQSClient) {
  const handlers = new Map<string, TaskHandler>();
  for (const [name, state] of Object.entries(States)) {
    const refuse = (what: string) => new Error(`State "${name}": ${what} is not served locally`);
    // The library would run their inner Task states on AWS.
    if (state.Type === 'Parallel' || state.Type === 'Map') throw refuse(`a ${state.Type} state`);
    if (state.Type !== 'Task') continue;
    if (state.Resource === 'arn:aws:states:::sqs:sendMessage') {
      handlers.set(name, (input) => sendMessage(sqs, input));
    } else if (state.Resource !== LAMBDA_INVOKE_WAIT) {
      const lambda = lambdas[state.Resource ?? ''];
      if (!lambda) throw refuse(`Resource "${state.Resource}" (a Lambda ARN without handler?)`);
      // The library reads it after Parameters, AWS before: served on token waits only (libraryDefinition).
      if (state.TimeoutSecondsPath) throw refuse('TimeoutSecondsPath on a Lambda task');
      handlers.set(name, (input) => invokeLambda(lambda, input));
    } else {
      const lambda = lambdas[String(state.Parameters?.FunctionName)];
      if (!lambda) throw refuse(`FunctionName "${String(state.Parameters?.FunctionName)}"`);
      // AWS gives the token there only ("Discover service integration patterns in Step Functions").
      if (!JSON.stringify(state.Parameters).includes('"$$.Task.Token"')) {
        throw refuse('a .waitForTaskToken state without $$.Task.Token in its Parameters');
      }
      handlers.set(name, tokenWait(lambda, state.HeartbeatSeconds));
    }
  }
  return handlers;
}

/**
 * lambda:invoke.waitForTaskToken invokes the function with Payload, then waits for the token ("Invoke an AWS
 * Lambda function with Step Functions"). The wait opens first, as the function may answer before it returns; a
 * function error fails the state at once; the heartbeat clock starts once the function has returned.
 */
function tokenWait(lambda: LocalLambdaHandler, heartbeatSeconds: number | undefined): TaskHandler {
  return async (carrier, scope) => {
    const { [PARAMETERS]: parameters, [TIMEOUT]: seconds } = carrier as Record<string, { Payload?: unknown }>;
    if (!Number.isInteger(seconds) || Number(seconds) < 1) {
      throw namedError('States.Runtime', `TimeoutSecondsPath gave ${JSON.stringify(seconds)}`, true);
    }
    const waiting = scope.waitForToken(Number(seconds) * 1000, heartbeatSeconds && heartbeatSeconds * 1000);
    const call = invokeLambda(lambda, parameters?.Payload);
    scope.track(call);
    call.then(() => waiting.beat(true), waiting.fail);
    return waiting.result;
  };
}

/** A .waitForTaskToken attempt waiting on its token: the first outcome (answer, error, timeout, end) wins. */
export function waitingTask(timeoutMs: number, heartbeatMs: number | undefined, errors: TimeoutErrors) {
  let settle!: (error: Error | undefined, output?: unknown) => void;
  const result = new Promise((resolve, reject) => (settle = (e, output) => (e ? reject(e) : resolve(output))));
  let heartbeat: NodeJS.Timeout | undefined;
  let returned = false;
  const close = (error: Error | undefined, output?: unknown) => {
    if (!task.open) return;
    task.open = false;
    clearTimeout(timeout);
    clearTimeout(heartbeat);
    settle(error, output);
  };
  const task = {
    open: true,
    result,
    succeed: (output: unknown) => close(undefined, output),
    fail: (error: Error) => close(error),
    /** SendTaskHeartbeat, or the function's return: (re)starts the HeartbeatSeconds clock, which runs from then. */
    beat(functionReturned = false) {
      returned ||= functionReturned;
      if (!task.open || !returned || heartbeatMs === undefined) return;
      clearTimeout(heartbeat);
      heartbeat = unrefTimer(heartbeatMs, () => close(errors.heartbeat()));
    },
  };
  const timeout = unrefTimer(timeoutMs, () => close(errors.timeout()));
  return task;
}

/**
 * The event and the result cross a JSON boundary, as on Lambda. A thrown error's `name` is the error Retry/Catch
 * match, Lambda's error payload its Cause ("Handling errors in Step Functions workflows"); Lambda's refusal of the
 * invoke is `Lambda.TooManyRequestsException` ("Handle Lambda service exceptions", Step Functions guide).
 */
async function invokeLambda(handler: LocalLambdaHandler, event: unknown): Promise<JsonValue> {
  let result: unknown;
  try {
    result = await handler(toJson(event));
  } catch (err) {
    if (isThrottle(err)) {
      const cause = `${err.message} (Service: Lambda, Status Code: 429, Error Code: TooManyRequestsException)`;
      throw namedError('Lambda.TooManyRequestsException', cause);
    }
    const { name, message, stack = '' } = err instanceof Error ? err : new Error(String(err));
    throw namedError(name, JSON.stringify({ errorType: name, errorMessage: message, trace: stack.split('\n') }));
  }
  return toJson(result);
}

/**
 * A MessageBody that is not a string is sent as JSON ("Send messages to an Amazon SQS queue with Step Functions").
 * Errors as AWS names them: SQS.AmazonSQSException when SQS answered, SQS.SdkClientException when it never did.
 */
async function sendMessage(sqs: SQSClient, input: unknown): Promise<JsonValue> {
  const params = { ...(input as SendMessageCommandInput) };
  if (typeof params.MessageBody !== 'string') params.MessageBody = JSON.stringify(params.MessageBody);
  try {
    const { $metadata: _metadata, ...output } = await sqs.send(new SendMessageCommand(params));
    return toJson(output);
  } catch (err) {
    const answered = err instanceof Error && '$metadata' in err;
    throw namedError(answered ? 'SQS.AmazonSQSException' : 'SQS.SdkClientException', (err as Error).message);
  }
}

const toJson = (value: unknown) => JSON.parse(JSON.stringify(value ?? null)) as JsonValue;

/**
 * The definition the library runs. Without the machine's TimeoutSeconds: executions time themselves out, as
 * StopExecution ends them. A .waitForTaskToken state is timed by its waitingTask, not by the library: its
 * Parameters carry its timeout, read from the state input as AWS reads TimeoutSecondsPath. States.Timeout also
 * names a missed heartbeat ("Error names", Amazon States Language spec): its rules match States.HeartbeatTimeout.
 */
export function libraryDefinition({ TimeoutSeconds: _machine, ...definition }: AslDefinition): StateMachineDefinition {
  const withHeartbeat = (rules: Rules) =>
    rules.map((r) =>
      r.ErrorEquals.includes('States.Timeout') ? { ...r, ErrorEquals: [...r.ErrorEquals, HEARTBEAT] } : r,
    );
  const states = Object.entries(definition.States).map(([name, state]) => {
    if (state.Resource !== LAMBDA_INVOKE_WAIT) return [name, state];
    const { TimeoutSecondsPath: path, TimeoutSeconds: seconds = TIMER_OFF_SECONDS, Retry, Catch, ...rest } = state;
    const timeout = path === undefined ? { [TIMEOUT]: seconds } : { [`${TIMEOUT}.$`]: path };
    // Retry and Catch only when present: the library reads `"Retry" in state` as "has retriers".
    const rules = { ...(Retry && { Retry: withHeartbeat(Retry) }), ...(Catch && { Catch: withHeartbeat(Catch) }) };
    const Parameters = { [PARAMETERS]: state.Parameters, ...timeout };
    return [name, { ...rest, ...rules, TimeoutSeconds: TIMER_OFF_SECONDS, Parameters }];
  });
  return { ...definition, States: Object.fromEntries(states) } as unknown as StateMachineDefinition;
}

let timeoutErrors: Promise<TimeoutErrors> | undefined;

/**
 * Timeouts of the library's own class, which it does not export: States.TaskFailed matches any task error but a
 * timeout (ASL spec), which the library tells by class. Taken once from a one-state run that times out at once.
 */
export function libraryTimeoutErrors(): Promise<TimeoutErrors> {
  timeoutErrors ??= (async () => {
    const States = { Probe: { Type: 'Task', Resource: 'probe', TimeoutSeconds: 0.001, End: true } } as const;
    const probe = new StateMachine({ StartAt: 'Probe', States }, { validationOptions: { noValidate: true } }); // 0.001 s
    const run = probe.run({}, { overrides: { taskResourceLocalHandlers: { Probe: () => new Promise(() => {}) } } });
    const failure = await run.result.catch((err: unknown) => (err instanceof ExecutionError ? err.cause : err));
    if (!(failure instanceof Error) || failure.name !== 'States.Timeout') {
      throw new Error('aws-local-stepfunctions no longer times a task out with its States.Timeout error');
    }
    const TimeoutError = failure.constructor as new () => Error;
    return {
      timeout: () => new TimeoutError(),
      heartbeat: () => Object.assign(new TimeoutError(), { name: HEARTBEAT, message: HEARTBEAT }),
    };
  })();
  return timeoutErrors;
}
