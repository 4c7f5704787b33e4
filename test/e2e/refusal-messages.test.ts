/**
 * Every refusal the public API gives, through the whole stack, checked against the rules of docs/api-contract.md,
 * "Envelope and errors": the envelope with the status as its code; a message in our words that names the field and
 * what is allowed (for the chosen model); no validation library's text; no upstream's name or ids; nothing charged.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, newAccount, pollUntil } from '../support/test-stack.js';
import type { ApiResponse } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';
import { mediaUrl } from '../support/media-server.js';

const stack = sharedStack();

/** A validation library's own words (valibot: "Invalid key: Expected … but received …"), or a leaked value. */
const LIBRARY_TEXT =
  /Invalid (key|type|length|value|format)|Expected .* but received|ValiError|\[object Object\]|\bundefined\b|\bNaN\b/;
/** Our suppliers' names and their ids stay out of what a customer reads. */
const UPSTREAM_TEXT = /\b(ark|volcengine|byteplus|doubao|dreamina)\b|\bcgt-|request id/i;

interface Refusal {
  name: string;
  status: number;
  /** The field (or header, parameter) and what is allowed: each must appear in the message. */
  says: string[];
  send: (key: string) => Promise<ApiResponse<unknown>>;
}

const submit =
  (body: unknown, headers: Record<string, string> = {}) =>
  (key: string) =>
    callApi(stack, 'POST', '/api/v1/video/generate', { key, body, headers });
const raw =
  (rawBody: string, contentType = 'application/json') =>
  (key: string) =>
    callApi(stack, 'POST', '/api/v1/video/generate', { key, rawBody, headers: { 'content-type': contentType } });
const get = (path: string) => (key: string) => callApi(stack, 'GET', path, { key });
const asKey = (authorization: string | undefined) => () =>
  callApi(stack, 'GET', '/api/v1/models', authorization === undefined ? {} : { headers: { authorization } });

const PRO = 'seedance-1.5-pro';
const LITE = 'seedance-1.0-lite';
const IMAGE = 'https://93.184.215.14/a.png';
const INVALID_KEY = 'invalid API key: send an active key made in the console, as Authorization: Bearer bc_…';

