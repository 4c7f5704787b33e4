/**
 * Completion webhooks end to end (docs/webhooks.md; docs/security.md, "URL policy"): real tasks over HTTP, receivers on
 * 127.0.0.1 that verify with `standardwebhooks` and the secret the admin CLI prints. Retries on a short
 * schedule (1 s, 1 s, 1 s); each test has its own accounts and receivers, so they run concurrently.
 */
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';
import { resourceEnvironment } from '../../functions/adapters/runtime/resources.js';
import { askedAgainWhileBusy, callApi, newAccount, pollUntil } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';
import type { SharedStack } from '../support/shared-stack.js';

const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface WebhookView {
  state: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  delivered_at: string | null;
}

interface TaskData {
  task_id: string;
  status: string;
  video_url: string | null;
  cost: number;
  finished_at: string | null;
  error_message: string | null;
  webhook: WebhookView | null;
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A webhook receiver on 127.0.0.1 answering each POST with `answer(n)` (n counts from 1), once `hold(n)`
 * lets it (a receiver that hangs).
 */
async function startReceiver(answer: (n: number) => number = () => 200, hold?: (n: number) => Promise<void>) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const n = received.length;
      void (hold?.(n) ?? Promise.resolve()).then(() =>
        res.writeHead(answer(n), { 'content-type': 'text/plain' }).end('ok'),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receivers.push(server);
  return { url: `http://127.0.0.1:${port}/hooks/video`, received };
}

let stack: SharedStack;
let sqs: SQSClient;
const receivers: Server[] = [];

beforeAll(async () => {
  // The shared stack's webhook retries come a second apart, three of them (shared-stack-setup.ts).
  stack = sharedStack();
  sqs = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: stack.endpoints.sqs });
});
afterAll(async () => {
  sqs?.destroy();
  for (const server of receivers) server.closeAllConnections();
  await Promise.all(receivers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/**
 * `npm run --silent admin -- <args>` against this stack, found as the CLI finds a deployed one: by the table
 * names in its environment (and the SDK's endpoint variable pointing at DynamoDB Local).
 */
async function adminLastLine(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'admin', '--', ...args], {
    cwd: REPOSITORY_ROOT,
    env: {
      ...process.env,
      ...resourceEnvironment(stack.names),
      AWS_ENDPOINT_URL_DYNAMODB: stack.endpoints.dynamodb,
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    },
  });
  return stdout.trim().split('\n').at(-1) ?? '';
}

async function submit(key: string, prompt: string, webhookUrl?: string): Promise<string> {
  const response = await askedAgainWhileBusy(() =>
    callApi<TaskData>(stack, 'POST', '/api/v1/video/generate', {
      key,
      body: { model: 'seedance-1.5-pro', prompt, duration: 5, ...(webhookUrl ? { webhook_url: webhookUrl } : {}) },
    }),
  );
  expect(response.body.code).toBe(0);
  return response.body.data.task_id;
}

async function getTask(key: string, taskId: string): Promise<TaskData> {
  return (await callApi<TaskData>(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key })).body.data;
}

function waitForWebhook(key: string, taskId: string, done: (webhook: WebhookView) => boolean) {
  return pollUntil(
    () => getTask(key, taskId),
    (task) => task.webhook !== null && done(task.webhook),
    { timeoutMs: 120_000, intervalMs: 100 },
  );
}

async function queueIsEmpty(url: string): Promise<boolean> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Attributes?.ApproximateNumberOfMessages === '0' && Attributes.ApproximateNumberOfMessagesNotVisible === '0';
}

