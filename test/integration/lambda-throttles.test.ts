/**
 * Lambda's concurrency locally (lib/dev/local/lambda-concurrency.ts): N + 1 invokes of a function reserving N
 * get exactly one TooManyRequestsException; each caller answers it as AWS does (the Invoke API 429, the
 * gateway 500) and Step Functions (the real ASL), the stream source and the SQS source retry it until done.
 * No clock: a held invocation is let go when the throttle it causes is seen.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SendTaskSuccessCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concurrencyLimits } from '../../lib/dev/local/lambda-concurrency.js';
import type { ConcurrencyLimits } from '../../lib/dev/local/lambda-concurrency.js';
import { localFunction } from '../../lib/dev/local/local-function.js';
import { startLambdaInvokeServer } from '../../lib/dev/local/lambda-invoke-server.js';
import { startApiGatewayServer } from '../../lib/dev/local/api-gateway-server.js';
import type { HttpHandler } from '../../lib/dev/local/api-gateway-server.js';
import { startLocalStepFunctions } from '../../lib/dev/local/step-functions-server.js';
import type { LocalLambdaHandler } from '../../lib/dev/local/step-functions-server.js';
import { startDynamoDbStreamSource } from '../../lib/dev/local/dynamodb-stream-source.js';
import { startSqsEventSource } from '../../lib/dev/local/sqs-event-source.js';
import { startS3AndSqs } from '../../lib/dev/local/emulators.js';
import type { Fauxqs } from '../../lib/dev/local/emulators.js';
import { createWebhookQueues } from '../../lib/dev/local/local-queues.js';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';
import { ASL_RESOURCE_TOKENS, WORKFLOW_FUNCTIONS } from '../../lib/ship/routes.js';
import { physicalNames, STATE_MACHINE, TASK_STARTS } from '../../functions/adapters/runtime/resources.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { pollUntil } from '../support/test-stack.js';

/** Limits that call `onThrottle` each time they refuse. */
function watched(onThrottle: () => void = () => undefined): ConcurrencyLimits & { throttles: number } {
  const limits = concurrencyLimits(1);
  const counted = {
    throttles: 0,
    inUse: limits.inUse,
    acquire: (id: string, reserved: number | undefined) => {
      try {
        return limits.acquire(id, reserved);
      } catch (error) {
        counted.throttles += 1;
        onThrottle();
        throw error;
      }
    },
  };
  return counted;
}

/** A promise and the function that settles it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** A function reserving `reserved`, whose calls wait for `held` (when given) and are counted. */
function heldFunction(limits: ConcurrencyLimits, reserved: number | undefined, held?: Promise<void>, result = {}) {
  const declaration = { id: `Held${reserved ?? 'Unreserved'}`, uses: [], timeoutSeconds: 600 };
  const calls = { ran: 0 };
  const fn = localFunction<unknown, unknown>(
    { ...declaration, ...(reserved !== undefined && { reservedConcurrency: reserved }) },
    async () => async () => {
      calls.ran += 1;
      await held;
      return result;
    },
    declaration.id,
    limits,
  );
  return { fn, calls };
}

describe('a function at its concurrency', () => {
  it.each([1, 3, 10])('N + 1 concurrent invokes with %i reserved: exactly one TooManyRequestsException', async (n) => {
    const { opened, open } = gate();
    const limits = concurrencyLimits(1000);
    const { fn, calls } = heldFunction(limits, n, opened);
    const settled = Promise.allSettled(Array.from({ length: n + 1 }, () => Promise.resolve().then(() => fn({}))));
    // Open once every admitted invocation is running: none can end before the last one is refused.
    await pollUntil(
      async () => calls.ran,
      (ran) => ran === n,
    );
    open();
    const outcomes = await settled;
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({
      name: 'TooManyRequestsException',
      reason: 'ReservedFunctionConcurrentInvocationLimitExceeded',
    });
    expect(calls.ran).toBe(n);
    // Given back as each ends: the next invoke runs.
    await expect(fn({})).resolves.toEqual({});
  });

  it('functions without a reservation share the unreserved pool', async () => {
    const { opened, open } = gate();
    const limits = concurrencyLimits(2);
    const a = localFunction({ id: 'A', uses: [] }, async () => () => opened, 'A', limits);
    const b = localFunction({ id: 'B', uses: [] }, async () => () => opened, 'B', limits);
    const held = [a({}), b({})];
    await expect(Promise.resolve().then(() => a({}))).rejects.toMatchObject({
      reason: 'ConcurrentInvocationLimitExceeded',
    });
    // A reservation is apart from the pool.
    const reserved = localFunction(
      { id: 'C', uses: [], reservedConcurrency: 1 },
      async () => async () => 1,
      'C',
      limits,
    );
    await expect(reserved({})).resolves.toBe(1);
    open();
    await Promise.all(held);
  });
});