const REFUSALS: Refusal[] = [
  // 400: the submit body
  {
    name: 'missing prompt',
    status: 400,
    says: ['prompt is required', '1 to 20480 characters'],
    send: submit({ model: LITE }),
  },
  {
    name: 'empty prompt',
    status: 400,
    says: ['prompt', 'must not be empty'],
    send: submit({ model: LITE, prompt: '' }),
  },
  {
    name: 'prompt not text',
    status: 400,
    says: ['prompt', '1 to 20480 characters'],
    send: submit({ model: LITE, prompt: 42 }),
  },
  { name: 'prompt of spaces', status: 400, says: ['prompt', 'text'], send: submit({ model: LITE, prompt: '  ' }) },
  {
    name: 'prompt with flags',
    status: 400,
    says: ['prompt', 'send duration, resolution and ratio as fields'],
    send: submit({ model: LITE, prompt: 'a --dur 12' }),
  },
  {
    name: 'missing model',
    status: 400,
    says: ['model is required', 'model, model_id or modelId'],
    send: submit({ prompt: 'x' }),
  },
  {
    name: 'two model fields',
    status: 400,
    says: ['model, model_id or modelId'],
    send: submit({ model: PRO, model_id: randomUUID(), prompt: 'x' }),
  },
  {
    name: 'model_id not a UUID',
    status: 400,
    says: ['model_id', 'UUID'],
    send: submit({ model_id: 'x', prompt: 'x' }),
  },
  {
    name: 'unknown model',
    status: 400,
    says: ['model', 'GET /api/v1/models'],
    send: submit({ model: 'no-such-model', prompt: 'x' }),
  },
  {
    name: 'duration under the model',
    status: 400,
    says: ['duration', 'from 5 to 12 for seedance-1.0-lite'],
    send: submit({ model: LITE, prompt: 'x', duration: 4 }),
  },
  {
    name: 'duration over the model',
    status: 400,
    says: ['duration', 'from 5 to 12 for seedance-1.0-lite'],
    send: submit({ model: LITE, prompt: 'x', duration: 13 }),
  },
  {
    name: 'duration over every model',
    status: 400,
    says: ['duration', 'from 5 to 12 for seedance-1.0-lite'],
    send: submit({ model: LITE, prompt: 'x', duration: 31 }),
  },
  {
    name: 'duration null',
    status: 400,
    says: ['duration', 'whole number of seconds, not null', 'leave duration out'],
    send: submit({ model: LITE, prompt: 'x', duration: null }),
  },
  {
    name: 'generateAudio null (Form B)',
    status: 400,
    says: ['generateAudio', 'true or false, not null'],
    send: submit({ model: LITE, prompt: 'x', generateAudio: null }),
  },
  {
    name: 'duration not whole',
    status: 400,
    says: ['duration', 'whole number of seconds from 5 to 12'],
    send: submit({ model: LITE, prompt: 'x', duration: 5.5 }),
  },
  {
    name: 'duration as text',
    status: 400,
    says: ['duration', 'from 5 to 12'],
    send: submit({ model: LITE, prompt: 'x', duration: '10' }),
  },
  {
    name: 'resolution of no model',
    status: 400,
    says: ['resolution', 'seedance-2.0-fast', '480p, 720p'],
    send: submit({ model: 'seedance-2.0-fast', prompt: 'x', resolution: '8k' }),
  },
  {
    name: 'resolution the model lacks',
    status: 400,
    says: ['resolution', '480p, 720p, 1080p'],
    send: submit({ model: PRO, prompt: 'x', resolution: '4k' }),
  },
  {
    name: 'resolution as a number',
    status: 400,
    says: ['resolution', '480p, 720p, 1080p'],
    send: submit({ model: PRO, prompt: 'x', resolution: 720 }),
  },
  {
    name: 'ratio',
    status: 400,
    says: ['ratio', '16:9, 4:3, 1:1, 3:4, 9:16, 21:9'],
    send: submit({ model: PRO, prompt: 'x', ratio: '2:1' }),
  },
  {
    name: 'audio on a silent model',
    status: 400,
    says: ['generate_audio', LITE],
    send: submit({ model: LITE, prompt: 'x', generate_audio: true }),
  },
  {
    name: 'generate_audio not a boolean',
    status: 400,
    says: ['generate_audio', 'true or false'],
    send: submit({ model: PRO, prompt: 'x', generate_audio: 'yes' }),
  },
  {
    name: 'seed out of range',
    status: 400,
    says: ['seed', '-1 and 4294967295'],
    send: submit({ model: PRO, prompt: 'x', seed: -2 }),
  },
  {
    name: 'unknown field',
    status: 400,
    says: ['callback_url'],
    send: submit({ model: PRO, prompt: 'x', callback_url: 'https://a.b/c' }),
  },
  {
    name: 'both spellings',
    status: 400,
    says: ['image_urls and imageUrls'],
    send: submit({ model: PRO, prompt: 'x', image_urls: [], imageUrls: [] }),
  },
  {
    name: 'images to a text-only model',
    status: 400,
    says: [LITE, 'images'],
    send: submit({ model: LITE, prompt: 'x', image_urls: [IMAGE] }),
  },
  {
    name: 'image model without an image',
    status: 400,
    says: ['image_urls', 'seedance-1.0-lite-i2v'],
    send: submit({ model: 'seedance-1.0-lite-i2v', prompt: 'x' }),
  },
  {
    name: 'too many images',
    status: 400,
    says: ['image_urls', 'at most 9'],
    send: submit({ model: 'seedance-2.0', prompt: 'x', image_urls: Array(10).fill(IMAGE) }),
  },
  {
    name: 'video to a model without',
    status: 400,
    says: ['video_urls', PRO],
    send: submit({ model: PRO, prompt: 'x', video_urls: ['https://93.184.215.14/a.mp4'] }),
  },
  {
    name: 'image mode',
    status: 400,
    says: ['image_mode', 'first_frame'],
    send: submit({ model: PRO, prompt: 'x', image_urls: [IMAGE], image_mode: 'reference' }),
  },
  {
    name: 'reference not a URL',
    status: 400,
    says: ['image_urls[0]', 'http or https URL'],
    send: submit({ model: PRO, prompt: 'x', image_urls: ['nope'] }),
  },
  {
    name: 'reference at a private address',
    status: 400,
    says: ['image_urls[0]', 'public address'],
    send: submit({ model: PRO, prompt: 'x', image_urls: ['http://169.254.169.254/x.png'] }),
  },
  {
    name: 'webhook not http',
    status: 400,
    says: ['webhook_url', 'http or https URL'],
    send: submit({ model: PRO, prompt: 'x', webhook_url: 'ftp://a.b/c' }),
  },
  {
    name: 'unknown upload',
    status: 400,
    says: ['image_urls', 'upload'],
    send: submit({ model: PRO, prompt: 'x', image_urls: [`file://uploads/${randomUUID()}`] }),
  },
  { name: 'body not JSON', status: 400, says: ['request body', 'JSON'], send: raw('{"model": ') },
  { name: 'body not an object', status: 400, says: ['request body', 'JSON object'], send: raw('[1]') },
  {
    name: 'a field twice',
    status: 400,
    says: ['duration', 'send each field once'],
    send: raw('{"model":"seedance-1.5-pro","prompt":"x","duration":5,"duration":12}'),
  },
  {
    name: 'Idempotency-Key too long',
    status: 400,
    says: ['Idempotency-Key', '255'],
    send: submit({ model: PRO, prompt: 'x' }, { 'idempotency-key': 'k'.repeat(256) }),
  },
  // 400: other routes
  { name: 'task id', status: 400, says: ['task id', 'UUID'], send: get('/api/v1/video/tasks/not-a-uuid') },
  { name: 'tasks limit', status: 400, says: ['limit', '1 to 100'], send: get('/api/v1/video/tasks?limit=0') },
  { name: 'tasks status', status: 400, says: ['status', 'pending'], send: get('/api/v1/video/tasks?status=done') },
  { name: 'tasks cursor', status: 400, says: ['cursor', 'next_cursor'], send: get('/api/v1/video/tasks?cursor=%21') },
  { name: 'tasks unknown parameter', status: 400, says: ['sort'], send: get('/api/v1/video/tasks?sort=asc') },
  {
    name: 'transactions limit',
    status: 400,
    says: ['limit', '1 to 100'],
    send: get('/api/v1/account/transactions?limit=101'),
  },
  {
    name: 'transactions cursor',
    status: 400,
    says: ['cursor', 'next_cursor'],
    send: get(`/api/v1/account/transactions?cursor=${'a'.repeat(3000)}`),
  },
  {
    name: 'transactions unknown parameter',
    status: 400,
    says: ['page'],
    send: get('/api/v1/account/transactions?page=2'),
  },
  {
    name: 'upload content_type',
    status: 400,
    says: ['content_type', 'image/png'],
    send: (key) => callApi(stack, 'POST', '/api/v1/uploads', { key, body: { content_type: 'text/plain', size: 1 } }),
  },
  {
    name: 'upload size',
    status: 400,
    says: ['size', 'at most'],
    send: (key) => callApi(stack, 'POST', '/api/v1/uploads', { key, body: { content_type: 'image/png', size: 1e12 } }),
  },
  {
    name: 'upload missing size',
    status: 400,
    says: ['size is required'],
    send: (key) => callApi(stack, 'POST', '/api/v1/uploads', { key, body: { content_type: 'image/png' } }),
  },
  {
    name: 'upload size null',
    status: 400,
    says: ['size must be a number of bytes, not null'],
    send: (key) => callApi(stack, 'POST', '/api/v1/uploads', { key, body: { content_type: 'image/png', size: null } }),
  },
  // 401: one message for any key that is not ours, whatever its shape
  { name: 'no key', status: 401, says: ['Authorization: Bearer bc_'], send: asKey(undefined) },
  { name: 'not Bearer', status: 401, says: ['Authorization', 'Bearer bc_'], send: asKey('Basic abc') },
  { name: 'bc_ key too short', status: 401, says: [INVALID_KEY], send: asKey('Bearer bc_nope') },
  { name: 'a key of another service', status: 401, says: [INVALID_KEY], send: asKey(`Bearer sk_${'a'.repeat(40)}`) },
  { name: 'unknown well-formed key', status: 401, says: [INVALID_KEY], send: asKey(`Bearer bc_${'a'.repeat(43)}`) },
  // 403, 404, 415
  {
    name: 'no such task',
    status: 404,
    says: ['task', 'does not exist'],
    send: get(`/api/v1/video/tasks/${randomUUID()}`),
  },
  { name: 'no such endpoint', status: 404, says: ['no such endpoint', '/api/v1/nope'], send: get('/api/v1/nope') },
  { name: 'Content-Type', status: 415, says: ['Content-Type', 'application/json'], send: raw('{}', 'text/plain') },
  // 402
  {
    name: 'balance short',
    status: 402,
    says: ['balance', 'top up'],
    send: submit({ model: 'seedance-2.0', prompt: 'x', duration: 15, resolution: '1080p' }),
  },
];