function headersOf(request: Received): Record<string, string> {
  return {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
}

describe.concurrent('a receiver that answers 200', () => {
  it('gets one signed POST per final task, success and failure, verifiable with the secret from the CLI', async () => {
    const { accountId, key } = await newAccount(stack, '50');
    const receiver = await startReceiver();
    const [secret, succeeded, failed] = await Promise.all([
      adminLastLine('webhook:secret', '--account', accountId),
      submit(key, 'a lighthouse at dusk', receiver.url),
      submit(key, 'this will fail [simulate:fail]', receiver.url),
    ]);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    const [successTask, failedTask] = await Promise.all([
      waitForWebhook(key, succeeded, (webhook) => webhook.state === 'delivered'),
      waitForWebhook(key, failed, (webhook) => webhook.state === 'delivered'),
    ]);
    await pollUntil(() => queueIsEmpty(stack.webhookQueues.queue.url), Boolean, { timeoutMs: 120_000 });
    expect(receiver.received).toHaveLength(2);

    const verifier = new Webhook(secret);
    const payloads = receiver.received.map((request) => {
      expect(request.headers['content-type']).toBe('application/json');
      expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      return verifier.verify(request.body, headersOf(request)) as Record<string, unknown>;
    });
    const successPayload = payloads.find((payload) => payload['task_id'] === succeeded);
    const failurePayload = payloads.find((payload) => payload['task_id'] === failed);

    expect(successPayload).toEqual({
      type: 'task.succeeded',
      task_id: succeeded,
      status: 'success',
      model: 'seedance-1.5-pro',
      video_url: expect.stringMatching(/^https?:\/\//),
      result_url: successPayload?.['video_url'],
      cost: 4.2,
      finished_at: successTask.finished_at,
    });
    const video = await fetch(successPayload?.['video_url'] as string);
    expect(video.status).toBe(200);
    await video.arrayBuffer();

    expect(failurePayload).toEqual({
      type: 'task.failed',
      task_id: failed,
      status: 'failed',
      model: 'seedance-1.5-pro',
      error_message: failedTask.error_message,
      cost: 4.2,
      finished_at: failedTask.finished_at,
    });
    expect(failedTask.error_message).toMatch(/^generation failed: /);

    for (const task of [successTask, failedTask]) {
      expect(task.webhook).toEqual({
        state: 'delivered',
        attempts: 1,
        last_status_code: 200,
        last_error: null,
        last_attempt_at: expect.any(String),
        delivered_at: expect.any(String),
      });
    }
  });

  it('sends nothing for a task without webhook_url, whose view shows webhook: null', async () => {
    const { key } = await newAccount(stack, '10');
    const taskId = await submit(key, 'no callback wanted');
    const task = await pollUntil(
      () => getTask(key, taskId),
      (view) => view.status === 'success',
      { timeoutMs: 120_000 },
    );
    expect(task.webhook).toBeNull();
    const execution = await pollUntil(
      () => stack.execution(taskId),
      (record) => record?.status === 'SUCCEEDED',
      { timeoutMs: 120_000 },
    );
    expect(JSON.parse(execution?.output ?? '{}')).toMatchObject({ completion: { status: 'success', notify: false } });
  });

  it('signs with the old and the new secret after a rotation, and each alone verifies', async () => {
    const { accountId, key } = await newAccount(stack, '10');
    const receiver = await startReceiver();
    const oldSecret = await adminLastLine('webhook:secret', '--account', accountId);
    const newSecret = await adminLastLine('webhook:rotate', '--account', accountId);
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(await stack.admin.webhookSecret(accountId)).toBe(newSecret);

    const taskId = await submit(key, 'a rotation', receiver.url);
    await waitForWebhook(key, taskId, (webhook) => webhook.state === 'delivered');
    const [request] = receiver.received;
    expect(String(request?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [oldSecret, newSecret]) {
      expect(new Webhook(secret).verify(request!.body, headersOf(request!))).toMatchObject({ task_id: taskId });
    }
  });
});

describe.concurrent('a receiver that fails', () => {
  it('answering 500 three times and then 200: four tries, one delivery, one webhook-id', async () => {
    const { accountId, key } = await newAccount(stack, '10');
    const receiver = await startReceiver((n) => (n <= 3 ? 500 : 200));
    const taskId = await submit(key, 'third time lucky', receiver.url);

    const task = await waitForWebhook(key, taskId, (webhook) => webhook.state === 'delivered');
    expect(task.webhook).toMatchObject({ state: 'delivered', attempts: 4, last_status_code: 200, last_error: null });
    expect(receiver.received).toHaveLength(4);
    expect(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size).toBe(1);
    // Backoff: each retry waited its scheduled second.
    for (let n = 1; n < 4; n += 1) {
      expect(receiver.received[n]!.at - receiver.received[n - 1]!.at).toBeGreaterThanOrEqual(900);
    }
    const secret = await stack.admin.webhookSecret(accountId);
    expect(new Webhook(secret).verify(receiver.received[3]!.body, headersOf(receiver.received[3]!))).toMatchObject({
      task_id: taskId,
      status: 'success',
    });
  });

  it('always failing: the message reaches the dead-letter queue after the last try; the task is unchanged', async () => {
    const { key } = await newAccount(stack, '10');
    const receiver = await startReceiver(() => 503);
    const taskId = await submit(key, 'nobody home', receiver.url);
    const balanceAfterSubmit = (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key }))
      .body.data.balance;

    const deadLetter = await pollUntil(
      async () => {
        const { Messages } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: stack.webhookQueues.deadLetterQueue.url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            VisibilityTimeout: 0,
            MessageAttributeNames: ['All'],
          }),
        );
        return (Messages ?? []).find((message) => message.Body?.includes(taskId));
      },
      (message) => message !== undefined,
      { timeoutMs: 120_000, intervalMs: 0 },
    );
    // Parked by the consumer after the last try, with the count a redrive would carry on from.
    expect(JSON.parse(deadLetter?.Body ?? '{}')).toEqual({ task_id: taskId, event: 'task.success', attempts: 4 });
    expect(deadLetter?.MessageAttributes?.['reason']?.StringValue).toBe('HTTP 503; that was try 4 of 4');
    expect(receiver.received).toHaveLength(4);
    expect(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size).toBe(1);

    const task = await getTask(key, taskId);
    expect(task).toMatchObject({ status: 'success', cost: 4.2, error_message: null });
    expect(task.webhook).toMatchObject({ state: 'failed', attempts: 4, last_status_code: 503, delivered_at: null });
    const balance = (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key })).body.data
      .balance;
    expect(balance).toBe(balanceAfterSubmit);
  });

  it("a receiver that hangs holds back no other account's webhook", async () => {
    const slow = await newAccount(stack, '10');
    const quick = await newAccount(stack, '10');
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const hanging = await startReceiver(
      () => 200,
      () => released,
    );
    const answering = await startReceiver();

    const slowTask = await submit(slow.key, 'a receiver that hangs', hanging.url);
    await pollUntil(
      async () => hanging.received.length,
      (count) => count === 1,
      { timeoutMs: 120_000, intervalMs: 50 },
    );
    const quickTask = await submit(quick.key, 'a receiver that answers', answering.url);
    const delivered = await waitForWebhook(quick.key, quickTask, (webhook) => webhook.state === 'delivered');
    // Delivered while the other try still hangs: that one has recorded nothing yet (not even its 15 s timeout).
    expect(delivered.webhook).toMatchObject({ attempts: 1 });
    expect((await getTask(slow.key, slowTask)).webhook).toMatchObject({ state: 'pending', attempts: 0 });

    release();
    const slowView = await waitForWebhook(slow.key, slowTask, (webhook) => webhook.state === 'delivered');
    expect(slowView.webhook).toMatchObject({ attempts: 1 });
    expect(hanging.received).toHaveLength(1);
  });

  it('a private address is refused even locally, at submit: no task, no charge', async () => {
    // (A name that only resolves to a private address later is refused at connect time: see the
    // webhook-sender and public-address unit tests.)
    const { key } = await newAccount(stack, '10');
    const response = await callApi<TaskData>(stack, 'POST', '/api/v1/video/generate', {
      key,
      body: {
        model: 'seedance-1.5-pro',
        prompt: 'x',
        duration: 5,
        webhook_url: 'http://169.254.169.254/latest/meta-data/',
      },
    });
    expect(response.body).toMatchObject({ code: 400, data: null });
    expect(response.body.message).toMatch(/^webhook_url: .*not a public address/);
    const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
    expect(balance.body.data.balance).toBe(10);
  });
});
