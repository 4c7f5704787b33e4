/**
 * The local Step Functions' options and what it reports of an execution (step-functions-server.ts serves them).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { RunOptions } from 'aws-local-stepfunctions';

export type LocalLambdaHandler = (event: unknown) => Promise<unknown>;

export type Overrides = NonNullable<RunOptions['overrides']>;
export type TaskHandlers = NonNullable<Overrides['taskResourceLocalHandlers']>;
export type JsonValue = Parameters<TaskHandlers[string]>[0];

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
