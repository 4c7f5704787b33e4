/**
 * Task tokens on the local Step Functions server (lambda:invoke.waitForTaskToken), driven through the real
 * @aws-sdk/client-sfn so its exception classes are the ones our code would catch. Each test runs its own small
 * machine with in-process handlers; waits poll with generous deadlines, nothing asserts on elapsed time alone.
 */
import { randomUUID } from 'node:crypto';
import {
  DescribeExecutionCommand,
  InvalidOutput,
  InvalidToken,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
  TaskTimedOut,
  ValidationException,
  type DescribeExecutionCommandOutput,
} from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startLocalStepFunctions,
  type LocalStepFunctions,
  type LocalStepFunctionsOptions,
} from '../../lib/dev/local/step-functions-server.js';

const region = 'us-east-1';
const account = '000000000000';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const stateMachineArn = `arn:aws:states:${region}:${account}:stateMachine:sfn-task-tokens-test`;
const acquireArn = `arn:aws:lambda:${region}:${account}:function:acquire-slot`;
const WAIT_FOR_TOKEN = 'arn:aws:states:::lambda:invoke.waitForTaskToken';

// No state here sends to SQS: the client is only there because the server requires one.
const sqs = new SQSClient({ region, credentials, endpoint: 'http://127.0.0.1:9' });

interface AcquireEvent {
  task_id: string;
  task_token: string;
}

class SlotBrokenError extends Error {
  override readonly name = 'SlotBrokenError';
}

/**
 * A Task state like our ASL's: invokes acquire-slot with the task id and its token, then waits for the token.
 * `extra` overrides fields; an undefined one is left out, as in JSON.
 */
function waitForSlot(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const state = {
    Type: 'Task',
    Resource: WAIT_FOR_TOKEN,
    Parameters: { FunctionName: acquireArn, Payload: { 'task_id.$': '$.task_id', 'task_token.$': '$$.Task.Token' } },
    ResultPath: '$.upstream',
    TimeoutSeconds: 60,
    End: true,
    ...extra,
  };
  return Object.fromEntries(Object.entries(state).filter(([, value]) => value !== undefined));
}

const done = (name: string) => ({ [name]: { Type: 'Pass', End: true } });

interface Machine {
  local: LocalStepFunctions;
  sfn: SFNClient;
  /** What acquire-slot received, one per attempt. */
  events: AcquireEvent[];
  start(input?: Record<string, unknown>): Promise<string>;
}

type Acquire = (event: AcquireEvent, machine: Machine) => Promise<unknown>;

type MachineOptions = Pick<LocalStepFunctionsOptions, 'retryIntervalOverrides'> & { machineTimeoutSeconds?: number };

const machines: Machine[] = [];

afterEach(async () => {
  for (const { local, sfn } of machines.splice(0)) {
    await local.close();
    await local.idle();
    sfn.destroy();
  }
});

async function startMachine(
  States: Record<string, unknown>,
  acquire: Acquire = async () => ({ accepted: true }),
  { machineTimeoutSeconds, ...options }: MachineOptions = {},
): Promise<Machine> {
  const events: AcquireEvent[] = [];
  const machine = { events } as Machine;
  machine.local = await startLocalStepFunctions({
    definition: { StartAt: Object.keys(States)[0], States, TimeoutSeconds: machineTimeoutSeconds },
    stateMachineArn,
    lambdaHandlers: {
      [acquireArn]: async (event) => {
        events.push(event as AcquireEvent);
        return acquire(event as AcquireEvent, machine);
      },
    },
    sqs,
    ...options,
  });
  machine.sfn = new SFNClient({ endpoint: machine.local.endpoint, region, credentials });
  machine.start = async (input = {}) => {
    const started = await machine.sfn.send(
      new StartExecutionCommand({ stateMachineArn, input: JSON.stringify({ task_id: randomUUID(), ...input }) }),
    );
    return started.executionArn!;
  };
  machines.push(machine);
  return machine;
}

