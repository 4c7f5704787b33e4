/**
 * Request bodies as the API documents them, through the whole stack: JSON only as application/json (415
 * otherwise), each field once, a prompt with text in it and without option flags in any Unicode spelling.
 * Every refusal is in the envelope, as the served OpenAPI document says (callApi checks), and charges nothing.
 */
import { expect, it } from 'vitest';
import { callApi, newAccount, tasksOfAccount } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';

const stack = sharedStack();

const SUBMIT = '/api/v1/video/generate';
const VALID = '{"model":"seedance-1.5-pro","prompt":"a red fox in the snow","duration":5}';

async function balanceOf(key: string): Promise<number> {
  return (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key })).body.data.balance;
}

it('refuses a JSON body sent as another Content-Type with a 415, on the submit and the upload', async () => {
  const { accountId, key } = await newAccount(stack, '100');
  const cases: [string, Record<string, string>, string][] = [
    [SUBMIT, { 'content-type': 'text/plain' }, 'Content-Type must be application/json (got text/plain)'],
    [SUBMIT, {}, 'Content-Type must be application/json (got text/plain;charset=UTF-8)'], // fetch's own default
    [
      SUBMIT,
      { 'content-type': 'application/x-www-form-urlencoded' },
      'Content-Type must be application/json (got application/x-www-form-urlencoded)',
    ],
    ['/api/v1/uploads', { 'content-type': 'text/plain' }, 'Content-Type must be application/json (got text/plain)'],
  ];
  for (const [path, headers, message] of cases) {
    const body = path === SUBMIT ? VALID : '{"content_type":"image/png","size":10}';
    const response = await callApi(stack, 'POST', path, { key, rawBody: body, headers });
    expect(response.status, path).toBe(415);
    expect(response.body).toEqual({ code: 415, message, data: null });
  }
  expect(await balanceOf(key)).toBe(100);
  expect(await tasksOfAccount(stack, accountId)).toEqual([]);

  const accepted = await callApi(stack, 'POST', SUBMIT, {
    key,
    rawBody: VALID,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
  expect(accepted.status).toBe(200);
});

it('refuses a field sent twice (400 naming it) instead of billing one value and generating another', async () => {
  const { accountId, key } = await newAccount(stack, '100');
  for (const rawBody of [
    '{"model":"seedance-1.5-pro","prompt":"a fox","duration":5,"duration":12}',
    '{"model":"seedance-1.5-pro","prompt":"a fox","duration":5,"du\\u0072ation":12}',
  ]) {
    const response = await callApi(stack, 'POST', SUBMIT, {
      key,
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe('duplicate field "duration" in the request body: send each field once');
  }
  expect(await balanceOf(key)).toBe(100);
  expect(await tasksOfAccount(stack, accountId)).toEqual([]);
});

it('refuses a prompt of only whitespace and a full-width option flag, in both forms, charging nothing', async () => {
  const { accountId, key } = await newAccount(stack, '100');
  const models = await callApi<{ id: string; name: string }[]>(stack, 'GET', '/api/v1/models', { key });
  const modelId = models.body.data.find((model) => model.name === 'seedance-1.5-pro')!.id;
  const cases: [Record<string, unknown>, string][] = [
    [{ model: 'seedance-1.5-pro', prompt: ' \n\t\u3000' }, 'prompt: must contain text, not only whitespace'],
    [{ modelId, prompt: '   ' }, 'prompt: must contain text, not only whitespace'],
    [{ model: 'seedance-1.5-pro', prompt: 'a fox －－dur 12', duration: 5 }, 'prompt: must not contain option flags'],
    [{ modelId, prompt: 'a fox －－ｒｓ 1080p' }, 'prompt: must not contain option flags'],
  ];
  for (const [body, message] of cases) {
    const response = await callApi(stack, 'POST', SUBMIT, { key, body });
    expect(response.status, JSON.stringify(body)).toBe(400);
    expect(response.body.message.startsWith(message), response.body.message).toBe(true);
  }
  expect(await balanceOf(key)).toBe(100);
  expect(await tasksOfAccount(stack, accountId)).toEqual([]);
});
