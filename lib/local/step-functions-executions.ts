/**
 * The executions of the local Step Functions and the API actions our code sends: started, described, stopped,
 * timed out and counted as AWS does, and their task tokens answered (SendTaskSuccess/Failure/Heartbeat).
 * Errors are the API's `{ __type, message }`, named and worded as AWS's (Step Functions API reference).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { ExecutionError, type StateMachine } from 'aws-local-stepfunctions';
import { namedError, unrefTimer, waitingTask } from './step-functions-tasks.js';
import type { AslDefinition, JsonValue, LocalLambdaHandler, TaskHandler, TaskScope } from './step-functions-tasks.js';
import type { TimeoutErrors, WaitingTask } from './step-functions-tasks.js';

export interface LocalStepFunctionsOptions {
  /** ASL definition, `${Token}`s filled in. JSONPath only; taskHandlers says what else is refused. */
  definition: Record<string, unknown>;
  /** e.g. arn:aws:states:us-east-1:000000000000:stateMachine:task-lifecycle */
  stateMachineArn: string;
  /** Lambda function ARN, exactly as in the ASL (Resource, or FunctionName) → in-process handler. */
  lambdaHandlers: Record<string, LocalLambdaHandler>;
  /** Pointed at the local SQS, for sqs:sendMessage states. */
  sqs: SQSClient;
  /** Milliseconds a state's retriers wait instead of their backoff, by state name (the library's option). */
  retryIntervalOverrides?: Record<string, number | number[]>;
  /** History events an execution may have before it fails (AWS: HISTORY_EVENT_LIMIT); tests lower it. */
  historyEventLimit?: number;
}

/** "Maximum execution history size: 25,000 events"; past it the execution fails ("Step Functions service quotas"). */
export const HISTORY_EVENT_LIMIT = 25_000;

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'TIMED_OUT';

/** As DescribeExecution gives it (`input` exactly as started, `output` JSON), with counts of its history. */
export interface ExecutionRecord {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: ExecutionStatus;
  startDate: Date;
  stopDate?: Date;
  input: string;
  output?: string;
  error?: string;
  cause?: string;
  /** History events so far, counted as AWS would at least (see countHistory). */
  historyEvents: number;
  /** States entered and retries: what AWS bills as state transitions. */
  transitions: number;
}

export class ApiError extends Error {}
export const apiError = (type: string, message: string) => Object.assign(new ApiError(message), { name: type });

export function parseJson(text: string, type: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw apiError(type, `${what}: '${(err as Error).message}'`);
  }
}

export type ApiInput = Record<string, unknown>;

interface Execution {
  record: ExecutionRecord;
  /** Handler calls not yet settled: a late one can outlive an abort or a timeout, as a Lambda does. */
  inflight: Set<Promise<unknown>>;
  /** Its tasks waiting on a token: closed when the execution ends. */
  waiting: Set<WaitingTask>;
  abort(): void;
  /** Settles once the library has ended the run (handlers may still be in flight). */
  ended: Promise<void>;
}

