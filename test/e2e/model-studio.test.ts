/**
 * A Wan model end to end on the shared stack (docs/providers/model-studio.md): listed in /models with its
 * capabilities and prices, a task that succeeds (its webhook sent), one that fails and is refunded, one
 * cancelled while queued at Model Studio and refunded, and a request Model Studio would refuse answered 400
 * without a charge. The upstream is the Model Studio simulator.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askedAgainWhileBusy, callApi, newAccount, pollUntil } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';

interface TaskData {
  task_id: string;
  status: string;
  cost: number;
  video_url: string | null;
  error_message: string | null;
}
interface Job {
  prompt: string;
  status: string;
  request: { model?: string; parameters?: Record<string, unknown> };
}

const stack = sharedStack();
const simulatorJobs = async (prompt: string): Promise<Job[]> => {
  const response = await fetch(`${stack.endpoints.upstreams['model-studio'].baseUrl}/simulator/jobs`);
  return ((await response.json()) as Job[]).filter((job) => job.prompt === prompt);
};
const submit = (key: string, body: Record<string, unknown>) =>
  askedAgainWhileBusy(() => callApi<TaskData>(stack, 'POST', '/api/v1/video/generate', { key, body }));
const task = (key: string, id: string) => callApi<TaskData>(stack, 'GET', `/api/v1/video/tasks/${id}`, { key });
const balance = async (key: string) =>
  (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key })).body.data.balance;
const settled = (key: string, id: string) =>
  pollUntil(
    () => task(key, id),
    (answer) => ['success', 'failed', 'refunded', 'cancelled'].includes(answer.body.data.status),
    { timeoutMs: 180_000 },
  );

describe('Model Studio (Wan) through the same API', () => {
  const received: { body: Record<string, unknown> }[] = [];
  const receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      received.push({ body: JSON.parse(text) as Record<string, unknown> });
      res.writeHead(204).end();
    });
  });
  let hook = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('/models lists the Wan models with capabilities and prices', async () => {
    const { key } = await newAccount(stack, '1');
    const answer = await callApi<{ name: string; capabilities: Record<string, unknown>; pricing: unknown }[]>(
      stack,
      'GET',
      '/api/v1/models',
      { key },
    );
    const wan = answer.body.data.filter((model) => model.name.startsWith('wan2.7-'));
    expect(wan.map((model) => model.name).sort()).toEqual(['wan2.7-i2v', 'wan2.7-r2v', 'wan2.7-t2v']);
    const t2v = wan.find((model) => model.name === 'wan2.7-t2v');
    expect(t2v?.capabilities).toMatchObject({ text_to_video: true, resolutions: ['720p', '1080p'] });
    expect(JSON.stringify(t2v?.pricing)).toContain('0.9');
  });

  it('a task succeeds, its video is ours, its webhook is sent; the create is DashScope-shaped', async () => {
    const { key } = await newAccount(stack, '20');
    const prompt = `wan success ${randomUUID()}`;
    const submitted = await submit(key, {
      model: 'wan2.7-t2v',
      prompt,
      duration: 5,
      resolution: '1080p',
      webhook_url: hook,
    });
    expect(submitted.body).toMatchObject({ code: 0, data: { status: 'pending', cost: 6.75 } });
    const id = submitted.body.data.task_id;
    const final = await settled(key, id);
    expect(final.body.data).toMatchObject({ status: 'success', error_message: null });
    expect(final.body.data.video_url).toMatch(/^http/);
    const [job] = await simulatorJobs(prompt);
    expect(job?.request).toMatchObject({ model: 'wan2.7-t2v', parameters: { resolution: '1080P', duration: 5 } });
    const webhook = await pollUntil(
      async () => received.find((entry) => JSON.stringify(entry.body).includes(id)),
      Boolean,
      { timeoutMs: 120_000 },
    );
    expect(JSON.stringify(webhook?.body)).toContain('success');
    expect(await balance(key)).toBe(13.25);
  });

  it('a task Model Studio fails is refunded', async () => {
    const { key } = await newAccount(stack, '20');
    const id = (await submit(key, { model: 'wan2.7-t2v', prompt: `wan fail ${randomUUID()} [simulate:fail]` })).body
      .data.task_id;
    expect((await settled(key, id)).body.data.status).toBe('failed');
    await pollUntil(
      () => balance(key),
      (value) => value === 20,
      { timeoutMs: 120_000 },
    );
  });

  it('a task cancelled while queued at Model Studio is cancelled there and refunded', async () => {
    const { key } = await newAccount(stack, '20');
    const prompt = `wan queued ${randomUUID()} [simulate:queued]`;
    const id = (await submit(key, { model: 'wan2.7-t2v', prompt, duration: 5 })).body.data.task_id;
    await pollUntil(
      async () =>
        (await stack.db.send(new GetCommand({ TableName: stack.names.tables.tasks, Key: { task_id: id } }))).Item,
      (record) => typeof record?.['upstream_job_id'] === 'string',
      { timeoutMs: 120_000 },
    );
    const cancelled = await callApi<TaskData>(stack, 'POST', `/api/v1/video/tasks/${id}/cancel`, { key });
    expect(cancelled.body).toMatchObject({ code: 0, data: { task_id: id, status: 'refunded' } });
    expect(await balance(key)).toBe(20);
    expect((await simulatorJobs(prompt)).map((job) => job.status)).toEqual(['cancelled']);
  });

  it('what Model Studio refuses is a 400 naming the field, and nothing is charged', async () => {
    const { key } = await newAccount(stack, '20');
    const refused = await callApi(stack, 'POST', '/api/v1/video/generate', {
      key,
      body: { model: 'wan2.7-t2v', prompt: 'a fox', resolution: '480p' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/resolution/);
    const ratio = await callApi(stack, 'POST', '/api/v1/video/generate', {
      key,
      body: { model: 'wan2.7-r2v', prompt: 'a fox', ratio: '1:1', image_urls: ['https://cdn.example.com/a.png'] },
    });
    expect(ratio.status).toBe(400);
    expect(ratio.body.message).toMatch(/ratio/);
    expect(await balance(key)).toBe(20);
  });
});