async function eventually<T>(probe: () => T | Promise<T>, ok: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function describeExecution(m: Machine, executionArn: string): Promise<DescribeExecutionCommandOutput> {
  return m.sfn.send(new DescribeExecutionCommand({ executionArn }));
}

function waitForEnd(m: Machine, executionArn: string): Promise<DescribeExecutionCommandOutput> {
  return eventually(
    () => describeExecution(m, executionArn),
    (e) => e.status !== 'RUNNING',
  );
}

/** The token of the n-th attempt (1-based), once acquire-slot has received it. */
async function tokenOf(m: Machine, attempt = 1): Promise<string> {
  await eventually(
    () => m.events.length,
    (n) => n >= attempt,
  );
  return m.events[attempt - 1]!.task_token;
}

async function errorOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

const success = (m: Machine, taskToken: string, output: unknown) =>
  m.sfn.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }));

describe('task tokens (lambda:invoke.waitForTaskToken)', () => {
  it('passes a token in the Payload and puts the SendTaskSuccess output at ResultPath; a token settles once', async () => {
    const m = await startMachine({ WaitForSlot: waitForSlot() });
    const executionArn = await m.start({ task_id: 'task-1' });
    const token = await tokenOf(m);
    expect(m.events[0]).toEqual({ task_id: 'task-1', task_token: token });
    expect(token.length).toBeGreaterThanOrEqual(40);
    // The function has returned, yet the state waits for its token.
    expect((await describeExecution(m, executionArn)).status).toBe('RUNNING');

    const badOutput = await errorOf(m.sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: '{nope' })));
    expect(badOutput).toBeInstanceOf(InvalidOutput);
    await success(m, token, { slot: 3 }); // the task stayed open

    const execution = await waitForEnd(m, executionArn);
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output!)).toEqual({ task_id: 'task-1', upstream: { slot: 3 } });
    expect(await errorOf(success(m, token, { slot: 4 }))).toBeInstanceOf(TaskTimedOut);
    expect(await errorOf(m.sfn.send(new SendTaskHeartbeatCommand({ taskToken: token })))).toBeInstanceOf(TaskTimedOut);
  });

  it('accepts SendTaskSuccess from the function itself, before it returns', async () => {
    const m = await startMachine({ WaitForSlot: waitForSlot() }, async (event, self) => {
      await success(self, event.task_token, { early: true });
      // Returns only once the execution has moved on without it.
      await eventually(
        () => self.local.executions()[0]?.status,
        (status) => status === 'SUCCEEDED',
      );
      return { ignored: true };
    });
    const execution = await waitForEnd(m, await m.start());
    expect(JSON.parse(execution.output!).upstream).toEqual({ early: true });
    await m.local.idle(); // the function has returned too
  });

  it('fails the state with the SendTaskFailure error, which Catch matches by name', async () => {
    const m = await startMachine({
      WaitForSlot: waitForSlot({
        End: undefined,
        Next: 'Acquired',
        Catch: [{ ErrorEquals: ['SlotRefused'], ResultPath: '$.refused', Next: 'Refused' }],
      }),
      ...done('Acquired'),
      ...done('Refused'),
    });
    const executionArn = await m.start();
    await m.sfn.send(new SendTaskFailureCommand({ taskToken: await tokenOf(m), error: 'SlotRefused', cause: 'full' }));
    const execution = await waitForEnd(m, executionArn);
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output!).refused).toEqual({ Error: 'SlotRefused', Cause: 'full' });
  });

  it('fails the state at once with the function error, and closes its token', async () => {
    const m = await startMachine(
      {
        WaitForSlot: waitForSlot({
          End: undefined,
          Next: 'Acquired',
          Catch: [{ ErrorEquals: ['SlotBrokenError'], ResultPath: '$.broken', Next: 'Broken' }],
        }),
        ...done('Acquired'),
        ...done('Broken'),
      },
      async () => {
        throw new SlotBrokenError('no upstream');
      },
    );
    const execution = await waitForEnd(m, await m.start());
    const { broken } = JSON.parse(execution.output!);
    expect(broken.Error).toBe('SlotBrokenError');
    expect(JSON.parse(broken.Cause)).toMatchObject({ errorType: 'SlotBrokenError', errorMessage: 'no upstream' });
    expect(await errorOf(success(m, m.events[0]!.task_token, {}))).toBeInstanceOf(TaskTimedOut);
  });

  it('fails a state that misses its heartbeat with States.HeartbeatTimeout, a timeout States.TaskFailed does not match', async () => {
    const m = await startMachine({
      WaitForSlot: waitForSlot({
        HeartbeatSeconds: 1,
        End: undefined,
        Next: 'Acquired',
        Catch: [
          { ErrorEquals: ['States.TaskFailed'], ResultPath: '$.wronglyCaught', Next: 'Acquired' },
          // ASL: States.Timeout also names a missed heartbeat.
          { ErrorEquals: ['States.Timeout'], ResultPath: '$.timedOut', Next: 'TimedOut' },
        ],
      }),
      ...done('Acquired'),
      ...done('TimedOut'),
    });
    const executionArn = await m.start();
    const token = await tokenOf(m);
    const execution = await waitForEnd(m, executionArn);
    const output = JSON.parse(execution.output!);
    expect(output.wronglyCaught).toBeUndefined();
    expect(output.timedOut.Error).toBe('States.HeartbeatTimeout');
    expect(await errorOf(success(m, token, {}))).toBeInstanceOf(TaskTimedOut);
  });

  it('keeps a task alive while heartbeats come, counting from when the function returned', async () => {
    let returned = false;
    // 4 s between beats, so a beat (a request and a describe) that a busy machine slows to seconds still
    // lands in time: the test is about when the clock runs, not about speed.
    const m = await startMachine({ WaitForSlot: waitForSlot({ HeartbeatSeconds: 4 }) }, async () => {
      // Longer than HeartbeatSeconds: the heartbeat clock starts only once the function has returned.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      returned = true;
      return {};
    });
    const executionArn = await m.start();
    const token = await tokenOf(m);
    await eventually(
      () => returned,
      (r) => r,
    );
    const beatsUntil = Date.now() + 12_000; // three HeartbeatSeconds
    while (Date.now() < beatsUntil) {
      await m.sfn.send(new SendTaskHeartbeatCommand({ taskToken: token }));
      expect((await describeExecution(m, executionArn)).status).toBe('RUNNING');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await success(m, token, { alive: true });
    const execution = await waitForEnd(m, executionArn);
    expect(JSON.parse(execution.output!).upstream).toEqual({ alive: true });
  });

  it('retries a timed-out wait with a new token; the old one answers TaskTimedOut', async () => {
    const m = await startMachine(
      {
        WaitForSlot: waitForSlot({
          TimeoutSeconds: 3,
          Retry: [{ ErrorEquals: ['States.Timeout'], IntervalSeconds: 60, MaxAttempts: 1 }],
        }),
      },
      undefined,
      { retryIntervalOverrides: { WaitForSlot: 0 } },
    );
    const executionArn = await m.start();
    const first = await tokenOf(m, 1);
    const second = await tokenOf(m, 2);
    expect(second).not.toBe(first);
    expect(await errorOf(success(m, first, { late: true }))).toBeInstanceOf(TaskTimedOut);
    await success(m, second, { slot: 1 });
    const execution = await waitForEnd(m, executionArn);
    expect(JSON.parse(execution.output!).upstream).toEqual({ slot: 1 });
  });

  it('reads the timeout from the state input with TimeoutSecondsPath', async () => {
    const m = await startMachine({
      WaitForSlot: waitForSlot({
        TimeoutSeconds: undefined,
        TimeoutSecondsPath: '$.watch.fallback_seconds',
        End: undefined,
        Next: 'Acquired',
        Catch: [{ ErrorEquals: ['States.Timeout'], ResultPath: '$.timedOut', Next: 'TimedOut' }],
      }),
      ...done('Acquired'),
      ...done('TimedOut'),
    });
    const timedOut = await waitForEnd(m, await m.start({ watch: { fallback_seconds: 1 } }));
    expect(JSON.parse(timedOut.output!).timedOut).toEqual({ Error: 'States.Timeout', Cause: expect.any(String) });
    expect(timedOut.stopDate!.getTime() - timedOut.startDate!.getTime()).toBeGreaterThanOrEqual(1_000);
    expect(m.events[0]).toEqual({ task_id: expect.any(String), task_token: expect.any(String) });

    const invalid = await waitForEnd(m, await m.start({ watch: { fallback_seconds: 0 } }));
    expect(invalid).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect(m.events).toHaveLength(1); // refused before the function is invoked
  });

  it('closes the waiting task on StopExecution: its token answers TaskTimedOut', async () => {
    const m = await startMachine({ WaitForSlot: waitForSlot() });
    const executionArn = await m.start();
    const token = await tokenOf(m);
    await m.sfn.send(new StopExecutionCommand({ executionArn, cause: 'cancelled' }));
    expect(await errorOf(success(m, token, {}))).toBeInstanceOf(TaskTimedOut);
    await m.local.idle();
    expect(await describeExecution(m, executionArn)).toMatchObject({ status: 'ABORTED', cause: 'cancelled' });
  });

  it("closes the waiting task when the machine's TimeoutSeconds ends the execution", async () => {
    const m = await startMachine({ WaitForSlot: waitForSlot() }, undefined, { machineTimeoutSeconds: 1 });
    const executionArn = await m.start();
    const token = await tokenOf(m);
    expect(await waitForEnd(m, executionArn)).toMatchObject({ status: 'TIMED_OUT', error: 'States.Timeout' });
    expect(await errorOf(success(m, token, {}))).toBeInstanceOf(TaskTimedOut);
  });

  it('ends waiting tasks on close(), and idle() still resolves', async () => {
    const m = await startMachine({ WaitForSlot: waitForSlot() });
    await m.start();
    await tokenOf(m);
    machines.splice(machines.indexOf(m), 1); // closed here, not by afterEach
    await m.local.close();
    await m.local.idle();
    m.sfn.destroy();
    expect(m.local.executions().map((e) => e.status)).toEqual(['ABORTED']);
  });

  it('answers tokens it never issued with InvalidToken, and out-of-limits members with ValidationException', async () => {
    const m = await startMachine({ WaitForSlot: waitForSlot() });
    const forged = 'A'.repeat(43);
    expect(await errorOf(success(m, forged, {}))).toBeInstanceOf(InvalidToken);
    expect(await errorOf(m.sfn.send(new SendTaskFailureCommand({ taskToken: forged })))).toBeInstanceOf(InvalidToken);
    expect(await errorOf(m.sfn.send(new SendTaskHeartbeatCommand({ taskToken: forged })))).toBeInstanceOf(InvalidToken);

    await m.start();
    const token = await tokenOf(m);
    const tooLong = 'x'.repeat(262_145);
    expect(
      await errorOf(m.sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify(tooLong) }))),
    ).toBeInstanceOf(ValidationException);
    expect(
      await errorOf(m.sfn.send(new SendTaskFailureCommand({ taskToken: token, error: 'E'.repeat(257) }))),
    ).toBeInstanceOf(ValidationException);
    expect(
      await errorOf(m.sfn.send(new SendTaskFailureCommand({ taskToken: token, cause: 'c'.repeat(32_769) }))),
    ).toBeInstanceOf(ValidationException);
    await success(m, token, { stillOpen: true }); // none of those touched the task
  });
});
