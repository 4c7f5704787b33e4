/**
 * The executions of the local Step Functions and the API actions our code sends: started, described, stopped,
 * timed out and counted as AWS does, and their task tokens answered (SendTaskSuccess/Failure/Heartbeat).
 * Errors are the API's `{ __type, message }`, named and worded as AWS's (Step Functions API reference).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { ExecutionError, type StateMachine } from 'aws-local-stepfunctions';
import { namedError, unrefTimer, WaitingTask } from './step-functions-tasks.js';
import type {
  AslDefinition,
  JsonValue,
  LocalLambdaHandler,
  TaskHandler,
  TimeoutErrors,
} from './step-functions-tasks.js';

export interface LocalStepFunctionsOptions {
  /** ASL definition, `${Token}`s filled in. JSONPath only; taskHandlers says what else is refused. */
  definition: Record<string, unknown>;
  /** e.g. arn:aws:states:us-east-1:000000000000:stateMachine:task-lifecycle */
  stateMachineArn: string;
  /** Lambda function ARN, exactly as it appears in the ASL (Resource, or FunctionName) → in-process handler. */
  lambdaHandlers: Record<string, LocalLambdaHandler>;
  /** Pointed at the local SQS, for sqs:sendMessage states. */
  sqs: SQSClient;
  /** Milliseconds a state's retriers wait instead of their backoff, by state name: the library's option. */
  retryIntervalOverrides?: Record<string, number | number[]>;
  /** History events an execution may have before it fails (AWS: HISTORY_EVENT_LIMIT); tests lower it. */
  historyEventLimit?: number;
}

/** "Maximum execution history size: 25,000 events"; past it the execution fails ("Step Functions service quotas"). */
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

