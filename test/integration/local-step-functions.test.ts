/**
 * The local Step Functions server driven through the real @aws-sdk/client-sfn, with its sqs:sendMessage
 * states hitting fauxqs for real. Task tokens: local-step-functions-task-tokens.test.ts.
 */
import { randomUUID } from 'node:crypto';
import {
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
  type DescribeExecutionCommandOutput,
} from '@aws-sdk/client-sfn';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startLocalStepFunctions,
  type LocalStepFunctions,
  type LocalStepFunctionsOptions,
} from '../../lib/dev/local/step-functions-server.js';

const region = 'us-east-1';
const account = '000000000000';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const suffix = randomUUID().slice(0, 8);
const queueName = `sfn-local-test-${suffix}`;
const stateMachineArn = `arn:aws:states:${region}:${account}:stateMachine:sfn-local-test-${suffix}`;
const lambdaArn = (name: string) => `arn:aws:lambda:${region}:${account}:function:${name}`;

class RejectedError extends Error {
  override readonly name = 'RejectedError';
}
class FlakyUpstreamError extends Error {
  override readonly name = 'FlakyUpstreamError';
}
class BrokenError extends Error {
  override readonly name = 'BrokenError';
}

// ----- test state machine: every construct our ASL uses

function testDefinition(queueUrl: string): Record<string, unknown> {
  return {
    StartAt: 'Pause',
    States: {
      Pause: { Type: 'Wait', SecondsPath: '$.waitSeconds', Next: 'Prepare' },
      Prepare: {
        Type: 'Task',
        Resource: lambdaArn('prepare'),
        TimeoutSeconds: 5,
        ResultPath: '$.prepared',
        Next: 'Flaky',
      },
      Flaky: {
        Type: 'Task',
        Resource: lambdaArn('flaky'),
        Parameters: { 'key.$': '$.key' },
        TimeoutSeconds: 5,
        Retry: [{ ErrorEquals: ['FlakyUpstreamError'], IntervalSeconds: 1, MaxAttempts: 2, BackoffRate: 1 }],
        ResultPath: '$.flaky',
        Next: 'Slow',
      },
      Slow: {
        Type: 'Task',
        Resource: lambdaArn('slow'),
        TimeoutSeconds: 1,
        // As on AWS, States.TaskFailed matches any task error except States.Timeout.
        Catch: [
          { ErrorEquals: ['States.TaskFailed'], ResultPath: '$.wronglyCaught', Next: 'Notify' },
          { ErrorEquals: ['States.Timeout'], ResultPath: '$.timeout', Next: 'Broken' },
        ],
        Next: 'Notify',
      },
      Broken: {
        Type: 'Task',
        Resource: lambdaArn('broken'),
        TimeoutSeconds: 5,
        Catch: [{ ErrorEquals: ['States.TaskFailed'], ResultPath: '$.broken', Next: 'Route' }],
        Next: 'Route',
      },
      Route: {
        Type: 'Choice',
        Choices: [{ Variable: '$.broken.Error', StringEquals: 'BrokenError', Next: 'Notify' }],
      },
      Notify: {
        Type: 'Task',
        Resource: 'arn:aws:states:::sqs:sendMessage',
        Parameters: { QueueUrl: queueUrl, MessageBody: { 'key.$': '$.key', 'preparedAt.$': '$.prepared.preparedAt' } },
        TimeoutSeconds: 5,
        ResultPath: '$.sent',
        End: true,
      },
    },
  };
}

const flakyCalls = new Map<string, number>();

const lambdaHandlers: LocalStepFunctionsOptions['lambdaHandlers'] = {
  [lambdaArn('prepare')]: async (event) => {
    if ((event as { reject?: boolean }).reject) throw new RejectedError('input refused');
    return { preparedAt: new Date(0) }; // a Date crosses the JSON boundary as a string
  },
  [lambdaArn('flaky')]: async (event) => {
    const key = (event as { key: string }).key;
    const calls = (flakyCalls.get(key) ?? 0) + 1;
    flakyCalls.set(key, calls);
    if (calls === 1) throw new FlakyUpstreamError('first call fails');
    return { calls };
  },
  // Outlives its state's TimeoutSeconds of 1 s.
  [lambdaArn('slow')]: () => new Promise((resolve) => setTimeout(() => resolve('late'), 1_500)),
  [lambdaArn('broken')]: async () => {
    throw new BrokenError('always');
  },
};

// ----- environment

let fauxqs: Awaited<ReturnType<typeof startFauxqs>> | undefined;
let local: LocalStepFunctions | undefined;
let sqs: SQSClient;
let sfn: SFNClient;
let queueUrl: string;