describe('what each caller makes of a throttle', () => {
  it("the Invoke API: 429 with x-amzn-ErrorType TooManyRequestsException, as Lambda's", async () => {
    const { opened, open } = gate();
    const limits = concurrencyLimits(1000);
    const { fn } = heldFunction(limits, 1, opened);
    const server = await startLambdaInvokeServer({
      transcoder: { handler: async () => (event: unknown) => fn(event), timeoutMs: 60_000 },
    });
    try {
      const invoke = () =>
        fetch(`${server.endpoint}/2015-03-31/functions/transcoder/invocations`, { method: 'POST', body: '{}' });
      const first = invoke();
      await pollUntil(
        async () => limits.inUse('Held1'),
        (inUse) => inUse === 1,
      );
      const refused = await invoke();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-amzn-errortype')).toBe('TooManyRequestsException');
      expect(await refused.json()).toEqual({
        Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded',
        Type: 'User',
        message: 'Rate Exceeded.',
      });
      open();
      expect((await first).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("the gateway: an HTTP API's 500 for a refused invoke or a failed function, its 503 past its timeout", async () => {
    const { opened, open } = gate();
    const limits = concurrencyLimits(1000);
    const { fn } = heldFunction(limits, 1, opened, { statusCode: 200, body: 'ok' });
    const handler: HttpHandler = (event) => fn(event) as ReturnType<HttpHandler>;
    const never: HttpHandler = () => new Promise(() => undefined);
    const crash: HttpHandler = async () =>
      Promise.reject(Object.assign(new Error('late'), { name: 'Sandbox.Timedout' }));
    const gateway = await startApiGatewayServer({
      routes: [
        { id: 'Held', method: 'GET', path: '/held', handler },
        { id: 'Never', method: 'GET', path: '/never', handler: never },
        { id: 'Crash', method: 'GET', path: '/crash', handler: crash },
      ],
      defaultRoute: { id: 'NotFound', handler: never },
      contextFor: () => ({}) as never,
      // Only the route that never answers reaches it (the held request is let go before that one is sent).
      integrationTimeoutMs: 1_000,
      port: 0,
    });
    try {
      const first = fetch(`${gateway.url}/held`);
      await pollUntil(
        async () => limits.inUse('Held1'),
        (inUse) => inUse === 1,
      );
      const throttled = await fetch(`${gateway.url}/held`);
      expect([throttled.status, await throttled.json()]).toEqual([500, { message: 'Internal Server Error' }]);
      const crashed = await fetch(`${gateway.url}/crash`);
      expect([crashed.status, await crashed.json()]).toEqual([500, { message: 'Internal Server Error' }]);
      open();
      expect((await first).status).toBe(200);
      const late = await fetch(`${gateway.url}/never`);
      expect([late.status, await late.json()]).toEqual([503, { message: 'Service Unavailable' }]);
    } finally {
      await gateway.close();
    }
  });
});

describe('callers that retry a throttle until it passes', () => {
  const functionArn = (id: string) => `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:throttles-${id}`;

  it('Step Functions: the ASL retries Lambda.TooManyRequestsException and both executions finish', async () => {
    const { opened, open } = gate();
    // The first throttle lets the execution holding TransferVideo's one execution go on.
    const limits = watched(open);
    const answers: Record<string, unknown> = {
      PrepareInputs: {},
      StartUpstream: { state: 'started', job_id: 'j', check_seconds: 1 },
      CompleteTask: { status: 'success', notify: false },
    };
    const transfer = localFunction(
      { id: 'TransferVideo', uses: [], reservedConcurrency: 1 },
      async () => async () => {
        await opened;
        return { video_key: 'videos/a/t.mp4', bytes: 1, aigc: null };
      },
      'TransferVideo',
      limits,
    );
    const handlers: Record<string, LocalLambdaHandler> = {};
    for (const fn of WORKFLOW_FUNCTIONS) {
      handlers[functionArn(fn.id)] = async (event) => {
        const token = (event as { task_token?: string }).task_token;
        if (token === undefined) return fn.id === 'TransferVideo' ? transfer(event) : answers[fn.id];
        const output =
          fn.id === 'AwaitCompletion'
            ? { state: 'succeeded', job_id: 'j', provider: 'ark', video_url: 'u', video_key: 'k' }
            : {};
        void sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify(output) }));
        return null;
      };
    }
    const stateMachineArn = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:throttles`;
    const sqs = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: 'http://127.0.0.1:9' });
    const machine = await startLocalStepFunctions({
      definition: aslDefinition(functionArn),
      stateMachineArn,
      lambdaHandlers: handlers,
      sqs,
      retryIntervalOverrides: Object.fromEntries(WORKFLOW_FUNCTIONS.map((fn) => [fn.id, 0])),
    });
    const sfn = new SFNClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: machine.endpoint });
    try {
      for (const name of [randomUUID(), randomUUID()]) {
        await sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify({ task_id: name }) }));
      }
      const executions = await pollUntil(
        async () => machine.executions(),
        (all) => all.length === 2 && all.every((e) => e.status !== 'RUNNING'),
        { timeoutMs: 60_000 },
      );
      expect(executions.map((e) => e.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
      expect(limits.throttles).toBeGreaterThanOrEqual(1);
    } finally {
      await machine.close();
      sfn.destroy();
      sqs.destroy();
    }
  });

  describe('the tasks stream source', () => {
    const local = useDynamoDbLocal('throttles');

    it('reads a throttled batch again, not as one of its retries, and hands it over once it runs', async () => {
      const { opened, open } = gate();
      const limits = watched(open);
      const errors: unknown[] = [];
      const delivered: string[] = [];
      const starter = localFunction<{ Records: { dynamodb?: { NewImage?: Record<string, { S?: string }> } }[] }, void>(
        { id: 'StartExecutions', uses: [], reservedConcurrency: 1 },
        async () => async (event) => {
          for (const record of event.Records) delivered.push(record.dynamodb!.NewImage!['task_id']!.S!);
        },
        'StartExecutions',
        limits,
      );
      // Another invocation holds the function's one execution until the source is throttled.
      const holder = localFunction(
        { id: 'StartExecutions', uses: [], reservedConcurrency: 1 },
        async () => () => opened,
        'StartExecutions',
        limits,
      )({});
      const source = await startDynamoDbStreamSource({
        dynamoDb: local.client,
        endpoint: local.dynamo.endpoint,
        tableName: local.names.tables.tasks,
        handler: async () => async (event) => starter(event as never),
        functionName: 'StartExecutions',
        timeoutMs: 5_000,
        batchSize: TASK_STARTS.batchSize,
        filterPattern: TASK_STARTS.filterPattern,
        // No retry at all for a function error: a throttle must not use one.
        retryAttempts: 0,
        idlePollMs: 20,
        retryPauseMs: 20,
        onError: (error) => errors.push(error),
      });
      try {
        const taskId = `pending-${randomUUID()}`;
        await local.db.send(
          new PutCommand({
            TableName: local.names.tables.tasks,
            Item: { task_id: taskId, status: 'pending', updated_at: new Date().toISOString() },
          }),
        );
        await pollUntil(
          async () => delivered,
          (seen) => seen.includes(taskId),
          { timeoutMs: 60_000 },
        );
        await holder;
        expect(delivered).toEqual([taskId]);
        expect(limits.throttles).toBeGreaterThanOrEqual(1);
        expect(errors).toEqual([]);
      } finally {
        open();
        await source.stop();
      }
    });
  });

  describe('the SQS source', () => {
    let fauxqs: Fauxqs;
    let sqs: SQSClient;
    beforeAll(async () => {
      fauxqs = await startS3AndSqs(undefined);
      sqs = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: fauxqs.endpoint });
    });
    afterAll(async () => {
      sqs?.destroy();
      await fauxqs?.stop();
    });

    it('invokes a throttled batch again while it is invisible, then deletes it: no failure, no second receive', async () => {
      const { opened, open } = gate();
      const limits = watched(open);
      const created = await createWebhookQueues(sqs, fauxqs.endpoint, physicalNames(`throttle${Date.now()}`));
      const handled: { body: string; receives: string }[] = [];
      const consumer = localFunction<
        { Records: { body: string; attributes: { ApproximateReceiveCount: string } }[] },
        void
      >(
        { id: 'DeliverWebhook', uses: [], reservedConcurrency: 1 },
        async () => async (event) => {
          for (const r of event.Records) handled.push({ body: r.body, receives: r.attributes.ApproximateReceiveCount });
        },
        'DeliverWebhook',
        limits,
      );
      const holder = localFunction(
        { id: 'DeliverWebhook', uses: [], reservedConcurrency: 1 },
        async () => () => opened,
        'DeliverWebhook',
        limits,
      )({});
      const errors: unknown[] = [];
      const source = startSqsEventSource({
        sqs,
        queueUrl: created.queue.url,
        queueArn: created.queue.arn,
        handler: async () => async (event) => consumer(event as never),
        functionName: 'DeliverWebhook',
        visibilityTimeoutSeconds: 180,
        throttlePauseMs: 20,
        onError: (error) => errors.push(error),
      });
      try {
        await sqs.send(new SendMessageCommand({ QueueUrl: created.queue.url, MessageBody: 'hello' }));
        await pollUntil(
          async () => handled,
          (seen) => seen.length > 0,
          { timeoutMs: 60_000 },
        );
        await holder;
        expect(handled).toEqual([{ body: 'hello', receives: '1' }]);
        expect(limits.throttles).toBeGreaterThanOrEqual(1);
        expect(errors).toEqual([]);
      } finally {
        open();
        await source.stop();
      }
    });
  });
});

/** The real definition, its tokens filled (the queue is never called: no fake asks for a webhook). */
function aslDefinition(functionArn: (id: string) => string): Record<string, unknown> {
  const substitutions: Record<string, string> = {
    [ASL_RESOURCE_TOKENS.webhookQueueUrl]: 'http://127.0.0.1:9/none',
    [ASL_RESOURCE_TOKENS.partition]: 'aws',
  };
  for (const fn of WORKFLOW_FUNCTIONS) substitutions[fn.aslToken] = functionArn(fn.id);
  const text = readFileSync(join(REPOSITORY_ROOT, STATE_MACHINE.definitionFile), 'utf8');
  return JSON.parse(text.replace(/\$\{(\w+)\}/g, (_m, token: string) => substitutions[token] ?? token)) as Record<
    string,
    unknown
  >;
}