/** Each message as the customer read it, printed at the end: the list docs and reports quote. */
const seen: [string, number, string][] = [];
let key: string;

beforeAll(async () => {
  ({ key } = await newAccount(stack, '10'));
});

afterAll(() => {
  console.info(seen.map(([name, status, message]) => `${status} ${name}: ${message}`).join('\n'));
});

function checkMessage(response: ApiResponse<unknown>, status: number, says: string[], name: string) {
  expect(response.status, name).toBe(status);
  expect(response.body, name).toEqual({ code: status, message: expect.any(String), data: null });
  const { message } = response.body;
  seen.push([name, status, message]);
  for (const part of says) expect(message, name).toContain(part);
  expect(message, name).not.toMatch(LIBRARY_TEXT);
  expect(message, name).not.toMatch(UPSTREAM_TEXT);
}

describe('every refusal says what was wrong and what is allowed, in our words', () => {
  it.each(REFUSALS.map((refusal) => [refusal.name, refusal] as const))('%s', async (name, refusal) => {
    checkMessage(await refusal.send(key), refusal.status, refusal.says, name);
  });

  it('nothing refused was charged', async () => {
    const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
    expect(balance.body.data.balance).toBe(10);
  });

  it("403: another account's task", async () => {
    const owner = await newAccount(stack, '10');
    const created = await callApi<{ task_id: string }>(stack, 'POST', '/api/v1/video/generate', {
      key: owner.key,
      body: { model: PRO, prompt: 'mine', duration: 5 },
    });
    const response = await callApi(stack, 'GET', `/api/v1/video/tasks/${created.body.data.task_id}`, { key });
    checkMessage(response, 403, ['task', 'another account'], "another account's task");
  });

  it('400: cancelling a finished task', async () => {
    const owner = await newAccount(stack, '10');
    const created = await callApi<{ task_id: string }>(stack, 'POST', '/api/v1/video/generate', {
      key: owner.key,
      body: { model: PRO, prompt: 'done soon', duration: 5 },
    });
    const path = `/api/v1/video/tasks/${created.body.data.task_id}`;
    await pollUntil(
      () => callApi<{ status: string }>(stack, 'GET', path, { key: owner.key }),
      (answer) => answer.body.data.status === 'success',
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    const response = await callApi(stack, 'POST', `${path}/cancel`, { key: owner.key });
    checkMessage(response, 400, ['pending or running', 'success'], 'cancel a finished task');
  });

  it('401: a disabled key, and a key over its quota (402)', async () => {
    const quota = await newAccount(stack, '100', { quotaYuan: '1' });
    checkMessage(await submit({ model: PRO, prompt: 'x', duration: 5 })(quota.key), 402, ['quota'], 'key quota');
    await stack.admin.disableKey(quota.key);
    checkMessage(await get('/api/v1/models')(quota.key), 401, ['disabled', 'console'], 'disabled key');
  });

  it('429: too many requests says when to retry', async () => {
    const limited = await newAccount(stack, '1', { ratePerSecond: 1 });
    const response = await pollUntil(
      () => get('/api/v1/account/balance')(limited.key),
      (answer) => answer.status === 429,
      { timeoutMs: 60_000, intervalMs: 1 },
    );
    checkMessage(response, 429, ['retry after'], 'rate limited');
  });

  it("a lost upstream job's reason names neither the upstream nor its job id", async () => {
    const owner = await newAccount(stack, '10');
    const created = await callApi<{ task_id: string }>(stack, 'POST', '/api/v1/video/generate', {
      key: owner.key,
      body: { model: PRO, prompt: 'a fox [simulate:lost]', duration: 5 },
    });
    const final = await pollUntil(
      () =>
        callApi<{ status: string; error_message: string | null }>(
          stack,
          'GET',
          `/api/v1/video/tasks/${created.body.data.task_id}`,
          { key: owner.key },
        ),
      (answer) => answer.body.data.status === 'failed',
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    seen.push(['lost upstream job (task error_message)', 200, final.body.data.error_message ?? '']);
    expect(final.body.data.error_message).toBe('the generator lost the task');
  });

  it("an unusable reference's reason names the field and what to send, in our words", async () => {
    const owner = await newAccount(stack, '10');
    const created = await callApi<{ task_id: string }>(stack, 'POST', '/api/v1/video/generate', {
      key: owner.key,
      body: { model: PRO, prompt: 'a fox', duration: 5, image_urls: [await mediaUrl('page')] },
    });
    const final = await pollUntil(
      () =>
        callApi<{ status: string; error_message: string | null }>(
          stack,
          'GET',
          `/api/v1/video/tasks/${created.body.data.task_id}`,
          { key: owner.key },
        ),
      (answer) => answer.body.data.status === 'failed',
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    const reason = final.body.data.error_message ?? '';
    seen.push(['unusable reference (task error_message)', 200, reason]);
    expect(reason).toContain('image_urls[0]');
    expect(reason).toContain('JPEG, PNG or WebP');
    expect(reason).not.toMatch(LIBRARY_TEXT);
    expect(reason).not.toMatch(UPSTREAM_TEXT);
    expect(reason).not.toMatch(/InvalidParameter|content\[|text\/html/);
  });
});
