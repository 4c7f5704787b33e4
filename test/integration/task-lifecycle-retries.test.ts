/**
 * The Retry and Catch of statemachine/task-lifecycle.asl.json, run by the local Step Functions with the workflow
 * functions faked: Lambda's invoke errors are retried in every Lambda state, a look at the job that timed out
 * is retried instead of refunded, a StartUpstream whose outcome is unknown is never retried (no second upstream
 * job), one the upstream has no room for (429) goes back to the waiting room without a refund, and a wait whose
 * token nobody answers times out into another look (the fallback poll).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';
import { startLocalStepFunctions } from '../../lib/dev/local/step-functions-server.js';
import type { LocalLambdaHandler, LocalStepFunctions } from '../../lib/dev/local/step-functions-server.js';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';
import { STATE_MACHINE } from '../../functions/adapters/runtime/resources.js';
import { ASL_RESOURCE_TOKENS, WORKFLOW_FUNCTIONS } from '../../lib/ship/routes.js';
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

type Fake = LocalLambdaHandler & { calls: number };
type Fakes = Record<string, Fake>;

/** The real definition, tokens filled. No fake asks for a webhook, so the queue is never called. */
function definition(): Record<string, unknown> {
  const substitutions: Record<string, string> = {
    [ASL_RESOURCE_TOKENS.webhookQueueUrl]: 'http://127.0.0.1:9/none',
    [ASL_RESOURCE_TOKENS.partition]: 'aws',
  };
  for (const fn of WORKFLOW_FUNCTIONS) substitutions[fn.aslToken] = functionArn(fn.id);
  const text = readFileSync(join(REPOSITORY_ROOT, STATE_MACHINE.definitionFile), 'utf8').replace(
    /\$\{(\w+)\}/g,
    (_match, token: string) => substitutions[token] ?? `unsubstituted-${token}`,
  );
  return JSON.parse(text) as Record<string, unknown>;
}

const named = (name: string, message = name) => Object.assign(new Error(message), { name });
/**
 * A handler that throws each of `errors` once, in order, then answers `result`; its calls are counted. Called
 * by a `.waitForTaskToken` state (its payload has a `task_token`), it answers the token instead, as the real
 * functions do (or, for `silent` calls, leaves it unanswered: the state times out).
 */
function flaky(errors: string[], result: unknown, silent = 0): Fake {
  const handler = Object.assign(
    async (event: unknown) => {
      handler.calls += 1;
      const error = errors[handler.calls - 1];
      if (error) throw named(error);
      const token = (event as { task_token?: string }).task_token;
      if (token === undefined) return result;
      if (handler.calls - errors.length > silent) {
        await sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify(result) }));
      }
      return null;
    },
    { calls: 0 },
  );
  return handler;
}

const prepared = { prepared: 0 };
const slot = { slot: 'taken' };
const started = { state: 'started', job_id: 'job-1', check_seconds: 1 };
const succeeded = {
  state: 'succeeded',
  job_id: 'job-1',
  provider: 'ark',
  video_url: 'https://upstream.example.com/v.mp4',
  video_key: 'videos/a/t.mp4',
};
const transferred = { video_key: 'videos/a/t.mp4', bytes: 1, aigc: null };
const completed = { status: 'success', notify: false };
const refunded = { status: 'failed', refunded: true, notify: false };

const sqs = new SQSClient({ ...clientConfig, endpoint: 'http://127.0.0.1:9' });
/** Pointed at the machine of the test running now (tests in a file run one at a time). */
let sfn = new SFNClient({ ...clientConfig, endpoint: 'http://127.0.0.1:9' });
const machines: LocalStepFunctions[] = [];
afterAll(async () => {
  for (const machine of machines) await machine.close();
  sqs.destroy();
  sfn.destroy();
});

