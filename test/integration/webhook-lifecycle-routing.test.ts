/**
 * The webhook states of statemachine/task-lifecycle.asl.json, run by the local Step Functions with the
 * workflow functions faked: the `notify` flag decides whether one message is queued, a task found
 * already failed (by a status query) still gets its message, and a queue that cannot be reached does not
 * change how the execution ends.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3AndSqs } from '../../lib/dev/local/emulators.js';
import type { Fauxqs } from '../../lib/dev/local/emulators.js';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';
import { createWebhookQueues } from '../../lib/dev/local/local-queues.js';
import { startLocalStepFunctions } from '../../lib/dev/local/step-functions-server.js';
import type { LocalLambdaHandler, LocalStepFunctions } from '../../lib/dev/local/step-functions-server.js';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';
import { physicalNames, STATE_MACHINE } from '../../functions/adapters/runtime/resources.js';
import { ASL_RESOURCE_TOKENS, WORKFLOW_FUNCTIONS } from '../../lib/ship/routes.js';
import { runOneExecution } from '../support/one-execution.js';

const functionArn = (id: string) => `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:routing-${id}`;
const clientConfig = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };

type Fakes = Record<string, LocalLambdaHandler>;

/** The real definition, tokens filled; the queue states retry once (the routing is under test, not the backoff). */
function definition(queueUrl: string): Record<string, unknown> {
  const substitutions: Record<string, string> = {
    [ASL_RESOURCE_TOKENS.webhookQueueUrl]: queueUrl,
    [ASL_RESOURCE_TOKENS.partition]: 'aws',
  };
  for (const fn of WORKFLOW_FUNCTIONS) substitutions[fn.aslToken] = functionArn(fn.id);
  const text = readFileSync(join(REPOSITORY_ROOT, STATE_MACHINE.definitionFile), 'utf8').replace(
    /\$\{(\w+)\}/g,
    (_match, token: string) => substitutions[token] ?? `unsubstituted-${token}`,
  );
  const machine = JSON.parse(text) as {
    States: Record<string, { Resource?: string; Retry?: { MaxAttempts: number }[] }>;
  };
  for (const state of Object.values(machine.States)) {
    if (state.Resource === 'arn:aws:states:::sqs:sendMessage')
      for (const retry of state.Retry ?? []) retry.MaxAttempts = 1;
  }
  return machine;
}

let fauxqs: Fauxqs;
let sqs: SQSClient;
/** Pointed at the machine of the test running now (tests in a file run one at a time). */
let sfn: SFNClient | undefined;
const machines: LocalStepFunctions[] = [];

beforeAll(async () => {
  fauxqs = await startS3AndSqs(undefined);
  sqs = new SQSClient({ ...clientConfig, endpoint: fauxqs.endpoint });
});
afterAll(async () => {
  for (const machine of machines) await machine.close();
  sqs?.destroy();
  sfn?.destroy();
  await fauxqs?.stop();
});

