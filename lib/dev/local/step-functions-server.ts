/**
 * A local stand-in for AWS Step Functions, so the local stack runs statemachine/task-lifecycle.asl.json as is: an
 * HTTP server speaking the AWS JSON 1.0 protocol `@aws-sdk/client-sfn` sends, executions run in-process by
 * `aws-local-stepfunctions` (Retry/Catch/Wait/Choice, task timeouts; its Task states: step-functions-tasks.ts).
 * Served: the API actions our code sends, errors named and worded as AWS's (Step Functions API reference).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { ExecutionError, StateMachine } from 'aws-local-stepfunctions';
import { libraryDefinition, libraryTimeoutErrors, taskHandlers } from './step-functions-tasks.js';
import { namedError, unrefTimer, waitingTask } from './step-functions-tasks.js';
import type { AslDefinition, JsonValue, LocalLambdaHandler, TaskHandler, TaskScope } from './step-functions-tasks.js';
import type { TimeoutErrors, WaitingTask } from './step-functions-tasks.js';

export { libraryTimeoutErrors, type LocalLambdaHandler } from './step-functions-tasks.js';

/** Aborts running executions (their waits too) and stops the server; idle() waits for the handlers in flight. */
export type LocalStepFunctions = Awaited<ReturnType<typeof startLocalStepFunctions>>;

export async function startLocalStepFunctions(o: LocalStepFunctionsOptions) {
  const definition = o.definition as AslDefinition;
  const handlers = taskHandlers(definition, o.lambdaHandlers, o.sqs);
  const machine = new StateMachine(libraryDefinition(definition));
  const executions = new Executions(machine, handlers, o, await libraryTimeoutErrors());
  const server = createServer((req, res) => void handleHttp(req, res, executions));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return {
    /** Base URL to give SFNClient as `endpoint`. */
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      executions.abortAll('Local Step Functions server closed');
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections(); // SDK clients keep connections alive: close() would wait for them
      await closed;
    },
    /** Every execution, oldest first. */
    executions: () => executions.snapshot(),
    /** Resolves when no execution is running and no task handler is still in flight. */
    idle: () => executions.idle(),
  };
}

/** A POST naming its action in X-Amz-Target; errors as `{ __type, message }`, the SDK's named exceptions. */
async function handleHttp(req: IncomingMessage, res: ServerResponse, executions: Executions): Promise<void> {
  const send = (status: number, body: unknown = {}) =>
    res.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0' }).end(JSON.stringify(body));
  try {
    const target = String(req.headers['x-amz-target']);
    const action = target.startsWith('AWSStepFunctions.') ? target.slice('AWSStepFunctions.'.length) : '';
    const operation = Object.hasOwn(executions.operations, action) ? executions.operations[action] : undefined;
    if (req.method !== 'POST' || !operation) throw apiError('UnknownOperationException', `Not served: '${target}'`);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const input = parseJson(Buffer.concat(chunks).toString() || '{}', 'SerializationException', 'Body');
    send(200, operation(input as ApiInput));
  } catch (err) {
    const { name, message } = err as Error;
    send(err instanceof ApiError ? 400 : 500, { __type: err instanceof ApiError ? name : 'InternalFailure', message });
  }
}

export interface LocalStepFunctionsOptions {
  /** ASL definition, `${Token}`s filled in. JSONPath only; taskHandlers says what else is refused. */
  definition: Record<string, unknown>;
  stateMachineArn: string;
  /** Lambda function ARN, exactly as in the ASL (Resource, or FunctionName) → in-process handler. */
  lambdaHandlers: Record<string, LocalLambdaHandler>;
  /** For sqs:sendMessage states. */
  sqs: SQSClient;
  /** Milliseconds a state's retriers wait instead of their backoff, by state name (the library's option). */
  retryIntervalOverrides?: Record<string, number | number[]>;
  /** History events an execution may have before it fails (AWS: HISTORY_EVENT_LIMIT); tests lower it. */
  historyEventLimit?: number;
}

