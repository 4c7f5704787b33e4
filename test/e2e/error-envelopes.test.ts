/** Every refusal is the spec's envelope with the HTTP status of its code, and never charges anything. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, newAccount, startTestStack, tasksOfAccount } from '../support/test-stack.js';
import type { ApiResponse, LocalStack } from '../support/test-stack.js';

let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

function expectEnvelope(response: ApiResponse<unknown>, code: number, message?: RegExp) {
  expect(response.status).toBe(code);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(response.body).sort()).toEqual(['code', 'data', 'message']);
  expect(response.body.code).toBe(code);
  expect(response.body.data).toBeNull();
  expect(typeof response.body.message).toBe('string');
  if (message) expect(response.body.message).toMatch(message);
}

const submit = (key: string | undefined, body: unknown) =>
  callApi(stack, 'POST', '/api/v1/video/generate', { ...(key ? { key } : {}), body });

describe('400 parameter errors', () => {
  it.each([
    ['missing prompt', { model: 'seedance-1.5-pro' }, /prompt/],
    ['missing model', { prompt: 'x' }, /model/],
    ['two model fields', { model: 'seedance-1.5-pro', model_id: randomUUID(), prompt: 'x' }, /only one/],
    ['duration too long for the model', { model: 'seedance-1.5-pro', prompt: 'x', duration: 15 }, /duration/],
    ['duration not an integer', { model: 'seedance-1.5-pro', prompt: 'x', duration: 5.5 }, /duration/],
    ['unsupported resolution', { model: 'seedance-1.5-pro', prompt: 'x', resolution: '4k' }, /480p, 720p, 1080p/],
    ['unknown model', { model: 'no-such-model', prompt: 'x' }, /unknown model/],
    [
      'too many images',
      { model: 'seedance-1.5-pro', prompt: 'x', image_urls: Array(10).fill('https://a.b/c.png') },
      /image_urls/,
    ],
    ['both spellings', { model: 'seedance-1.5-pro', prompt: 'x', image_urls: [], imageUrls: [] }, /two spellings/],
    [
      'a reference at the metadata address',
      { model: 'seedance-1.5-pro', prompt: 'x', image_urls: ['http://169.254.169.254/latest/meta-data'] },
      /image_urls\[0\].*not a public address/,
    ],
    [
      'a webhook into a private network',
      { model: 'seedance-1.5-pro', prompt: 'x', webhook_url: 'http://10.0.0.7/hook' },
      /webhook_url/,
    ],
    ['non-http webhook', { model: 'seedance-1.5-pro', prompt: 'x', webhook_url: 'ftp://a.b/c' }, /webhook_url/],
  ])('%s', async (_name, body, message) => {
    const { key } = await newAccount(stack, '100');
    expectEnvelope(await submit(key, body), 400, message);
    const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
    expect(balance.body.data.balance).toBe(100);
  });

  it('a body that is not JSON', async () => {
    const { key } = await newAccount(stack, '1');
    const response = await callApi(stack, 'POST', '/api/v1/video/generate', {
      key,
      rawBody: '{"model": ',
      headers: { 'content-type': 'application/json' },
    });
    expectEnvelope(response, 400, /valid JSON/);
  });

  it('headers too large for the server still get the envelope', async () => {
    const { key } = await newAccount(stack, '1');
    const response = await callApi(stack, 'GET', '/api/v1/models', {
      key,
      headers: { 'x-padding': 'a'.repeat(40_000) },
    });
    expectEnvelope(response, 400, /headers are too large/);
  });

  it('a JSON body with a byte-order mark is read as JSON', async () => {
    const { key } = await newAccount(stack, '10');
    const response = await callApi(stack, 'POST', '/api/v1/video/generate', {
      key,
      rawBody: '\uFEFF{"model":"seedance-1.0-lite-i2v","prompt":"x"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.body.code).toBe(0);
  });

  it('a malformed task id', async () => {
    const { key } = await newAccount(stack, '1');
    expectEnvelope(await callApi(stack, 'GET', '/api/v1/video/tasks/not-a-uuid', { key }), 400, /UUID/);
  });
});

describe('401 authentication', () => {
  it.each([
    ['no header', undefined],
    ['a key without the bc_ prefix', 'sk_abcdefghijklmnopqrstuvwxyz'],
    ['an unknown key', 'bc_unknownunknownunknownunknown'],
  ])('%s', async (_name, key) => {
    expectEnvelope(await callApi(stack, 'GET', '/api/v1/account/balance', key ? { key } : {}), 401);
  });

  it('a task read ahead of authentication is never shown to a bad key: 401, not 403 or 404', async () => {
    const owner = await newAccount(stack, '10');
    const created = await submit(owner.key, { model: 'seedance-1.0-lite-i2v', prompt: 'x' });
    const taskId = (created.body.data as { task_id: string }).task_id;
    expectEnvelope(
      await callApi(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key: 'bc_unknownunknownunknownunknown' }),
      401,
    );
    expectEnvelope(await callApi(stack, 'GET', `/api/v1/video/tasks/${randomUUID()}`, {}), 401);
  });

  it('a disabled key', async () => {
    const { key } = await newAccount(stack, '1');
    await stack.admin.disableKey(key);
    expectEnvelope(await callApi(stack, 'GET', '/api/v1/models', { key }), 401, /disabled/);
  });

  it('a disabled key is refused on its very next request, reads included (DESIGN §3 row 12)', async () => {
    const { accountId, key } = await newAccount(stack, '100');
    const created = await submit(key, { model: 'seedance-1.0-lite-i2v', prompt: 'x' });
    const taskId = (created.body.data as { task_id: string }).task_id;
    expect((await callApi(stack, 'GET', '/api/v1/account/balance', { key })).body.code).toBe(0);
    expect((await callApi(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key })).body.code).toBe(0);
    await stack.admin.disableKey(key);

    expectEnvelope(await callApi(stack, 'GET', '/api/v1/account/balance', { key }), 401, /disabled/);
    expectEnvelope(await callApi(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key }), 401, /disabled/);
    expectEnvelope(await callApi(stack, 'GET', '/api/v1/models', { key }), 401, /disabled/);
    expectEnvelope(await submit(key, { model: 'seedance-1.0-lite-i2v', prompt: 'x' }), 401, /disabled/);
    expectEnvelope(await callApi(stack, 'POST', `/api/v1/video/tasks/${taskId}/cancel`, { key }), 401, /disabled/);
    const tasks = await tasksOfAccount(stack, accountId);
    expect(tasks.map((task) => [task.task_id, task.status])).toEqual([[taskId, expect.not.stringMatching(/refunded/)]]);
  });
});

describe('402 money', () => {
  it('insufficient balance creates no task and charges nothing', async () => {
    const { key } = await newAccount(stack, '4.1999');
    expectEnvelope(await submit(key, { model: 'seedance-1.5-pro', prompt: 'x', duration: 5 }), 402, /balance/);
    const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
    expect(balance.body.data.balance).toBe(4.1999);
  });

  it('a key over its quota is refused with a message naming the quota', async () => {
    const { key } = await newAccount(stack, '100', { quotaYuan: '5' });
    expect((await submit(key, { model: 'seedance-1.5-pro', prompt: 'x', duration: 5 })).body.code).toBe(0);
    expectEnvelope(await submit(key, { model: 'seedance-1.5-pro', prompt: 'x', duration: 5 }), 402, /quota/);
    const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
    expect(balance.body.data.balance).toBe(95.8);
  });
});

describe('403 and 404 tasks', () => {
  it("another account's task is forbidden; an unknown one does not exist", async () => {
    const owner = await newAccount(stack, '10');
    const stranger = await newAccount(stack, '10');
    const created = await submit(owner.key, { model: 'seedance-1.5-pro', prompt: 'mine', duration: 5 });
    const taskId = (created.body.data as { task_id: string }).task_id;
    expectEnvelope(await callApi(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key: stranger.key }), 403);
    expectEnvelope(await callApi(stack, 'GET', `/api/v1/video/tasks/${randomUUID()}`, { key: owner.key }), 404);
  });

  it('an unknown route answers 404 in the envelope', async () => {
    const { key } = await newAccount(stack, '1');
    expectEnvelope(await callApi(stack, 'GET', '/api/v1/nothing-here', { key }), 404);
    expectEnvelope(await callApi(stack, 'DELETE', '/api/v1/models', { key }), 404);
  });
});

describe('429 rate limit', () => {
  it('answers 429 with Retry-After once a key exceeds its requests per second', async () => {
    const { key } = await newAccount(stack, '1', { ratePerSecond: 3 });
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => callApi(stack, 'GET', '/api/v1/account/balance', { key })),
    );
    const limited = responses.filter((response) => response.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(12 - 3 * 2); // the burst may straddle two one-second windows
    for (const response of limited) {
      expectEnvelope(response, 429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });
});