async function run(fakes: Fakes, queueUrl?: string) {
  const queues = await createWebhookQueues(sqs, fauxqs.endpoint, physicalNames(`r${randomUUID().slice(0, 8)}`), 4);
  const url = queueUrl ?? queues.queue.url;
  const stateMachineArn = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:routing`;
  const handlers: Fakes = {};
  // PrepareInputs has nothing to prepare in these tasks (no uploads): it passes through unless a test says otherwise.
  const passThrough: Fakes = { PrepareInputs: async () => ({ prepared: 0 }) };
  for (const fn of WORKFLOW_FUNCTIONS) {
    handlers[functionArn(fn.id)] =
      fakes[fn.id] ??
      passThrough[fn.id] ??
      (async () => {
        throw new Error(`${fn.id} should not run`);
      });
  }
  const machine = await startLocalStepFunctions({
    definition: definition(url),
    stateMachineArn,
    lambdaHandlers: handlers,
    sqs,
  });
  machines.push(machine);
  sfn?.destroy();
  sfn = new SFNClient({ ...clientConfig, endpoint: machine.endpoint });
  const { taskId, execution } = await runOneExecution(machine, stateMachineArn);
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queues.queue.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  );
  return {
    taskId,
    status: execution?.status,
    output: JSON.parse(execution?.output ?? 'null') as Record<string, unknown> | null,
    messages: (Messages ?? []).map((message) => JSON.parse(message.Body ?? '{}') as unknown),
  };
}

/**
 * A `.waitForTaskToken` function's fake: its token is answered with `output` (by the function itself, or,
 * with `later`, by someone else once it has returned: a callback or a status query).
 */
function answers(output: unknown, later = false): LocalLambdaHandler {
  return async (event) => {
    const send = () =>
      sfn!.send(
        new SendTaskSuccessCommand({
          taskToken: (event as { task_token: string }).task_token,
          output: JSON.stringify(output),
        }),
      );
    if (later) setTimeout(() => void send(), 50);
    else await send();
    return null;
  };
}
const slot = answers({ slot: 'taken' });
const waiting = async () => ({ state: 'started', job_id: 'job-1', check_seconds: 60 });
const upstreamFailed = async () => {
  throw Object.assign(new Error('the generator said no'), { name: 'UpstreamJobFailedError' });
};

describe("the wait for the job's end", () => {
  it('answered by someone else (a callback), the video is transferred once and the task succeeds', async () => {
    const transfers: unknown[] = [];
    const result = await run({
      WaitForUpstreamSlot: slot,
      StartUpstream: waiting,
      AwaitCompletion: answers(
        {
          state: 'succeeded',
          job_id: 'job-1',
          provider: 'ark',
          video_url: 'https://upstream.example.com/v.mp4',
          video_key: 'videos/a/t.mp4',
        },
        true,
      ),
      TransferVideo: async (input) => {
        transfers.push(input);
        return { video_key: 'videos/a/t.mp4', bytes: 1, aigc: null };
      },
      CompleteTask: async () => ({ status: 'success', notify: true }),
    });
    expect(result.status).toBe('SUCCEEDED');
    expect(transfers).toEqual([
      {
        task_id: result.taskId,
        source_url: 'https://upstream.example.com/v.mp4',
        job_id: 'job-1',
        provider: 'ark',
        video_key: 'videos/a/t.mp4',
      },
    ]);
    // A success's webhook is queued by CompleteTask itself (its function), never by the state machine.
    expect(result.messages).toEqual([]);
  });

  it('a job that ends in failure ends the wait: refunded once', async () => {
    let refunds = 0;
    const result = await run({
      WaitForUpstreamSlot: slot,
      StartUpstream: waiting,
      AwaitCompletion: upstreamFailed,
      FailAndRefund: async (input) => {
        refunds += 1;
        expect(input).toMatchObject({ error: { Error: 'UpstreamJobFailedError' } });
        return { status: 'failed', refunded: true, notify: false };
      },
    });
    expect(result.status).toBe('SUCCEEDED');
    expect(refunds).toBe(1);
  });
});

describe('webhook states of the task lifecycle', () => {
  it('a failure with notify queues one task.failed message', async () => {
    const result = await run({
      WaitForUpstreamSlot: slot,
      StartUpstream: waiting,
      AwaitCompletion: upstreamFailed,
      FailAndRefund: async () => ({ status: 'failed', refunded: true, notify: true }),
    });
    expect(result.status).toBe('SUCCEEDED');
    expect(result.messages).toEqual([{ task_id: result.taskId, event: 'task.failed' }]);
  });

  it('a failure without notify (no webhook_url) queues nothing', async () => {
    const result = await run({
      WaitForUpstreamSlot: slot,
      StartUpstream: waiting,
      AwaitCompletion: upstreamFailed,
      FailAndRefund: async () => ({ status: 'failed', refunded: true, notify: false }),
    });
    expect(result.status).toBe('SUCCEEDED');
    expect(result.messages).toEqual([]);
  });

  it('a task found already failed (a status query refunded it) still has its message queued', async () => {
    const result = await run({
      WaitForUpstreamSlot: slot,
      StartUpstream: waiting,
      AwaitCompletion: answers({ state: 'final', notify: true }),
    });
    expect(result.status).toBe('SUCCEEDED');
    expect(result.messages).toEqual([{ task_id: result.taskId, event: 'task.failed' }]);
  });

  it('a task found final without notify (cancelled) ends quietly', async () => {
    const result = await run({
      WaitForUpstreamSlot: slot,
      StartUpstream: async () => ({ state: 'final', check_seconds: 60 }),
      AwaitCompletion: answers({ state: 'final', notify: false }),
    });
    expect(result.status).toBe('SUCCEEDED');
    expect(result.messages).toEqual([]);
  });

  it('a queue that cannot be reached leaves the outcome as it was: succeeded, the error kept', async () => {
    const result = await run(
      {
        WaitForUpstreamSlot: slot,
        StartUpstream: waiting,
        AwaitCompletion: upstreamFailed,
        FailAndRefund: async () => ({ status: 'failed', refunded: true, notify: true }),
      },
      `${fauxqs.endpoint}/000000000000/no-such-queue`,
    );
    expect(result.status).toBe('SUCCEEDED');
    expect(result.output).toMatchObject({
      refund: { status: 'failed', notify: true },
      webhook_error: { Error: expect.stringMatching(/^SQS\./) },
    });
  });
});