beforeAll(async () => {
  fauxqs = await startFauxqs({ port: 0, logger: false });
  sqs = new SQSClient({ endpoint: fauxqs.address, region, credentials });
  queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: queueName }))).QueueUrl!;
  local = await startLocalStepFunctions({ definition: testDefinition(queueUrl), stateMachineArn, lambdaHandlers, sqs });
  sfn = new SFNClient({ endpoint: local.endpoint, region, credentials });
}, 30_000);

afterAll(async () => {
  await local?.close();
  await local?.idle();
  await fauxqs?.stop();
  sfn?.destroy();
  sqs?.destroy();
});

async function waitForEnd(executionArn: string, timeoutMs = 120_000): Promise<DescribeExecutionCommandOutput> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (execution.status !== 'RUNNING') return execution;
    if (Date.now() > deadline) throw new Error(`${executionArn} still RUNNING after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function errorOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

function start(name: string, input: unknown) {
  return sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }));
}

// ----- tests

describe('local Step Functions server', () => {
  it('runs Wait, Lambda tasks with Retry/Catch, Choice and sqs:sendMessage to SUCCEEDED', async () => {
    const name = `happy-${suffix}`;
    const { executionArn, startDate } = await start(name, { waitSeconds: 1, key: name });
    expect(executionArn).toBe(`arn:aws:states:${region}:${account}:execution:sfn-local-test-${suffix}:${name}`);
    expect(startDate).toBeInstanceOf(Date);

    const execution = await waitForEnd(executionArn!);
    expect(execution.status).toBe('SUCCEEDED');
    // Wait of 1 s, one retry interval of 1 s, a task timeout of 1 s.
    expect(execution.stopDate!.getTime() - execution.startDate!.getTime()).toBeGreaterThanOrEqual(3000);

    const output = JSON.parse(execution.output!);
    expect(output.prepared).toEqual({ preparedAt: '1970-01-01T00:00:00.000Z' });
    expect(output.flaky).toEqual({ calls: 2 });
    expect(output.wronglyCaught).toBeUndefined();
    expect(output.timeout).toEqual({ Error: 'States.Timeout', Cause: expect.any(String) });
    expect(output.broken.Error).toBe('BrokenError');
    expect(JSON.parse(output.broken.Cause)).toMatchObject({ errorType: 'BrokenError', errorMessage: 'always' });
    expect(output.sent).toEqual({ MessageId: expect.any(String), MD5OfMessageBody: expect.any(String) });

    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1 }));
    expect(JSON.parse(received.Messages![0]!.Body!)).toEqual({ key: name, preparedAt: '1970-01-01T00:00:00.000Z' });
  });

  it('fails the execution with the Lambda error name and its error payload as cause', async () => {
    const { executionArn } = await start(`rejected-${suffix}`, { waitSeconds: 0, reject: true });
    const execution = await waitForEnd(executionArn!);
    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('RejectedError');
    expect(JSON.parse(execution.cause!)).toMatchObject({ errorType: 'RejectedError', errorMessage: 'input refused' });
  });

  it('applies AWS StartExecution idempotency and StopExecution', async () => {
    const name = `long-${suffix}`;
    const input = { waitSeconds: 300 };
    const first = await start(name, input);
    const again = await start(name, input);
    expect(again.executionArn).toBe(first.executionArn);
    expect((await errorOf(start(name, { waitSeconds: 299 }))).name).toBe('ExecutionAlreadyExists');

    const stopped = await sfn.send(
      new StopExecutionCommand({ executionArn: first.executionArn, error: 'Cancelled', cause: 'test' }),
    );
    expect(stopped.stopDate).toBeInstanceOf(Date);
    const execution = await sfn.send(new DescribeExecutionCommand({ executionArn: first.executionArn }));
    expect(execution).toMatchObject({ status: 'ABORTED', error: 'Cancelled', cause: 'test' });
    // Stopping again keeps the outcome; once closed, even the same input is refused.
    await sfn.send(new StopExecutionCommand({ executionArn: first.executionArn, cause: 'again' }));
    expect(await sfn.send(new DescribeExecutionCommand({ executionArn: first.executionArn }))).toMatchObject({
      status: 'ABORTED',
      cause: 'test',
    });
    expect((await errorOf(start(name, input))).name).toBe('ExecutionAlreadyExists');
  });

  it('raises the named SFN exceptions', async () => {
    const unknownArn = `arn:aws:states:${region}:${account}:execution:sfn-local-test-${suffix}:nope`;
    const notFound = await errorOf(sfn.send(new DescribeExecutionCommand({ executionArn: unknownArn })));
    expect(notFound.name).toBe('ExecutionDoesNotExist');
    const stopNotFound = await errorOf(sfn.send(new StopExecutionCommand({ executionArn: unknownArn })));
    expect(stopNotFound.name).toBe('ExecutionDoesNotExist');

    const otherMachine = `arn:aws:states:${region}:${account}:stateMachine:other`;
    const noMachine = await errorOf(sfn.send(new StartExecutionCommand({ stateMachineArn: otherMachine })));
    expect(noMachine.name).toBe('StateMachineDoesNotExist');

    const badInput = await errorOf(sfn.send(new StartExecutionCommand({ stateMachineArn, input: '{not json' })));
    expect(badInput.name).toBe('InvalidExecutionInput');
    expect((await errorOf(start('no spaces', {}))).name).toBe('InvalidName');
  });

  it('keeps every execution, oldest first, for the local stack to read', async () => {
    await local!.idle();
    expect(local!.executions().map((e) => [e.name, e.status])).toEqual([
      [`happy-${suffix}`, 'SUCCEEDED'],
      [`rejected-${suffix}`, 'FAILED'],
      [`long-${suffix}`, 'ABORTED'],
    ]);
  });

  it('refuses at start what it does not serve, naming the state', async () => {
    const refusal = (States: Record<string, unknown>) =>
      startLocalStepFunctions({
        definition: { StartAt: Object.keys(States)[0], States },
        stateMachineArn,
        lambdaHandlers,
        sqs,
      });
    const task = (Resource: string) => ({ Type: 'Task', Resource, TimeoutSeconds: 5, End: true });
    const waitForToken = (Parameters: Record<string, unknown>) => ({
      ...task('arn:aws:states:::lambda:invoke.waitForTaskToken'),
      Parameters,
    });
    const prepare = lambdaArn('prepare');

    await expect(refusal({ Announce: task('arn:aws:states:::sns:publish') })).rejects.toThrow(
      /"Announce".*arn:aws:states:::sns:publish/,
    );
    await expect(refusal({ Go: task(lambdaArn('missing')) })).rejects.toThrow(/"Go".*function:missing/);
    await expect(refusal({ Go: task('arn:aws:states:::sqs:sendMessage.waitForTaskToken') })).rejects.toThrow(
      /"Go".*waitForTaskToken/,
    );
    await expect(refusal({ Go: { ...task(prepare), TimeoutSecondsPath: '$.t' } })).rejects.toThrow(
      /"Go": TimeoutSecondsPath on a Lambda task/,
    );
    const map = { Type: 'Map', ItemProcessor: { StartAt: 'Go', States: { Go: task(prepare) } }, End: true };
    await expect(refusal({ Each: map })).rejects.toThrow(/"Each": a Map state/);
    await expect(refusal({ Go: waitForToken({ FunctionName: prepare, Payload: { key: 'k' } }) })).rejects.toThrow(
      /"Go": a \.waitForTaskToken state without \$\$\.Task\.Token in its Parameters/,
    );
    await expect(
      refusal({ Go: waitForToken({ FunctionName: lambdaArn('missing'), Payload: { 'token.$': '$$.Task.Token' } }) }),
    ).rejects.toThrow(/"Go": FunctionName ".*function:missing"/);
  });

  it("times out an execution that outlives the machine's TimeoutSeconds: TIMED_OUT with States.Timeout", async () => {
    const timed = await startLocalStepFunctions({
      definition: { ...testDefinition(queueUrl), TimeoutSeconds: 1 },
      stateMachineArn,
      lambdaHandlers,
      sqs,
    });
    const client = new SFNClient({ endpoint: timed.endpoint, region, credentials });
    try {
      const started = Date.now();
      const { executionArn } = await client.send(
        new StartExecutionCommand({ stateMachineArn, name: `timeout-${suffix}`, input: '{"waitSeconds":300}' }),
      );
      let execution = await client.send(new DescribeExecutionCommand({ executionArn }));
      while (execution.status === 'RUNNING' && Date.now() - started < 120_000) {
        await new Promise((r) => setTimeout(r, 50));
        execution = await client.send(new DescribeExecutionCommand({ executionArn }));
      }
      expect(execution).toMatchObject({ status: 'TIMED_OUT', error: 'States.Timeout' });
      expect(execution.stopDate!.getTime() - execution.startDate!.getTime()).toBeGreaterThanOrEqual(1000);
      // A machine without the timeout (the shared one) is unaffected: covered by the tests above.
    } finally {
      client.destroy();
      await timed.close();
      await timed.idle();
    }
  });
});
