/**
 * The Retry and Catch of statemachine/task-lifecycle.asl.json, run by the local Step Functions with the workflow
 * functions faked: Lambda's invoke errors are retried in every Lambda state, a poll that timed out is retried
 * instead of refunded, a StartUpstream whose outcome is unknown is never retried (no second upstream job), and
 * one the upstream has no room for (429) waits without a refund until the task's deadline.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/local-aws.js';
import { startLocalStepFunctions } from '../../lib/local/step-functions-server.js';
import type { LocalLambdaHandler, LocalStepFunctions } from '../../lib/local/step-functions-server.js';
import { REPOSITORY_ROOT } from '../../lib/repository-root.js';
import { STATE_MACHINE } from '../../functions/adapters/resources.js';
import { ASL_RESOURCE_TOKENS, WORKFLOW_FUNCTIONS } from '../../lib/routes.js';
import { runOneExecution } from '../support/one-execution.js';

const functionArn = (id: string) => `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:retries-${id}`;
const clientConfig = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
/** AWS's list ("Handle Lambda service exceptions", Step Functions guide), with Lambda's throttle. */
const LAMBDA_INVOKE_ERRORS = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.ClientExecutionTimeoutException',
  'Lambda.TooManyRequestsException',
];

type Fakes = Record<string, LocalLambdaHandler>;

/** The real definition, tokens filled. No fake asks for a webhook, so the queue is never called. */
function definition(): Record<string, unknown> {
  const substitutions: Record<string, string> = { [ASL_RESOURCE_TOKENS.webhookQueueUrl]: 'http://127.0.0.1:9/none' };
  for (const fn of WORKFLOW_FUNCTIONS) substitutions[fn.aslToken] = functionArn(fn.id);
  const text = readFileSync(join(REPOSITORY_ROOT, STATE_MACHINE.definitionFile), 'utf8').replace(
    /\$\{(\w+)\}/g,
    (_match, token: string) => substitutions[token] ?? `unsubstituted-${token}`,
  );
  return JSON.parse(text) as Record<string, unknown>;
}

const named = (name: string, message = name) => Object.assign(new Error(message), { name });
/** A handler that throws each of `errors` once, in order, then answers `result`; its calls are counted. */
function flaky(errors: string[], result: unknown) {
  const handler = Object.assign(
    async () => {
      handler.calls += 1;
      const error = errors[handler.calls - 1];
      if (error) throw named(error);
      return result;
    },
    { calls: 0 },
  );
  return handler;
}

const started = { state: 'started', job_id: 'job-1' };
const succeeded = {
  state: 'succeeded',
  job_id: 'job-1',
  video_url: 'https://upstream.example.com/v.mp4',
  video_key: 'videos/a/t.mp4',
};
const transferred = { video_key: 'videos/a/t.mp4', bytes: 1 };
const completed = { status: 'success', notify: false };
const refunded = { status: 'failed', refunded: true, notify: false };

const sqs = new SQSClient({ ...clientConfig, endpoint: 'http://127.0.0.1:9' });
const machines: LocalStepFunctions[] = [];
afterAll(async () => {
  for (const machine of machines) await machine.close();
  sqs.destroy();
});

