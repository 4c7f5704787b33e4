/**
 * The executions of the local Step Functions: started, described, stopped, timed out and counted as AWS does,
 * and the task-token actions (SendTaskSuccess/Failure/Heartbeat) on their waiting tasks.
 */
import { randomUUID } from 'node:crypto';
import { ExecutionError, type StateMachine } from 'aws-local-stepfunctions';
import { ApiError, namedError, terminalError } from './step-functions-errors.js';
import { HISTORY_EVENT_LIMIT } from './step-functions-options.js';
import type { ExecutionRecord, JsonValue, LocalStepFunctionsOptions, TaskHandlers } from './step-functions-options.js';
import { TASK_TOKEN_PATH, taskCall } from './step-functions-tasks.js';
import type { AslDefinition, TaskPlan, TaskScope } from './step-functions-tasks.js';
import {
  CAUSE_LIMITS,
  ERROR_LIMITS,
  OUTPUT_LIMITS,
  parseTaskOutput,
  TASK_TOKEN_LIMITS,
  TaskTokens,
  unrefTimer,
  WaitingTask,
} from './step-functions-task-tokens.js';
import type { TimeoutErrors, WaitLimits } from './step-functions-task-tokens.js';

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

export type ApiInput = Record<string, unknown>;

export class Executions {
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