/** "Maximum execution history size: 25,000 events"; past it the execution fails ("Step Functions service quotas"). */
export const HISTORY_EVENT_LIMIT = 25_000;

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'TIMED_OUT';

/** As DescribeExecution gives it, and its history counted (countHistory): `transitions` are what AWS bills. */
export type ExecutionRecord = Record<'executionArn' | 'stateMachineArn' | 'name' | 'input', string> &
  Partial<Record<'output' | 'error' | 'cause', string>> &
  Record<'historyEvents' | 'transitions', number> & { status: ExecutionStatus; startDate: Date; stopDate?: Date };

class ApiError extends Error {}
const apiError = (type: string, message: string) => Object.assign(new ApiError(message), { name: type });

function parseJson(text: string, type: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw apiError(type, `${what}: '${(err as Error).message}'`);
  }
}

type ApiInput = Record<string, unknown>;
const FRESH = { status: 'RUNNING', historyEvents: 0, transitions: 0 } as const;

/** `waiting`: its task waiting on a token (one at a time: no Parallel or Map); `ended`: the library's run ended. */
type Execution = { record: ExecutionRecord; waiting?: WaitingTask; abort(): void; ended: Promise<void> };

class Executions {
  private readonly byArn = new Map<string, Execution>();
  /** Every token handed out; a settled task stays, so its token answers TaskTimedOut rather than InvalidToken. */
  private readonly byToken = new Map<string, WaitingTask>();
  /** Handler calls not yet settled: a late one can outlive an abort or a timeout, as a Lambda does. */
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(
    private readonly machine: StateMachine,
    private readonly handlers: Map<string, TaskHandler>,
    private readonly options: LocalStepFunctionsOptions,
    private readonly timeoutErrors: TimeoutErrors,
  ) {}

  readonly operations: Record<string, (input: ApiInput) => unknown> = {
    StartExecution: (input) => this.start(input),
    DescribeExecution: ({ executionArn }) => {
      const { record: r } = this.find(executionArn);
      return { ...r, startDate: epochSeconds(r.startDate), stopDate: epochSeconds(r.stopDate) };
    },
    StopExecution: ({ executionArn, error, cause }) => {
      const execution = this.find(executionArn);
      this.finish(execution, { status: 'ABORTED', error, cause } as Partial<ExecutionRecord>); // or its own end
      return { stopDate: epochSeconds(execution.record.stopDate) };
    },
    SendTaskSuccess: (input) => {
      const token = member(input, 'taskToken', true);
      const output = parseJson(member(input, 'output', true)!, 'InvalidOutput', 'Invalid Output');
      this.waitingTask(token).succeed(output);
    },
    // Matched by Retry/Catch like a function error; a catcher's output is { Error, Cause }.
    SendTaskFailure: (input) => {
      const [error, cause] = [member(input, 'error') ?? '', member(input, 'cause') ?? ''];
      this.waitingTask(member(input, 'taskToken', true)).fail(namedError(error, cause));
    },
    SendTaskHeartbeat: (input) => this.waitingTask(member(input, 'taskToken', true)).beat(),
  };

  readonly snapshot = () => [...this.byArn.values()].map((e): ExecutionRecord => ({ ...e.record }));

  async idle(): Promise<void> {
    const running = () => [...this.byArn.values()].filter((e) => e.record.status === 'RUNNING').map((e) => e.ended);
    while (this.inflight.size > 0 || running().length > 0) await Promise.allSettled([...this.inflight, ...running()]);
  }

  abortAll(cause: string): void {
    for (const execution of this.byArn.values()) this.finish(execution, { status: 'ABORTED', cause });
  }

