/**
 * The local Step Functions server driven through the real @aws-sdk/client-sfn, with task states
 * hitting DynamoDB Local and fauxqs for real.
 */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeExecutionCommand,
  ListExecutionsCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
  type DescribeExecutionCommandOutput,
  type ExecutionStatus,
} from '@aws-sdk/client-sfn';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamoDbLocal } from '../../lib/local/emulators.js';
import type { DynamoDbLocal } from '../../lib/local/emulators.js';
import {
  startLocalStepFunctions,
  type ExecutionRecord,
  type LocalStepFunctions,
  type LocalStepFunctionsOptions,
} from '../../lib/local/step-functions-server.js';

const region = 'us-east-1';
const account = '000000000000';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const suffix = randomUUID().slice(0, 8);
const tableName = `sfn-local-test-${suffix}`;
const queueName = `sfn-local-test-${suffix}`;
const stateMachineArn = `arn:aws:states:${region}:${account}:stateMachine:sfn-local-test-${suffix}`;
const lambdaArn = (name: string) => `arn:aws:lambda:${region}:${account}:function:${name}`;

class RejectedError extends Error {
  override readonly name = 'RejectedError';
}
class FlakyUpstreamError extends Error {
  override readonly name = 'FlakyUpstreamError';
}

// ----- test state machine

function testDefinition(queueUrl: string): Record<string, unknown> {
  const itemKey = { pk: { 'S.$': '$$.Execution.Name' } };
  const transaction = {
    TransactItems: [
      {
        Put: {
          TableName: tableName,
          Item: { ...itemKey, status: { S: 'created' } },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
  };
  return {
    StartAt: 'Pause',
    States: {
      Pause: { Type: 'Wait', SecondsPath: '$.waitSeconds', Next: 'Prepare' },
      Prepare: { Type: 'Task', Resource: lambdaArn('prepare'), ResultPath: '$.prepared', Next: 'Describe' },
      Describe: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: {
          FunctionName: lambdaArn('describe'),
          Payload: {
            'executionId.$': '$$.Execution.Id',
            'executionName.$': '$$.Execution.Name',
            'machineName.$': '$$.StateMachine.Name',
            'value.$': '$.value',
          },
        },
        ResultSelector: { 'payload.$': '$.Payload', 'statusCode.$': '$.StatusCode' },
        ResultPath: '$.described',
        Next: 'Fanout',
      },
      Fanout: {
        Type: 'Map',
        ItemsPath: '$.numbers',
        ItemProcessor: {
          ProcessorConfig: { Mode: 'INLINE' },
          StartAt: 'Double',
          States: { Double: { Type: 'Task', Resource: lambdaArn('double'), End: true } },
        },
        ResultPath: '$.doubled',
        Next: 'Flaky',
      },
      Flaky: {
        Type: 'Task',
        Resource: lambdaArn('flaky'),
        Parameters: { 'key.$': '$$.Execution.Name' },
        Retry: [{ ErrorEquals: ['FlakyUpstreamError'], IntervalSeconds: 1, MaxAttempts: 2, BackoffRate: 1 }],
        ResultPath: '$.flaky',
        Next: 'GuardedUpdate',
      },
      GuardedUpdate: {
        Type: 'Task',
        Resource: 'arn:aws:states:::dynamodb:updateItem',
        Parameters: {
          TableName: tableName,
          Key: itemKey,
          UpdateExpression: 'SET #s = :s',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':s': { S: 'updated' } },
        },
        ResultPath: null,
        Catch: [
          {
            ErrorEquals: ['DynamoDB.ConditionalCheckFailedException'],
            ResultPath: '$.conditionError',
            Next: 'WriteTransaction',
          },
        ],
        Next: 'WriteTransaction',
      },
      WriteTransaction: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:dynamodb:transactWriteItems',
        Parameters: transaction,
        ResultPath: null,
        Next: 'RepeatTransaction',
      },
      RepeatTransaction: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:dynamodb:transactWriteItems',
        Parameters: transaction,
        ResultPath: null,
        Catch: [
          {
            ErrorEquals: ['DynamoDb.TransactionCanceledException'],
            ResultPath: '$.transactionError',
            Next: 'ReadBack',
          },
        ],
        Next: 'ReadBack',
      },
      ReadBack: {
        Type: 'Task',
        Resource: 'arn:aws:states:::dynamodb:getItem',
        Parameters: { TableName: tableName, Key: itemKey, ConsistentRead: true },
        ResultSelector: { 'status.$': '$.Item.status.S' },
        ResultPath: '$.readBack',
        Next: 'Notify',
      },
      Notify: {
        Type: 'Task',
        Resource: 'arn:aws:states:::sqs:sendMessage',
        Parameters: {
          QueueUrl: queueUrl,
          MessageBody: { 'executionName.$': '$$.Execution.Name', 'status.$': '$.readBack.status' },
        },
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
  [lambdaArn('describe')]: async (event) => event,
  [lambdaArn('double')]: async (n) => (n as number) * 2,
  [lambdaArn('flaky')]: async (event) => {
    const key = (event as { key: string }).key;
    const calls = (flakyCalls.get(key) ?? 0) + 1;
    flakyCalls.set(key, calls);
    if (calls === 1) throw new FlakyUpstreamError('first call fails');
    return { calls };
  },
};

// ----- environment

let dynamo: DynamoDbLocal | undefined;
let fauxqs: Awaited<ReturnType<typeof startFauxqs>> | undefined;
let local: LocalStepFunctions | undefined;
let dynamoDb: DynamoDBClient;
let sqs: SQSClient;
let sfn: SFNClient;
let queueUrl: string;
const ended: ExecutionRecord[] = [];

beforeAll(async () => {
  // The shared launcher waits (with a generous deadline) until DynamoDB Local answers: CI machines are busy.
  dynamo = await startDynamoDbLocal(undefined);
  fauxqs = await startFauxqs({ port: 0, logger: false });
  dynamoDb = new DynamoDBClient({ endpoint: dynamo.endpoint, region, credentials });
  sqs = new SQSClient({ endpoint: fauxqs.address, region, credentials });
  await createTable(dynamoDb);
  queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: queueName }))).QueueUrl!;
  local = await startLocalStepFunctions({
    definition: testDefinition(queueUrl),
    stateMachineArn,
    lambdaHandlers,
    dynamoDb,
    sqs,
    onExecutionEnd: (e) => ended.push(e),
  });
  sfn = new SFNClient({ endpoint: local.endpoint, region, credentials });
}, 90_000);