export class ApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
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
    DescribeExecution: (input) => {
      const { record } = this.find(input.executionArn);
      return { ...record, startDate: epochSeconds(record.startDate), stopDate: epochSeconds(record.stopDate) };
    },
    StopExecution: (input) => {
      const execution = this.find(input.executionArn);
      // A closed execution keeps its outcome: a cancel can race the execution's own end.
      const { error, cause } = input as { error?: string; cause?: string };
      if (execution.record.status === 'RUNNING') this.abort(execution, { status: 'ABORTED', error, cause });
      return { stopDate: epochSeconds(execution.record.stopDate) };
    },
    SendTaskSuccess: (input) => {
      const [token, output] = [member(input, 'taskToken', 2048, true), member(input, 'output', 262_144, true)];
      let result: unknown;
      try {
        result = JSON.parse(output!);
      } catch (err) {
        throw new ApiError('InvalidOutput', `Invalid Output: '${(err as Error).message}'`);
      }
      this.waitingTask(token).succeed(result);
      return {};
    },
    SendTaskFailure: (input) => {
      const token = member(input, 'taskToken', 2048, true);
      const [error, cause] = [member(input, 'error', 256), member(input, 'cause', 32_768)];
      // Matched by Retry/Catch like a function error; a catcher's output is { Error, Cause }.
      this.waitingTask(token).fail(namedError(error ?? '', cause ?? ''));
      return {};
    },
    SendTaskHeartbeat: (input) => {
      this.waitingTask(member(input, 'taskToken', 2048, true)).beat();
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
      await Promise.all(pending.map((e) => e.ended.then(() => Promise.allSettled([...e.inflight]))));
    }
  }

  abortAll(cause: string): void {
    for (const e of this.byArn.values()) if (e.record.status === 'RUNNING') this.abort(e, { status: 'ABORTED', cause });
  }

  private start(input: ApiInput) {
    const { stateMachineArn } = this.options;
    if (input.stateMachineArn !== stateMachineArn) {
      throw new ApiError(
        'StateMachineDoesNotExist',
        `State Machine Does Not Exist: '${String(input.stateMachineArn)}'`,
      );
    }
    // 1-80 characters, none of whitespace, brackets, wildcards, these specials or control characters.
    const name = input.name ?? randomUUID();
    if (typeof name !== 'string' || !/^[^\s\p{Cc}<>{}[\]?*"#%\\^|~`$&,;:/]{1,80}$/u.test(name)) {
      throw new ApiError('InvalidName', `Invalid Name: '${String(name)}'`);
    }
    const rawInput = input.input === undefined ? '{}' : String(input.input);
    const arn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const existing = this.byArn.get(arn);
    // The same name and input while the first runs answers with that one; any other reuse of a name is refused
    // (StartExecution API reference, `name`).
    if (existing && (existing.record.status !== 'RUNNING' || existing.record.input !== rawInput)) {
      throw new ApiError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
    }
    let parsed: JsonValue;
    try {
      parsed = JSON.parse(rawInput) as JsonValue;
    } catch (err) {
      throw new ApiError('InvalidExecutionInput', `Invalid State Machine Execution Input: '${(err as Error).message}'`);
    }
    const { record } = existing ?? this.launch(arn, name, rawInput, parsed);
    return { executionArn: record.executionArn, startDate: epochSeconds(record.startDate) };
  }

  private launch(arn: string, name: string, rawInput: string, input: JsonValue): Execution {
    const { stateMachineArn } = this.options;
    const startDate = new Date();
    const record: ExecutionRecord = {
      executionArn: arn,
      stateMachineArn,
      name,
      status: 'RUNNING',
      startDate,
      input: rawInput,
      historyEvents: 0,
      transitions: 0,
    };
    const inflight = new Set<Promise<unknown>>();
    const waiting = new Set<WaitingTask>();
    // `$$.Task.Token`: the library reads it while it evaluates a state's Parameters (once per reference and per
    // attempt, from a shallow copy of this context): the first read mints one, later reads get it until the
    // state's handler takes it, so each attempt has its own. 32 random bytes: unguessable.
    let pending: string | undefined;
    const Task = {
      get Token() {
        return (pending ??= randomBytes(32).toString('base64url'));
      },
    };
    const scope = {
      track: (call: Promise<unknown>) => void track(inflight, call),
      waitForToken: (timeoutMs: number, heartbeatMs: number | undefined) => {
        const task = new WaitingTask(timeoutMs, heartbeatMs, this.timeoutErrors);
        this.byToken.set(pending!, task);
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
          if (record.status !== 'RUNNING') throw namedError('States.Runtime', `Execution ${arn} has ended`, true);
          return track(inflight, handler(taskInput, scope)) as Promise<JsonValue>;
        },
      ]),
    );
    const { retryIntervalOverrides } = this.options;
    const run = this.machine.run(input, {
      overrides: { taskResourceLocalHandlers: handlers, retryIntervalOverrides },
      context: { Task },
    });
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
    this.byArn.set(arn, execution);
    void this.countHistory(execution, run.eventLogs);
    const seconds = (this.options.definition as AslDefinition).TimeoutSeconds;
    if (seconds !== undefined) {
      // Past the machine's TimeoutSeconds: States.Timeout, status TIMED_OUT (Amazon States Language, "State machine
      // structure"). Handlers in flight run on, as a Lambda does.
      const cause = `The execution ran longer than the state machine's TimeoutSeconds (${seconds} s)`;
      const timer = unrefTimer(seconds * 1000, () =>
        this.abort(execution, { status: 'TIMED_OUT', error: 'States.Timeout', cause }),
      );
      void execution.ended.finally(() => clearTimeout(timer));
    }
    return execution;
  }

  /**
   * Counts the history as AWS writes it, at least: a Task state's entry is 5 events (entered, scheduled, started,
   * its outcome, exited), each retry 4 more; any other state or execution event 1. Past the limit it fails.
   */
  private async countHistory(execution: Execution, events: AsyncGenerator<{ type: string; state?: { type: string } }>) {
    const limit = this.options.historyEventLimit ?? HISTORY_EVENT_LIMIT;
    const { record } = execution;
    try {
      for await (const { type, state } of events) {
        const task = state?.type === 'Task';
        if (type === 'StateEntered' || type === 'StateRetried') record.transitions += 1;
        record.historyEvents += task && type === 'StateEntered' ? 5 : task && type === 'StateRetried' ? 4 : 1;
        if (record.historyEvents > limit && record.status === 'RUNNING') {
          const cause = `The execution history reached ${limit} events, the Step Functions quota`;
          this.abort(execution, { status: 'FAILED', error: 'States.Runtime', cause });
        }
      }
    } catch {
      // The log ends with the execution, however it ends.
    }
  }

  /**
   * AWS answers a token it never issued with InvalidToken, and one whose task no longer waits (settled, timed
   * out, its execution ended) with TaskTimedOut (SendTaskSuccess API reference). TaskDoesNotExist is about
   * activities, which are not served.
   */
  private waitingTask(token: string | undefined): WaitingTask {
    const task = this.byToken.get(token!);
    if (!task) throw new ApiError('InvalidToken', 'Invalid Token: not a task token this server issued');
    if (!task.open) throw new ApiError('TaskTimedOut', "Task Timed Out: 'Provided task does not exist anymore'");
    return task;
  }

  /** First outcome wins. Waiting tasks close with an error no Retry or Catch matches: the state is not tried again. */
  private finish(execution: Execution, outcome: Partial<ExecutionRecord>): void {
    const { record } = execution;
    if (record.status !== 'RUNNING') return;
    Object.assign(record, outcome, { stopDate: new Date() });
    const ended = namedError('States.Runtime', `Execution ${record.executionArn} ended`, true);
    for (const task of execution.waiting) task.fail(ended);
  }

  private abort(execution: Execution, outcome: Partial<ExecutionRecord>): void {
    this.finish(execution, outcome);
    execution.abort();
  }

  private find(executionArn: unknown): Execution {
    const execution = this.byArn.get(String(executionArn));
    if (!execution) throw new ApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${String(executionArn)}'`);
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

/**
 * A string member within its API reference length limit (`output` in UTF-8 bytes), else ValidationException,
 * worded as AWS words it ("Common Errors", Step Functions API reference).
 */
function member(input: ApiInput, name: string, max: number, required = false): string | undefined {
  const value = input[name];
  const invalid = (rule: string) =>
    new ApiError(
      'ValidationException',
      `1 validation error detected: Value at '${name}' failed to satisfy constraint: Member must ${rule}`,
    );
  if (value === undefined || value === null) {
    if (required) throw invalid('not be null');
    return undefined;
  }
  if (typeof value !== 'string') throw new ApiError('SerializationException', `'${name}' must be a string`);
  const length = name === 'output' ? Buffer.byteLength(value) : [...value].length;
  if (name === 'taskToken' && length < 1) throw invalid('have length greater than or equal to 1');
  if (length > max) throw invalid(`have length less than or equal to ${max}`);
  return value;
}
