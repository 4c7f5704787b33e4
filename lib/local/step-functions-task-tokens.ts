/**
 * Task tokens of .waitForTaskToken states: minted as the state's Parameters read `$$.Task.Token`, then waited on
 * until SendTaskSuccess/SendTaskFailure, a heartbeat's or the state's timeout, or the execution's end.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from './step-functions-errors.js';

export interface TimeoutErrors {
  /** States.Timeout: TimeoutSeconds passed. */
  timeout(): Error;
  /** States.HeartbeatTimeout: HeartbeatSeconds passed without SendTaskHeartbeat. */
  heartbeat(): Error;
}

/** Lifetimes of one .waitForTaskToken attempt, in milliseconds. */
export interface WaitLimits {
  timeoutMs: number;
  heartbeatMs: number | undefined;
}

/**
 * `$$.Task.Token` for one execution. The library reads the context object's Task.Token while it evaluates a
 * state's Parameters, once per reference and again on each retry: the first read mints a token, later reads get
 * the same one until the state's invoker takes it, so every attempt has its own. 32 random bytes: unguessable.
 */
export class TaskTokens {
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
export class WaitingTask {
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

/** The longest delay setTimeout takes. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

// API reference length limits (SendTaskSuccess, SendTaskFailure); `output` counts UTF-8 bytes.
export const TASK_TOKEN_LIMITS = { required: true, min: 1, max: 2048 };
export const OUTPUT_LIMITS = { required: true, max: 262_144, bytes: true };
export const ERROR_LIMITS = { max: 256 };
export const CAUSE_LIMITS = { max: 32_768 };

/** The JSON of SendTaskSuccess becomes the state's result; anything else is InvalidOutput (API reference). */
export function parseTaskOutput(output: string): unknown {
  try {
    return JSON.parse(output);
  } catch (err) {
    throw new ApiError('InvalidOutput', `Invalid Output: '${(err as Error).message}'`);
  }
}

/**
 * A timer that does not keep the process alive on its own. Past 2^31 - 1 ms setTimeout fires at once, so longer
 * delays (AWS allows a year) are capped there: some 24 days, as good as never for a local run.
 */
export function unrefTimer(ms: number, fire: () => void): NodeJS.Timeout {
  const timer = setTimeout(fire, Math.min(ms, MAX_TIMER_MS));
  timer.unref();
  return timer;
}
