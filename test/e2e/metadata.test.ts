/**
 * A task's own metadata (docs/api-contract.md, "Metadata"): up to 16 string pairs on submit, echoed on the task,
 * in lists (which filter by a pair and by model) and in the completion webhook; anything else is a 400 naming it,
 * and nothing is charged.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedStack } from '../support/shared-stack.js';
import { callApi, newAccount, pollUntil } from '../support/test-stack.js';

const stack = sharedStack();
const bodies: Record<string, unknown>[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    bodies.push(JSON.parse(body) as Record<string, unknown>);
    res.writeHead(204).end();
  });
});
beforeAll(() => new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve)));
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

interface Task {
  task_id: string;
  status: string;
  model: string;
  prompt: string;
  metadata: Record<string, string>;
}

describe('metadata on a task', () => {
  it('is echoed on the task, filters the list, and rides in the webhook', async () => {
    const { key } = await newAccount(stack, '20');
    const webhook_url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const submit = (prompt: string, metadata?: Record<string, string>) =>
      callApi<{ task_id: string }>(stack, 'POST', '/api/v1/video/generate', {
        key,
        body: { model: 'seedance-1.5-pro', prompt, duration: 5, webhook_url, ...(metadata && { metadata }) },
      });
    const tagged = await submit('an ad variant: red', { campaign: 'winter', variant: 'red' });
    const other = await submit('an ad variant: blue', { campaign: 'spring' });
    const bare = await submit('no metadata');
    expect([tagged.status, other.status, bare.status]).toEqual([200, 200, 200]);

    const read = await callApi<Task>(stack, 'GET', `/api/v1/video/tasks/${tagged.body.data.task_id}`, { key });
    expect(read.body.data).toMatchObject({
      prompt: 'an ad variant: red',
      model: 'seedance-1.5-pro',
      metadata: { campaign: 'winter', variant: 'red' },
    });
    const none = await callApi<Task>(stack, 'GET', `/api/v1/video/tasks/${bare.body.data.task_id}`, { key });
    expect(none.body.data.metadata).toEqual({});

    const winter = await callApi<{ items: Task[] }>(stack, 'GET', '/api/v1/video/tasks?metadata[campaign]=winter', {
      key,
    });
    expect(winter.body.data.items.map((task) => task.task_id)).toEqual([tagged.body.data.task_id]);
    const byModel = await callApi<{ items: Task[] }>(stack, 'GET', '/api/v1/video/tasks?model=seedance-2.0', { key });
    expect(byModel.body.data.items).toEqual([]);

    const webhook = await pollUntil(
      async () => bodies.find((body) => body['task_id'] === tagged.body.data.task_id),
      (body) => body !== undefined,
    );
    expect(webhook).toMatchObject({ type: 'task.succeeded', metadata: { campaign: 'winter', variant: 'red' } });
  });

  it.each([
    [Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])), /metadata.*at most 16/],
    [{ campaign: 7 }, /metadata.*strings/],
    [{ ['k'.repeat(65)]: 'v' }, /metadata.*64/],
    [{ note: 'v'.repeat(513) }, /metadata.*512/],
    [['winter'], /metadata/],
  ])('refuses %j with a 400 naming metadata, nothing charged', async (metadata, message) => {
    const { key } = await newAccount(stack, '10');
    const answer = await callApi(stack, 'POST', '/api/v1/video/generate', {
      key,
      body: { model: 'seedance-1.5-pro', prompt: 'x', duration: 5, metadata },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(message);
    const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
    expect(balance.body.data.balance).toBe(10);
  });
});
