/**
 * Request bodies as the API documents them, through the whole stack: JSON only as application/json (415
 * otherwise), UTF-8, each field once, no null, a prompt of well-formed text with visible text in it and
 * without option flags in any Unicode spelling.
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
    [{ model: 'seedance-1.5-pro', prompt: ' \n\t\u3000' }, 'prompt: must contain visible text, not only whitespace'],
    [{ modelId, prompt: '   ' }, 'prompt: must contain visible text, not only whitespace'],
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

it('refuses null, text that is not well-formed, controls, invisible prompts and disguised flags: nothing charged', async () => {
  const { accountId, key } = await newAccount(stack, '100');
  const json = { 'content-type': 'application/json' };
  const cases: [string, string | Uint8Array, string][] = [
    [
      'duration: null',
      '{"model":"seedance-1.5-pro","prompt":"a red fox","duration":null}',
      'duration: must be a whole number of seconds, not null (leave duration out to get its default)',
    ],
    [
      'a lone surrogate, as a JSON escape',
      '{"model":"seedance-1.5-pro","prompt":"a red fox \\ud800"}',
      'prompt: must be well-formed Unicode text',
    ],
    [
      'bytes that are not UTF-8',
      Buffer.concat([
        Buffer.from('{"model":"seedance-1.5-pro","prompt":"a red fox '),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}'),
      ]),
      'request body must be UTF-8 text: it holds bytes that are not valid UTF-8',
    ],
    [
      'a NUL in the prompt',
      '{"model":"seedance-1.5-pro","prompt":"a red fox\\u0000"}',
      'prompt: must not contain control characters (it holds U+0000): only tab, line feed and carriage return are allowed',
    ],
    [
      'combining marks only',
      '{"model":"seedance-1.5-pro","prompt":"\\u0301\\u0308\\u0327"}',
      'prompt: must contain visible text, not only whitespace, combining marks or invisible',
    ],
    [
      'an em dash for --',
      JSON.stringify({ model: 'seedance-1.5-pro', prompt: 'a red fox —dur 12' }),
      'prompt: must not contain option flags such as --dur or --rs',
    ],
    [
      'a zero-width space inside --rs',
      '{"model":"seedance-1.5-pro","prompt":"a red fox --\\u200brs 1080p"}',
      'prompt: must not contain option flags such as --dur or --rs',
    ],
  ];
  for (const [label, rawBody, message] of cases) {
    const response = await callApi(stack, 'POST', SUBMIT, { key, rawBody, headers: json });
    expect(response.status, label).toBe(400);
    expect(response.body.message.startsWith(message), `${label}: ${response.body.message}`).toBe(true);
  }
  expect(await balanceOf(key)).toBe(100);
  expect(await tasksOfAccount(stack, accountId)).toEqual([]);
});