  private start({ stateMachineArn, name = randomUUID(), input = '{}' }: ApiInput) {
    const machineArn = this.options.stateMachineArn;
    if (stateMachineArn !== machineArn) {
      throw apiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${String(stateMachineArn)}'`);
    }
    // 1-80 characters, none of whitespace, brackets, wildcards, these specials or control characters.
    if (typeof name !== 'string' || !/^[^\s\p{Cc}<>{}[\]?*"#%\\^|~`$&,;:/]{1,80}$/u.test(name)) {
      throw apiError('InvalidName', `Invalid Name: '${String(name)}'`);
    }
    const executionArn = `${machineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const existing = this.byArn.get(executionArn)?.record;
    // Same name and input while it runs: that one; any other reuse of a name is refused (StartExecution, `name`).
    if (existing && (existing.status !== 'RUNNING' || existing.input !== input)) {
      throw apiError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    const parsed = parseJson(String(input), 'InvalidExecutionInput', 'Invalid State Machine Execution Input');
    const { startDate } = existing ?? this.launch(executionArn, name, String(input), parsed);
    return { executionArn, startDate: epochSeconds(startDate) };
  }

  private launch(executionArn: string, name: string, input: string, parsed: unknown): ExecutionRecord {
    const { stateMachineArn, retryIntervalOverrides, definition } = this.options;
    const record: ExecutionRecord = { ...FRESH, executionArn, stateMachineArn, name, input, startDate: new Date() };
    const execution = { record } as Execution;
    // `$$.Task.Token`, which the library reads as it evaluates a state's Parameters (once per reference and per
    // attempt): the first read mints one, later reads get it until the state's handler takes it, so each attempt
    // has its own. 32 random bytes: unguessable.
    let pending: string | undefined;
    const mint = () => (pending ??= randomBytes(32).toString('base64url'));
    const scope: TaskScope = {
      track: (call) => this.track(call),
      waitForToken: (timeoutMs, heartbeatMs) => {
        const task = (execution.waiting = waitingTask(timeoutMs, heartbeatMs, this.timeoutErrors));
        this.byToken.set(mint(), task);
        pending = undefined;
        return task;
      },
    };
    const live = (handler: TaskHandler) => (taskInput: JsonValue) => {
      // The library still retries after an abort (its retry sleep just returns early): this ends that.
      if (record.status !== 'RUNNING') throw namedError('States.Runtime', 'The execution has ended', true);
      return this.track(handler(taskInput, scope)) as Promise<JsonValue>;
    };
    const taskResourceLocalHandlers = Object.fromEntries([...this.handlers].map(([state, h]) => [state, live(h)]));
    const context = { Task: Object.defineProperty({}, 'Token', { get: mint, enumerable: true }) };
    const overrides = { taskResourceLocalHandlers, retryIntervalOverrides };
    const run = this.machine.run(parsed as JsonValue, { overrides, context });
    execution.abort = run.abort;
    execution.ended = run.result.then(
      (output) => this.finish(execution, { status: 'SUCCEEDED', output: JSON.stringify(output) }),
      (err: unknown) => this.finish(execution, failure(err)),
    );
    this.byArn.set(executionArn, execution);
    void this.countHistory(execution, run.eventLogs);
    // Past the machine's TimeoutSeconds: TIMED_OUT with States.Timeout (Amazon States Language, "State machine
    // structure"). Handlers in flight run on, as a Lambda does.
    const seconds = (definition as AslDefinition).TimeoutSeconds;
    const cause = `The execution ran longer than the state machine's TimeoutSeconds (${seconds} s)`;
    const timeout = { status: 'TIMED_OUT', error: 'States.Timeout', cause } as const;
    const timer = seconds && unrefTimer(seconds * 1000, () => this.finish(execution, timeout));
    void execution.ended.finally(() => clearTimeout(timer));
    return record;
  }

  /**
   * Counts the history as AWS writes it, at least: a Task state's entry is 5 events (entered, scheduled, started,
   * its outcome, exited), each retry 4 more; any other state or execution event 1. Past the limit it fails.
   */
  private async countHistory(execution: Execution, events: AsyncGenerator<{ type: string; state?: { type: string } }>) {
    const limit = this.options.historyEventLimit ?? HISTORY_EVENT_LIMIT;
    const { record } = execution;
    const cause = `The execution history reached ${limit} events, the Step Functions quota`;
    try {
      for await (const { type, state } of events) {
        const task = state?.type === 'Task';
        if (type === 'StateEntered' || type === 'StateRetried') record.transitions += 1;
        record.historyEvents += task && type === 'StateEntered' ? 5 : task && type === 'StateRetried' ? 4 : 1;
        if (record.historyEvents > limit) this.finish(execution, { status: 'FAILED', error: 'States.Runtime', cause });
      }
    } catch {
      // The log ends with the execution, however it ends.
    }
  }

  /**
   * A token never issued is an InvalidToken; one whose task no longer waits (settled, timed out, its execution
   * ended) TaskTimedOut (SendTaskSuccess API reference). TaskDoesNotExist is about activities, not served here.
   */
  private waitingTask(token: string | undefined): WaitingTask {
    const task = this.byToken.get(token!);
    if (!task) throw apiError('InvalidToken', 'Invalid Token: not a task token this server issued');
    if (!task.open) throw apiError('TaskTimedOut', "Task Timed Out: 'Provided task does not exist anymore'");
    return task;
  }

  /**
   * The first outcome wins: the run's end, a stop, a timeout. The run is aborted (a no-op once it has ended), its
   * waiting task closed with an error no Retry or Catch matches, so the state is not tried again.
   */
  private finish({ record, waiting, abort }: Execution, outcome: Partial<ExecutionRecord>): void {
    if (record.status !== 'RUNNING') return;
    Object.assign(record, outcome, { stopDate: new Date() });
    waiting?.fail(namedError('States.Runtime', 'The execution has ended', true));
    abort();
  }

  private track<T>(call: Promise<T>): Promise<T> {
    this.inflight.add(call);
    const forget = () => this.inflight.delete(call);
    call.then(forget, forget);
    return call;
  }

  private find(executionArn: unknown): Execution {
    const execution = this.byArn.get(String(executionArn));
    if (!execution) throw apiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${String(executionArn)}'`);
    return execution;
  }
}

/** The failing state's error and cause (a Fail state's, or a task's), as DescribeExecution gives them. */
function failure(err: unknown): Partial<ExecutionRecord> {
  const cause = err instanceof ExecutionError && err.cause instanceof Error ? err.cause : err;
  if (cause instanceof Error) return { status: 'FAILED', error: cause.name, cause: cause.message };
  return { status: 'FAILED', error: 'States.Runtime', cause: String(cause) };
}

/** awsJson1_0 timestamps are epoch seconds (fractions allowed). */
const epochSeconds = (date: Date | undefined) => date && date.getTime() / 1000;

/** SendTask* members' length limits, [min, max] (API reference); `output` counts UTF-8 bytes. */
const LIMITS = { taskToken: [1, 2048], output: [0, 262_144], error: [0, 256], cause: [0, 32_768] } as const;

/** A string member within its limits, else a ValidationException worded as AWS's ("Common Errors"). */
function member(input: ApiInput, name: keyof typeof LIMITS, required = false): string | undefined {
  const [value, [min, max]] = [input[name] ?? undefined, LIMITS[name]];
  if (typeof (value ?? '') !== 'string') throw apiError('SerializationException', `${name}: not a string`);
  const length = name === 'output' ? Buffer.byteLength(String(value ?? '')) : [...String(value ?? '')].length;
  const rule =
    value === undefined
      ? required && 'not be null'
      : (length < min && `have length greater than or equal to ${min}`) ||
        (length > max && `have length less than or equal to ${max}`);
  if (!rule) return value as string | undefined;
  const message = `1 validation error detected: Value at '${name}' failed to satisfy constraint: Member must ${rule}`;
  throw apiError('ValidationException', message);
}
