/** Every refusal is the spec's envelope with the HTTP status of its code, and never charges anything. */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { callApi, newAccount, tasksOfAccount } from '../support/test-stack.js';
import type { ApiResponse } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';
import { mediaUrl } from '../support/media-server.js';

/** A real image the simulator downloads (it fetches every reference, as the upstream does). */
const REFERENCE_IMAGE = await mediaUrl('png');

const stack = sharedStack();

function expectEnvelope(response: ApiResponse<unknown>, code: number, message?: RegExp) {
  expect(response.status).toBe(code);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(response.body).sort()).toEqual(['code', 'data', 'message']);
  expect(response.body.code).toBe(code);
  expect(response.body.data).toBeNull();
  expect(typeof response.body.message).toBe('string');
  if (message) expect(response.body.message).toMatch(message);
}

/** One request written as raw bytes (what fetch would never send), and its response. */
function rawRequest(text: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(stack.baseUrl).port), '127.0.0.1', () => socket.write(text));
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headers = received.subarray(0, end).toString();
      const length = Number(/content-length: *(\d+)/i.exec(headers)?.[1]);
      const body = received.subarray(end + 4);
      if (body.length < length) return;
      socket.destroy();
      resolve({ status: Number(headers.split(' ')[1]), headers, body: body.subarray(0, length).toString() });
    });
    socket.on('error', reject);
  });
}

function expectRawEnvelope(response: { status: number; headers: string; body: string }, code: number, message: RegExp) {
  expect(response.status).toBe(code);
  expect(response.headers).toMatch(/content-type: application\/json/i);
  expect(JSON.parse(response.body)).toEqual({ code, message: expect.stringMatching(message), data: null });
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
    ['a misspelt field', { model: 'seedance-1.5-pro', prompt: 'x', durration: 5 }, /unknown field: durration/],
    ['an image-to-video model without an image', { model: 'seedance-1.0-lite-i2v', prompt: 'x' }, /image-to-video/],
    [
      'a reference video to a model without references',
      { model: 'seedance-1.5-pro', prompt: 'x', video_urls: ['https://93.184.215.14/a.mp4'] },
      /does not accept video references/,
    ],
    [
      'an image mode the model does not take',
      { model: 'seedance-1.5-pro', prompt: 'x', image_urls: ['https://93.184.215.14/a.png'], image_mode: 'reference' },
      /use first_frame, first_last_frame/,
    ],
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
      rawBody: `\uFEFF{"model":"seedance-1.0-lite-i2v","prompt":"x","image_urls":["${REFERENCE_IMAGE}"]}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.body.code).toBe(0);
  });

  it('a malformed task id', async () => {
    const { key } = await newAccount(stack, '1');
    expectEnvelope(await callApi(stack, 'GET', '/api/v1/video/tasks/not-a-uuid', { key }), 400, /UUID/);
  });
});

describe('request body limits', () => {
  const KIB_256 = 256 * 1024;
  const post = (path: string, key: string | undefined, body: string | Uint8Array, type = 'application/json') =>
    fetch(`${stack.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': type, ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body,
    }).then(async (response) => ({
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as ApiResponse['body'],
    }));

  it('a body over 256 KiB: 400 before it is parsed (docs/api-contract.md, "Bodies"); 256 KiB itself is parsed', async () => {
    const { accountId, key } = await newAccount(stack, '10');
    // Not JSON: had it been parsed, the message would say so.
    expectEnvelope(await post('/api/v1/video/generate', key, 'x'.repeat(KIB_256 + 1)), 400, /exceeds 256 KiB/);
    expectEnvelope(await post('/api/v1/video/generate', key, 'x'.repeat(KIB_256)), 400, /valid JSON/);
    // Bytes, not characters: 3-byte characters pass the limit sooner.
    expectEnvelope(await post('/api/v1/video/generate', key, '€'.repeat(KIB_256 / 3 + 1)), 400, /exceeds 256 KiB/);
    expectEnvelope(
      await post(`/api/v1/video/tasks/${randomUUID()}/cancel`, key, 'x'.repeat(KIB_256 + 1)),
      400,
      /exceeds 256 KiB/,
    );
    expect(await tasksOfAccount(stack, accountId)).toEqual([]);
  });

  it('a binary body counts as its bytes, not as its base64 text', async () => {
    const { key } = await newAccount(stack, '10');
    const type = 'application/octet-stream';
    expectEnvelope(await post('/api/v1/video/generate', key, new Uint8Array(KIB_256 + 1), type), 400, /exceeds/);
    // 200 KiB travel as about 267 KiB of base64: within the limit, so the body's own checks answer (not JSON).
    expectEnvelope(
      await post('/api/v1/video/generate', key, new Uint8Array(200 * 1024), type),
      415,
      /^Content-Type must be application\/json \(got application\/octet-stream\)$/,
    );
  });

  it('an auth error wins over the size', async () => {
    const big = 'x'.repeat(KIB_256 + 1);
    expectEnvelope(await post('/api/v1/video/generate', undefined, big), 401, /missing API key/);
    expectEnvelope(await post('/api/v1/video/generate', 'bc_unknownunknownunknownunknown', big), 401, /invalid/);
  });

  it("an event over Lambda's 6 MB: 413 from API Gateway itself, not the envelope (no function runs)", async () => {
    const { key } = await newAccount(stack, '10');
    for (const [body, type] of [
      ['x'.repeat(6 * 1024 * 1024), 'application/json'],
      // Binary travels base64-encoded: 4.6 MiB become 6.1 MiB of event.
      [new Uint8Array(4.6 * 1024 * 1024), 'application/octet-stream'],
    ] as const) {
      const response = await post('/api/v1/video/generate', key, body, type);
      expect(response.status).toBe(413);
      expect(response.body).toEqual({ message: 'Request Entity Too Large' });
    }
  });
});