afterAll(async () => {
  await local?.close();
  await fauxqs?.stop();
  await dynamo?.stop();
  sfn?.destroy();
  sqs?.destroy();
  dynamoDb?.destroy();
});

async function createTable(client: DynamoDBClient): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
}

async function waitForEnd(executionArn: string, timeoutMs = 10_000): Promise<DescribeExecutionCommandOutput> {
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
  it('runs every supported task integration to SUCCEEDED', async () => {
    const name = `happy-${suffix}`;
    const { executionArn, startDate } = await start(name, { waitSeconds: 1, value: 42, numbers: [1, 2, 3] });
    expect(executionArn).toBe(`arn:aws:states:${region}:${account}:execution:sfn-local-test-${suffix}:${name}`);
    expect(startDate).toBeInstanceOf(Date);

    const execution = await waitForEnd(executionArn!);
    expect(execution.status).toBe('SUCCEEDED');
    // Wait of 1 s plus one retry interval of 1 s.
    expect(execution.stopDate!.getTime() - execution.startDate!.getTime()).toBeGreaterThanOrEqual(2000);

    const output = JSON.parse(execution.output!);
    expect(output.prepared).toEqual({ preparedAt: '1970-01-01T00:00:00.000Z' });
    expect(output.described).toEqual({
      statusCode: 200,
      payload: { executionId: executionArn, executionName: name, machineName: `sfn-local-test-${suffix}`, value: 42 },
    });
    expect(output.doubled).toEqual([2, 4, 6]);
    expect(output.flaky).toEqual({ calls: 2 });
    expect(output.conditionError.Error).toBe('DynamoDB.ConditionalCheckFailedException');
    expect(output.transactionError.Error).toBe('DynamoDb.TransactionCanceledException');
    expect(output.readBack).toEqual({ status: 'created' });
    expect(output.sent).toEqual({ MessageId: expect.any(String), MD5OfMessageBody: expect.any(String) });

    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1 }));
    expect(JSON.parse(received.Messages![0]!.Body!)).toEqual({ executionName: name, status: 'created' });
    expect(ended.find((e) => e.executionArn === executionArn)?.status).toBe('SUCCEEDED');
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
    // Once closed, even the same input is refused.
    expect((await errorOf(start(name, input))).name).toBe('ExecutionAlreadyExists');
  });

  it('raises the named SFN exceptions', async () => {
    const unknownArn = `arn:aws:states:${region}:${account}:execution:sfn-local-test-${suffix}:nope`;
    const notFound = await errorOf(sfn.send(new DescribeExecutionCommand({ executionArn: unknownArn })));
    expect(notFound.name).toBe('ExecutionDoesNotExist');

    const otherMachine = `arn:aws:states:${region}:${account}:stateMachine:other`;
    const noMachine = await errorOf(sfn.send(new StartExecutionCommand({ stateMachineArn: otherMachine })));
    expect(noMachine.name).toBe('StateMachineDoesNotExist');

    const badInput = await errorOf(sfn.send(new StartExecutionCommand({ stateMachineArn, input: '{not json' })));
    expect(badInput.name).toBe('InvalidExecutionInput');
  });

  it('lists executions newest first, filtered and paged', async () => {
    await local!.idle();
    const all: string[] = [];
    let nextToken: string | undefined;
    do {
      const page = await sfn.send(new ListExecutionsCommand({ stateMachineArn, maxResults: 1, nextToken }));
      expect(page.executions!.length).toBeLessThanOrEqual(1);
      all.push(...page.executions!.map((e) => e.name!));
      nextToken = page.nextToken;
    } while (nextToken);
    expect(all).toEqual([`long-${suffix}`, `rejected-${suffix}`, `happy-${suffix}`]);

    const byStatus = async (statusFilter: ExecutionStatus) =>
      (await sfn.send(new ListExecutionsCommand({ stateMachineArn, statusFilter }))).executions!.map((e) => e.name);
    expect(await byStatus('SUCCEEDED')).toEqual([`happy-${suffix}`]);
    expect(await byStatus('ABORTED')).toEqual([`long-${suffix}`]);
    expect(local!.executions().map((e) => e.status)).toEqual(['SUCCEEDED', 'FAILED', 'ABORTED']);
  });

  it('honours the definition TimeoutSeconds', async () => {
    const timeoutArn = `arn:aws:states:${region}:${account}:stateMachine:sfn-local-timeout-${suffix}`;
    const server = await startLocalStepFunctions({
      definition: { TimeoutSeconds: 1, StartAt: 'Sleep', States: { Sleep: { Type: 'Wait', Seconds: 30, End: true } } },
      stateMachineArn: timeoutArn,
      lambdaHandlers: {},
      dynamoDb,
      sqs,
    });
    const client = new SFNClient({ endpoint: server.endpoint, region, credentials });
    try {
      const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn: timeoutArn }));
      await server.idle();
      const execution = await client.send(new DescribeExecutionCommand({ executionArn }));
      expect(execution).toMatchObject({ status: 'TIMED_OUT', error: 'States.Timeout' });
    } finally {
      client.destroy();
      await server.close();
    }
  });

  it('refuses to start with a task it cannot run, naming the state and resource', async () => {
    const definition = {
      StartAt: 'Announce',
      States: { Announce: { Type: 'Task', Resource: 'arn:aws:states:::sns:publish', End: true } },
    };
    const options = { definition, stateMachineArn, lambdaHandlers: {}, dynamoDb, sqs };
    await expect(startLocalStepFunctions(options)).rejects.toThrow(/"Announce".*arn:aws:states:::sns:publish/);

    const missing = { StartAt: 'Go', States: { Go: { Type: 'Task', Resource: lambdaArn('missing'), End: true } } };
    await expect(startLocalStepFunctions({ ...options, definition: missing })).rejects.toThrow(
      /"Go".*function:missing/,
    );
  });
});