/** One execution with the given fakes (any other function throws); every retry without its wait. */
async function run(fakes: Fakes, historyEventLimit?: number) {
  const stateMachineArn = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:retries`;
  const handlers: Record<string, LocalLambdaHandler> = {};
  for (const fn of WORKFLOW_FUNCTIONS) {
    handlers[functionArn(fn.id)] = fakes[fn.id] ?? (async () => Promise.reject(named('Unexpected', `${fn.id} ran`)));
  }
  const machine = await startLocalStepFunctions({
    definition: definition(),
    stateMachineArn,
    lambdaHandlers: handlers,
    sqs,
    retryIntervalOverrides: Object.fromEntries(WORKFLOW_FUNCTIONS.map((fn) => [fn.id, 0])),
    ...(historyEventLimit !== undefined && { historyEventLimit }),
  });
  machines.push(machine);
  sfn.destroy();
  sfn = new SFNClient({ ...clientConfig, endpoint: machine.endpoint });
  const { execution } = await runOneExecution(machine, stateMachineArn);
  await machine.idle();
  return {
    status: execution?.status,
    output: JSON.parse(execution?.output ?? 'null') as Record<string, unknown> | null,
    error: execution?.error,
    cause: execution?.cause,
    historyEvents: execution?.historyEvents ?? 0,
  };
}

/** Every function answering as on a task that succeeds; `overrides` replace some. */
function happy(overrides: Partial<Fakes> = {}): Fakes {
  return {
    PrepareInputs: flaky([], prepared),
    WaitForUpstreamSlot: flaky([], slot),
    StartUpstream: flaky([], started),
    AwaitCompletion: flaky([], succeeded),
    TransferVideo: flaky([], transferred),
    CompleteTask: flaky([], completed),
    FailAndRefund: flaky([], refunded),
    ...overrides,
  } as Fakes;
}

describe("Lambda's invoke errors", () => {
  it.each(WORKFLOW_FUNCTIONS.map((fn) => fn.id).filter((id) => id !== 'FailAndRefund'))(
    '%s retries each of them, and the task succeeds without a refund',
    async (state) => {
      const results: Record<string, unknown> = {
        PrepareInputs: prepared,
        WaitForUpstreamSlot: slot,
        StartUpstream: started,
        AwaitCompletion: succeeded,
        TransferVideo: transferred,
        CompleteTask: completed,
      };
      const fakes = happy({ [state]: flaky(LAMBDA_INVOKE_ERRORS, results[state]) });
      const result = await run(fakes);
      expect(result.status).toBe('SUCCEEDED');
      expect(result.output).toMatchObject({ completion: completed });
      expect(fakes[state]?.calls).toBe(LAMBDA_INVOKE_ERRORS.length + 1);
      expect(fakes['FailAndRefund']?.calls).toBe(0);
    },
  );

  it('FailAndRefund retries each of them, and refunds', async () => {
    const fakes = happy({
      AwaitCompletion: flaky(['UpstreamJobFailedError'], succeeded),
      FailAndRefund: flaky(LAMBDA_INVOKE_ERRORS, refunded),
    });
    const result = await run(fakes);
    expect(result.status).toBe('SUCCEEDED');
    expect(result.output).toMatchObject({ refund: refunded, error: { Error: 'UpstreamJobFailedError' } });
    expect(fakes['FailAndRefund']?.calls).toBe(LAMBDA_INVOKE_ERRORS.length + 1);
  });
});

describe('a function that timed out or ran out of memory', () => {
  it('AwaitCompletion: looked again, not refunded (the upstream job keeps generating)', async () => {
    const fakes = happy({ AwaitCompletion: flaky(['Lambda.Unknown', 'Sandbox.Timedout'], succeeded) });
    const result = await run(fakes);
    expect(result.status).toBe('SUCCEEDED');
    expect([fakes['AwaitCompletion']?.calls, fakes['FailAndRefund']?.calls]).toEqual([3, 0]);
  });

  it.each(['Lambda.Unknown', 'UpstreamOutcomeUnknownError'])(
    'StartUpstream (%s): never run again, since a second create may bill a second job; failed and refunded',
    async (error) => {
      const fakes = happy({ StartUpstream: flaky([error], started) });
      const result = await run(fakes);
      expect(result.status).toBe('SUCCEEDED');
      expect(result.output).toMatchObject({ error: { Error: error }, refund: refunded });
      expect([fakes['StartUpstream']?.calls, fakes['FailAndRefund']?.calls]).toEqual([1, 1]);
    },
  );

  it('TransferVideo: not retried (it would time out again); failed and refunded', async () => {
    const fakes = happy({ TransferVideo: flaky(['Lambda.Unknown'], transferred) });
    const result = await run(fakes);
    expect(result.output).toMatchObject({ error: { Error: 'Lambda.Unknown' } });
    expect([fakes['TransferVideo']?.calls, fakes['FailAndRefund']?.calls]).toEqual([1, 1]);
  });
});

describe('the waits (task tokens)', () => {
  it('an upstream with no room after all (429): back to the waiting room, again and again, no refund', async () => {
    const fakes = happy({
      StartUpstream: flaky(
        Array.from({ length: 5 }, () => 'WaitingForUpstreamError'),
        started,
      ),
    });
    const result = await run(fakes);
    expect(result.status).toBe('SUCCEEDED');
    expect(result.output).toMatchObject({ completion: completed });
    expect([fakes['WaitForUpstreamSlot']?.calls, fakes['StartUpstream']?.calls, fakes['FailAndRefund']?.calls]).toEqual(
      [6, 6, 0],
    );
  });

  it('only the deadline ends a wait for a slot: GenerationTimedOutError, refunded once as timed out', async () => {
    const fakes = happy({ WaitForUpstreamSlot: flaky(['GenerationTimedOutError'], slot) });
    const result = await run(fakes);
    expect(result.status).toBe('SUCCEEDED');
    expect(result.output).toMatchObject({ error: { Error: 'GenerationTimedOutError' }, refund: refunded });
    expect([fakes['StartUpstream']?.calls, fakes['FailAndRefund']?.calls]).toEqual([0, 1]);
  });

  it("a job's end nobody reports: the wait times out (StartUpstream's check_seconds) and looks again", async () => {
    const fakes = happy({ AwaitCompletion: flaky([], succeeded, 2) });
    const result = await run(fakes);
    expect(result.status).toBe('SUCCEEDED');
    expect(result.output).toMatchObject({ upstream: succeeded, completion: completed });
    expect([fakes['AwaitCompletion']?.calls, fakes['FailAndRefund']?.calls]).toEqual([3, 0]);
  });
});

describe('the execution history limit (AWS: 25,000 events)', () => {
  it('an execution past the limit fails, as in AWS', async () => {
    const fakes = happy({
      StartUpstream: flaky(
        Array.from({ length: 1000 }, () => 'WaitingForUpstreamError'),
        started,
      ),
    });
    const result = await run(fakes, 300);
    expect(result).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect(result.cause).toMatch(/history reached 300 events/);
    expect(fakes['StartUpstream']?.calls).toBeLessThan(1000);
  });

  it('a 12-hour wait on the clock of retries (a re-entry every 2 minutes, a refused probe every 10) stays far below it', async () => {
    // 360 re-entries of the waiting state (its 2-minute timeout) and 72 refused creates: 12 hours of waiting
    // with the room's worst case for one task, run without the waits.
    const timeouts = Array.from({ length: 360 }, () => 'States.Timeout');
    const refusals = Array.from({ length: 72 }, () => 'WaitingForUpstreamError');
    const fakes = happy({
      WaitForUpstreamSlot: flaky(timeouts, slot),
      StartUpstream: flaky(refusals, started),
    });
    const result = await run(fakes);
    expect(result.status).toBe('SUCCEEDED');
    expect(fakes['FailAndRefund']?.calls).toBe(0);
    expect(result.historyEvents).toBeLessThan(25_000 / 4);
  });
});