describe('what Node would answer by itself gets the envelope too', () => {
  it('no Host header (HTTP/1.1): 400', async () => {
    expectRawEnvelope(await rawRequest('GET /api/v1/models HTTP/1.1\r\n\r\n'), 400, /Host header is required/);
  });

  it('an Expect header other than 100-continue: 400', async () => {
    const response = await rawRequest(
      'POST /api/v1/video/generate HTTP/1.1\r\nHost: localhost\r\nExpect: bogus\r\nContent-Length: 2\r\n\r\n{}',
    );
    expectRawEnvelope(response, 400, /unsupported Expect header "bogus"/);
  });

  it('CONNECT: 404, as for any path the API does not have', async () => {
    expectRawEnvelope(
      await rawRequest('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
      404,
      /CONNECT/,
    );
  });

  it('a malformed request: 400', async () => {
    expectRawEnvelope(await rawRequest('G@T / HTTP/1.1\r\nHost: localhost\r\n\r\n'), 400, /malformed/);
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
    const created = await submit(owner.key, {
      model: 'seedance-1.0-lite-i2v',
      prompt: 'x',
      image_urls: [REFERENCE_IMAGE],
    });
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

  it('a disabled key is refused on its very next request, reads included (docs/security.md, "API keys")', async () => {
    const { accountId, key } = await newAccount(stack, '100');
    const created = await submit(key, {
      model: 'seedance-1.0-lite-i2v',
      prompt: 'x',
      image_urls: [REFERENCE_IMAGE],
    });
    const taskId = (created.body.data as { task_id: string }).task_id;
    expect((await callApi(stack, 'GET', '/api/v1/account/balance', { key })).body.code).toBe(0);
    expect((await callApi(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key })).body.code).toBe(0);
    await stack.admin.disableKey(key);

    expectEnvelope(await callApi(stack, 'GET', '/api/v1/account/balance', { key }), 401, /disabled/);
    expectEnvelope(await callApi(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key }), 401, /disabled/);
    expectEnvelope(await callApi(stack, 'GET', '/api/v1/models', { key }), 401, /disabled/);
    expectEnvelope(
      await submit(key, {
        model: 'seedance-1.0-lite-i2v',
        prompt: 'x',
        image_urls: [REFERENCE_IMAGE],
      }),
      401,
      /disabled/,
    );
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

describe('never 500 for a stored balance out of bounds', () => {
  it.each([
    ['past the 10^9 CNY bound', '10000000420000', 1_000_000_000],
    ['past 2^53 units (older data)', '100000000000000000000', 1_000_000_000],
  ])('%s: shown as the bound', async (_label, units, shown) => {
    const { accountId, key } = await newAccount(stack, '1');
    await stack.db.send(
      new PutItemCommand({
        TableName: stack.names.tables.accounts,
        Item: { account_id: { S: accountId }, balance_units: { N: units }, created_at: { S: 'then' } },
      }),
    );
    const response = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ balance: shown, currency: 'CNY' });
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