export class Executions {
  private readonly byArn = new Map<string, Execution>();
  /** Every token handed out; a settled task stays, so its token answers TaskTimedOut rather than InvalidToken. */
  private readonly byToken = new Map<string, WaitingTask>();

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
      // A closed execution keeps its outcome: a cancel can race the execution's own end.
      this.abort(execution, { status: 'ABORTED', error, cause } as Partial<ExecutionRecord>);
      return { stopDate: epochSeconds(execution.record.stopDate) };
    },
    SendTaskSuccess: (input) => {
      const token = member(input, 'taskToken', true);
      const output = parseJson(member(input, 'output', true)!, 'InvalidOutput', 'Invalid Output');
      this.waitingTask(token).succeed(output);
    },
    // Matched by Retry/Catch like a function error; a catcher's output is { Error, Cause }.
    SendTaskFailure: (input) => {
      const [error, cause] = [member(input, 'error', false) ?? '', member(input, 'cause', false) ?? ''];
      this.waitingTask(member(input, 'taskToken', true)).fail(namedError(error, cause));
    },
    SendTaskHeartbeat: (input) => this.waitingTask(member(input, 'taskToken', true)).beat(),
  };

  snapshot(): ExecutionRecord[] {
    return [...this.byArn.values()].map((e) => ({ ...e.record }));
  }

  async idle(): Promise<void> {
    for (;;) {
      const pending = [...this.byArn.values()].filter((e) => e.record.status === 'RUNNING' || e.inflight.size > 0);
      if (pending.length === 0) return;
      await Promise.all(pending.map((e) => e.ended.then(() => Promise.allSettled([...e.inflight]))));
    }
  }

  abortAll(cause: string): void {
    for (const e of this.byArn.values()) if (e.record.status === 'RUNNING') this.abort(e, { status: 'ABORTED', cause });
  }

  private start({ stateMachineArn, name = randomUUID(), input = '{}' }: ApiInput) {
    if (stateMachineArn !== this.options.stateMachineArn) {
      throw apiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${String(stateMachineArn)}'`);
    }
    // 1-80 characters, none of whitespace, brackets, wildcards, these specials or control characters.
    if (typeof name !== 'string' || !/^[^\s\p{Cc}<>{}[\]?*"#%\\^|~`$&,;:/]{1,80}$/u.test(name)) {
      throw apiError('InvalidName', `Invalid Name: '${String(name)}'`);
    }
    const executionArn = `${this.options.stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const existing = this.byArn.get(executionArn)?.record;
    // The same name and input while the first runs answers with that one; any other reuse of a name is refused
    // (StartExecution API reference, `name`).
    if (existing && (existing.status !== 'RUNNING' || existing.input !== input)) {
      throw apiError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    const parsed = parseJson(String(input), 'InvalidExecutionInput', 'Invalid State Machine Execution Input');
    const started = { executionArn, stateMachineArn: this.options.stateMachineArn, name, input: String(input) };
    const record = existing ?? this.launch(started, parsed);
    return { executionArn, startDate: epochSeconds(record.startDate) };
  }

  private launch(
    started: Pick<ExecutionRecord, 'executionArn' | 'stateMachineArn' | 'name' | 'input'>,
    input: unknown,
  ) {
    const record: ExecutionRecord = {
      ...started,
      status: 'RUNNING',
      startDate: new Date(),
      historyEvents: 0,
      transitions: 0,
    };
    const [inflight, waiting] = [new Set<Promise<unknown>>(), new Set<WaitingTask>()];
    // `$$.Task.Token`, which the library reads as it evaluates a state's Parameters (once per reference and per
    // attempt): the first read mints one, later reads get it until the state's handler takes it, so each attempt
    // has its own. 32 random bytes: unguessable.
    let pending: string | undefined;
    const mint = () => (pending ??= randomBytes(32).toString('base64url'));
    const Task = Object.defineProperty({}, 'Token', { get: mint, enumerable: true });
    const scope: TaskScope = {
      track: (call) => void track(inflight, call),
      waitForToken: (timeoutMs, heartbeatMs) => {
        const task = waitingTask(timeoutMs, heartbeatMs, this.timeoutErrors);
        this.byToken.set(mint(), task);
        pending = undefined;
        waiting.add(task);
        return task;
      },
    };
    const handlers = Object.fromEntries(
      [...this.handlers].map(([state, handler]) => [
        state,
        (taskInput: JsonValue) => {
          // The library still retries after an abort (its retry sleep just returns early): this ends that.
          if (record.status !== 'RUNNING') throw namedError('States.Runtime', 'The execution has ended', true);
          return track(inflight, handler(taskInput, scope)) as Promise<JsonValue>;
        },
      ]),
    );
    const { retryIntervalOverrides, definition } = this.options;
    const overrides = { taskResourceLocalHandlers: handlers, retryIntervalOverrides };
    const run = this.machine.run(input as JsonValue, { overrides, context: { Task } });
    const execution: Execution = {
      record,
      inflight,
      waiting,
      abort: run.abort,
      ended: run.result.then(
        (output) => this.finish(execution, { status: 'SUCCEEDED', output: JSON.stringify(output) }),
        (err: unknown) => this.finish(execution, failure(err)),
      ),
    };
    this.byArn.set(record.executionArn, execution);
    void this.countHistory(execution, run.eventLogs);
    // Past the machine's TimeoutSeconds: TIMED_OUT with States.Timeout (Amazon States Language, "State machine
    // structure"). Handlers in flight run on, as a Lambda does.
    const seconds = (definition as AslDefinition).TimeoutSeconds;
    const cause = `The execution ran longer than the state machine's TimeoutSeconds (${seconds} s)`;
    const timeout = { status: 'TIMED_OUT', error: 'States.Timeout', cause } as const;
    const timer = seconds && unrefTimer(seconds * 1000, () => this.abort(execution, timeout));
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
        if (record.historyEvents > limit) this.abort(execution, { status: 'FAILED', error: 'States.Runtime', cause });
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

  /** First outcome wins. Waiting tasks close with an error no Retry or Catch matches: the state is not tried again. */
  private finish({ record, waiting }: Execution, outcome: Partial<ExecutionRecord>): void {
    if (record.status !== 'RUNNING') return;
    Object.assign(record, outcome, { stopDate: new Date() });
    for (const task of waiting) task.fail(namedError('States.Runtime', 'The execution has ended', true));
  }

  private abort(execution: Execution, outcome: Partial<ExecutionRecord>): void {
    if (execution.record.status !== 'RUNNING') return;
    this.finish(execution, outcome);
    execution.abort();
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

function track<T>(inflight: Set<Promise<unknown>>, call: Promise<T>): Promise<T> {
  inflight.add(call);
  const forget = () => inflight.delete(call);
  call.then(forget, forget);
  return call;
}

/** awsJson1_0 timestamps are epoch seconds (fractions allowed). */
const epochSeconds = (date: Date | undefined) => date && date.getTime() / 1000;

/** SendTask* members' length limits (API reference); `output` counts UTF-8 bytes. */
const LIMITS: Record<string, number> = { taskToken: 2048, output: 262_144, error: 256, cause: 32_768 };

/** A string member within its limits, else a ValidationException worded as AWS's ("Common Errors"). */
function member(input: ApiInput, name: string, required: boolean): string | undefined {
  const [value, max] = [input[name], LIMITS[name]!];
  const invalid = (rule: string) =>
    apiError(
      'ValidationException',
      `1 validation error detected: Value at '${name}' failed to satisfy constraint: ${rule}`,
    );
  if (value === undefined || value === null) {
    if (required) throw invalid('Member must not be null');
    return undefined;
  }
  if (typeof value !== 'string') throw apiError('SerializationException', `'${name}' must be a string`);
  const length = name === 'output' ? Buffer.byteLength(value) : [...value].length;
  if (length > max) throw invalid(`Member must have length less than or equal to ${max}`);
  if (name === 'taskToken' && length < 1) throw invalid('Member must have length greater than or equal to 1');
  return value;
}