/** One execution with the given fakes (any other function throws); every retry without its wait. */
async function run(fakes: Fakes) {
  const stateMachineArn = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:retries`;
  const handlers: Fakes = {};
  for (const fn of WORKFLOW_FUNCTIONS) {
    handlers[functionArn(fn.id)] = fakes[fn.id] ?? (async () => Promise.reject(named('Unexpected', `${fn.id} ran`)));
  }
  const machine = await startLocalStepFunctions({
    definition: definition(),
    stateMachineArn,
    lambdaHandlers: handlers,
    sqs,
    retryIntervalOverrides: Object.fromEntries(WORKFLOW_FUNCTIONS.map((fn) => [fn.id, 0])),
    waitTimeOverrides: { WaitBeforeFirstPoll: 0 },
  });
  machines.push(machine);
  const { execution } = await runOneExecution(machine, stateMachineArn);
  await machine.idle();
  return {
    status: execution?.status,
    output: JSON.parse(execution?.output ?? 'null') as Record<string, unknown> | null,
  };
}

describe("Lambda's invoke errors", () => {
  it.each(['StartUpstream', 'PollUpstream', 'TransferVideo', 'CompleteTask'])(
    '%s retries each of them, and the task succeeds without a refund',
    async (state) => {
      const results = {
        StartUpstream: started,
        PollUpstream: succeeded,
        TransferVideo: transferred,
        CompleteTask: completed,
        FailAndRefund: refunded,
      };
      const fakes = Object.fromEntries(
        Object.entries(results).map(([id, answer]) => [id, flaky(id === state ? LAMBDA_INVOKE_ERRORS : [], answer)]),
      );
      const result = await run(fakes);
      expect(result.status).toBe('SUCCEEDED');
      expect(result.output).toMatchObject({ completion: completed });
      expect(fakes[state]?.calls).toBe(LAMBDA_INVOKE_ERRORS.length + 1);
      expect(fakes['FailAndRefund']?.calls).toBe(0);
    },
  );

  it('FailAndRefund retries each of them, and refunds', async () => {
    const refund = flaky(LAMBDA_INVOKE_ERRORS, refunded);
    const result = await run({
      StartUpstream: flaky([], started),
      PollUpstream: flaky(['UpstreamJobFailedError'], succeeded),
      FailAndRefund: refund,
    });
    expect(result.status).toBe('SUCCEEDED');
    expect(result.output).toMatchObject({ refund: refunded, error: { Error: 'UpstreamJobFailedError' } });
    expect(refund.calls).toBe(LAMBDA_INVOKE_ERRORS.length + 1);
  });
});

describe('a function that timed out or ran out of memory', () => {
  it('PollUpstream: polled again, not refunded (the upstream job keeps generating)', async () => {
    const poll = flaky(['Lambda.Unknown', 'Sandbox.Timedout', 'GenerationInProgressError'], succeeded);
    const refund = flaky([], refunded);
    const result = await run({
      StartUpstream: flaky([], started),
      PollUpstream: poll,
      TransferVideo: flaky([], transferred),
      CompleteTask: flaky([], completed),
      FailAndRefund: refund,
    });
    expect(result.status).toBe('SUCCEEDED');
    expect([poll.calls, refund.calls]).toEqual([4, 0]);
  });

  it.each(['Lambda.Unknown', 'UpstreamOutcomeUnknownError'])(
    'StartUpstream (%s): never run again, since a second create may bill a second job; failed and refunded',
    async (error) => {
      const start = flaky([error], started);
      const refund = flaky([], refunded);
      const result = await run({ StartUpstream: start, FailAndRefund: refund });
      expect(result.status).toBe('SUCCEEDED');
      expect(result.output).toMatchObject({ error: { Error: error }, refund: refunded });
      expect([start.calls, refund.calls]).toEqual([1, 1]);
    },
  );

  it('TransferVideo: not retried (it would time out again); failed and refunded', async () => {
    const transfer = flaky(['Lambda.Unknown'], transferred);
    const refund = flaky([], refunded);
    const result = await run({
      StartUpstream: flaky([], started),
      PollUpstream: flaky([], succeeded),
      TransferVideo: transfer,
      FailAndRefund: refund,
    });
    expect(result.output).toMatchObject({ error: { Error: 'Lambda.Unknown' } });
    expect([transfer.calls, refund.calls]).toEqual([1, 1]);
  });
});

describe('an upstream with no room for the job (429, or a key or account to fix)', () => {
  it('StartUpstream waits and tries again, far past the bounded retries of other errors: no refund', async () => {
    const start = flaky(
      Array.from({ length: 40 }, () => 'WaitingForUpstreamError'),
      started,
    );
    const refund = flaky([], refunded);
    const result = await run({
      StartUpstream: start,
      PollUpstream: flaky([], succeeded),
      TransferVideo: flaky([], transferred),
      CompleteTask: flaky([], completed),
      FailAndRefund: refund,
    });
    expect(result.status).toBe('SUCCEEDED');
    expect(result.output).toMatchObject({ completion: completed });
    expect([start.calls, refund.calls]).toEqual([41, 0]);
  });

  it('only the deadline ends the wait: GenerationTimedOutError, refunded once as timed out', async () => {
    const start = flaky(
      [...Array.from({ length: 10 }, () => 'WaitingForUpstreamError'), 'GenerationTimedOutError'],
      started,
    );
    const refund = flaky([], refunded);
    const result = await run({ StartUpstream: start, FailAndRefund: refund });
    expect(result.status).toBe('SUCCEEDED');
    expect(result.output).toMatchObject({ error: { Error: 'GenerationTimedOutError' }, refund: refunded });
    expect([start.calls, refund.calls]).toEqual([11, 1]);
  });

  it("the wait's retrier cannot run out within an execution's life: its waits add up past the machine's timeout", () => {
    const asl = definition() as {
      TimeoutSeconds: number;
      States: Record<string, { Retry?: Record<string, unknown>[] }>;
    };
    const waiting = asl.States['StartUpstream']?.Retry?.find((retrier) =>
      (retrier['ErrorEquals'] as string[]).includes('WaitingForUpstreamError'),
    );
    expect(waiting?.['ErrorEquals']).toEqual(['WaitingForUpstreamError']);
    // No jitter: each wait is known, so their sum is too (FULL jitter could make any wait near 0 s).
    expect(waiting).not.toHaveProperty('JitterStrategy');
    const [interval, rate, cap, attempts] = ['IntervalSeconds', 'BackoffRate', 'MaxDelaySeconds', 'MaxAttempts'].map(
      (field) => Number(waiting?.[field]),
    ) as [number, number, number, number];
    expect(cap).toBeLessThanOrEqual(60);
    const total = Array.from({ length: attempts }, (_, retry) => Math.min(interval * rate ** retry, cap)).reduce(
      (sum, wait) => sum + wait,
      0,
    );
    expect(total).toBeGreaterThan(asl.TimeoutSeconds);
  });
});
