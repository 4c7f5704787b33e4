/**
 * HTTP fuzzing (fast-check) against the local stack: every answer is the envelope with code 0 or a 4xx,
 * never a 5xx; a refused request creates no task and charges nothing. FUZZ_RUNS scales the cases
 * (default 1: about 3,000 requests); a failure prints the seed and path to replay it.
 * Owns its stack: an upstream that never ends a job (fuzzed prompts cannot carry a marker).
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callApi, newAccount, pollUntil, startTestStack, tasksOfAccount } from '../support/test-stack.js';
import type { LocalStack } from '../support/test-stack.js';
import { toUnits } from './support/money.js';
import { mediaUrl } from '../support/media-server.js';

/** A real image the simulator downloads (it fetches every reference, as the upstream does). */
const REFERENCE_IMAGE = await mediaUrl('png');

const SCALE = Number(process.env['FUZZ_RUNS'] ?? 1);
const OPENING_YUAN = '200';

let stack: LocalStack;
let fuzzed: { accountId: string; key: string };
let other: { accountId: string; key: string; taskId: string };
let disabledKey: string;
/** Responses to submits with the fuzzed account's key that were accepted: task id → cost in units. */
const accepted = new Map<string, number>();
let requests = 0;

beforeAll(async () => {
  // The upstream never finishes during the test: accepted tasks stay in flight, charged.
  stack = await startTestStack({ upstream: { queuedMs: 600_000, runningMs: 600_000 }, pollIntervalSeconds: 3600 });
  fuzzed = await newAccount(stack, OPENING_YUAN, { ratePerSecond: 1_000_000 });
  const someone = await newAccount(stack, '100', { ratePerSecond: 1_000_000 });
  const submitted = await callApi<{ task_id: string }>(stack, 'POST', '/api/v1/video/generate', {
    key: someone.key,
    body: {
      model: 'seedance-1.0-lite-i2v',
      prompt: 'not yours',
      duration: 5,
      image_urls: [REFERENCE_IMAGE],
    },
  });
  other = { ...someone, taskId: submitted.body.data.task_id };
  const disabled = await newAccount(stack, '100');
  await stack.admin.disableKey(disabled.key);
  disabledKey = disabled.key;
});

afterAll(async () => {
  console.log(`http fuzz: ${requests} requests, ${accepted.size} accepted submits`);
  await stack?.stop();
});

// ------------------------------------------------------------------ sending

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

function send(fuzz: FuzzRequest): Promise<Answer> {
  const url = new URL(stack.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method: fuzz.method, path: fuzz.path, headers: fuzz.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(fuzz.body);
  });
}

/** The envelope rule; returns the parsed body. */
function checkAnswer(fuzz: FuzzRequest, answer: Answer): { code: number; message: string; data: unknown } {
  const where = `${fuzz.method} ${fuzz.path} ${JSON.stringify(fuzz.headers)} ${String(fuzz.body).slice(0, 300)}`;
  expect(answer.status, `${where}\n→ ${answer.text.slice(0, 300)}`).toBeLessThan(500);
  expect(answer.status === 200 || (answer.status >= 400 && answer.status < 500), where).toBe(true);
  expect(answer.contentType, where).toMatch(/^application\/json/);
  const body = JSON.parse(answer.text) as { code: number; message: string; data: unknown };
  expect(Object.keys(body).sort(), where).toEqual(['code', 'data', 'message']);
  expect(body.code, where).toBe(answer.status === 200 ? 0 : answer.status);
  expect(typeof body.message, where).toBe('string');
  if (answer.status !== 200) expect(body.data, where).toBeNull();
  return body;
}

async function exchange(fuzz: FuzzRequest): Promise<void> {
  requests += 1;
  const body = checkAnswer(fuzz, await send(fuzz));
  const isSubmit = fuzz.method === 'POST' && fuzz.path.split('?')[0] === '/api/v1/video/generate';
  if (isSubmit && body.code === 0 && (fuzz.headers['authorization'] ?? '').includes(fuzzed.key)) {
    const data = body.data as { task_id: string; cost: number };
    accepted.set(data.task_id, toUnits(data.cost));
  }
}

// ------------------------------------------------------------------ generators

const token = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_.~'), maxLength: 24 });
/** Anything printable that node:http lets through in a header value. */
const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) });

const taskIdText = fc.oneof(
  fc.uuid().map(String),
  fc.constant(randomUUID().toUpperCase()),
  fc.constantFrom('..', '.', '%2e%2e', '%', '%zz', '%E0%A4%A', '%00', '%2F', 'null', 'undefined', '-1', '0'),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.constant('__proto__'),
  fc.constant('constructor'),
);

const path = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('/api/v1/video/generate', '/api/v1/account/balance', '/api/v1/models') },
  { weight: 3, arbitrary: taskIdText.map((id) => `/api/v1/video/tasks/${id}`) },
  { weight: 2, arbitrary: taskIdText.map((id) => `/api/v1/video/tasks/${id}/cancel`) },
  { weight: 1, arbitrary: fc.constant('OTHER_TASK') },
  { weight: 1, arbitrary: fc.constant('OTHER_TASK_CANCEL') },
  { weight: 2, arbitrary: fc.array(token, { maxLength: 6 }).map((segments) => `/${segments.join('/')}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('/api/v1/video/generate/', '//api/v1/models', '/API/V1/MODELS', '/api/v2/models'),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((text) => `/${encodeURI(text)}`) },
);

const query = fc.oneof(
  { weight: 5, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.dictionary(token, fc.string({ maxLength: 20 })).map((q) => `?${new URLSearchParams(q)}`) },
  { weight: 1, arbitrary: fc.constantFrom('?', '?a', '?a=1&a=2', '?%zz=1', '?=&&=') },
);

const authorization = fc.oneof(
  { weight: 5, arbitrary: fc.constant('FUZZED') },
  { weight: 1, arbitrary: fc.constant('OTHER') },
  { weight: 1, arbitrary: fc.constant('DISABLED') },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: headerValue },
  { weight: 1, arbitrary: headerValue.map((text) => `Bearer ${text}`) },
  { weight: 1, arbitrary: fc.stringMatching(/^bc_[A-Za-z0-9_-]{16,40}$/).map((key) => `Bearer ${key}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'bearer FUZZED', 'Bearer  FUZZED  '),
  },
);

const contentType = fc.oneof(
  fc.constant('application/json'),
  fc.constant(undefined),
  fc.constantFrom('text/plain', 'application/octet-stream', 'application/json; charset=latin1', 'multipart/form-data'),
  headerValue,
);

const MODELS = ['seedance-1.5-pro', 'seedance-2.0', 'seedance-1.0-lite-i2v', 'SEEDANCE-1.5-PRO', ''];
const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Valid submits of both forms, each a starting point for mutations. */
const VALID_BODIES: readonly Record<string, unknown>[] = [
  {
    model: 'seedance-1.0-lite-i2v',
    prompt: 'a paper boat',
    duration: 5,
    image_urls: [REFERENCE_IMAGE],
  },
  { model: 'seedance-1.5-pro', prompt: 'a red fox in the snow', duration: 5, resolution: '720p', ratio: '16:9' },
  { model: 'seedance-1.5-pro', prompt: 'waves', duration: 4, generate_audio: true, seed: 42 },
  { modelId: '0d5a8f3e-9c2b-4a7d-b6e1-7f4c2d9a8e33', prompt: 'form B', imageUrls: [REFERENCE_IMAGE] },
  { model: 'seedance-2.0', prompt: 'city at night', duration: 5, resolution: '720p' },
];

/** Values that sit at or across the edges of what each field accepts. */
const edgeValue = fc.oneof(
  anyJson,
  fc.constantFrom(...MODELS),
  fc.constantFrom('', '   ', 'a'.repeat(5_000), '\u0000', '𝕏'.repeat(3_000), '5', 'true'),
  fc.integer({ min: -5, max: 40 }),
  fc.constantFrom(0, -1, 1e308, -0, 4_294_967_295, 4_294_967_296, 2 ** 53, 5.5),
  fc.constantFrom('480p', '720p', '1080p', '2k', '4k', '4K', '16:9', '9:16', '1:1', 'adaptive', '21:9'),
  fc.array(fc.webUrl(), { maxLength: 12 }),
  fc.constantFrom('ftp://a.b/c', 'http://127.0.0.1/x', 'https://', 'javascript:alert(1)'),
  fc.uuid().map(String),
);
const FIELDS = [
  'model',
  'model_id',
  'modelId',
  'prompt',
  'duration',
  'resolution',
  'ratio',
  'seed',
  'generate_audio',
  'generateAudio',
  'image_urls',
  'imageUrls',
  'video_urls',
  'audio_urls',
  'webhook_url',
  'webhookUrl',
  'constructor',
  'toString',
  'extra',
];
const mutation = fc.oneof(
  fc.record({ field: fc.constantFrom(...FIELDS), op: fc.constant<'delete'>('delete') }),
  fc.record({ field: fc.constantFrom(...FIELDS), op: fc.constant<'set'>('set'), value: edgeValue }),
);
/** A valid body with up to three fields deleted or set to edge values (zero mutations: still valid). */
const validish = fc
  .record({ base: fc.constantFrom(...VALID_BODIES), mutations: fc.array(mutation, { maxLength: 3 }) })
  .map(({ base, mutations }) => {
    const value: Record<string, unknown> = { ...base };
    for (const change of mutations) {
      if (change.op === 'delete') delete value[change.field];
      else
        Object.defineProperty(value, change.field, {
          value: change.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return value;
  });

const body = fc.oneof(
  { weight: 6, arbitrary: validish.map((value) => JSON.stringify(value)) },
  { weight: 2, arbitrary: anyJson.map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"model": ',
      '{"model":"seedance-1.5-pro","prompt":"x"} trailing',
      '{"model":"seedance-1.5-pro","model":"seedance-2.0","prompt":"dup"}',
      `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
      '{"__proto__":{"prompt":"polluted"},"model":"seedance-1.5-pro"}',
      '',
      'null',
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const fuzzRequest = fc
  .record({
    method: fc.constantFrom('GET', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
    path,
    query,
    authorization,
    contentType,
    body,
    extraHeaders: fc.dictionary(
      token.filter((name) => name.length > 0 && !['content-length', 'host', 'transfer-encoding'].includes(name)),
      headerValue,
      { maxKeys: 3 },
    ),
  })
  .map(({ method, path: rawPath, query: q, authorization: auth, contentType: type, body: payload, extraHeaders }) => {
    const headers: Record<string, string> = { ...extraHeaders };
    const resolvedAuth =
      auth === 'FUZZED'
        ? `Bearer ${fuzzed.key}`
        : auth === 'OTHER'
          ? `Bearer ${other.key}`
          : auth === 'DISABLED'
            ? `Bearer ${disabledKey}`
            : auth?.replace('FUZZED', fuzzed.key);
    if (resolvedAuth !== undefined) headers['authorization'] = resolvedAuth;
    if (type !== undefined) headers['content-type'] = type;
    const resolvedPath =
      rawPath === 'OTHER_TASK'
        ? `/api/v1/video/tasks/${other.taskId}`
        : rawPath === 'OTHER_TASK_CANCEL'
          ? `/api/v1/video/tasks/${other.taskId}/cancel`
          : rawPath;
    const request: FuzzRequest = { method, path: `${resolvedPath}${q}`, headers };
    if (payload !== undefined && method !== 'GET') {
      // Framed as any real client frames it (node:http would send a DELETE body unframed, a malformed request).
      request.body = payload;
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    return request;
  });

// ------------------------------------------------------------------ properties

it('random requests: always the envelope with 0 or a 4xx, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fuzzRequest, { minLength: 8, maxLength: 8 }), async (batch) => {
      await Promise.all(batch.map(exchange));
    }),
    { numRuns: Math.round(250 * SCALE) },
  );
}, 300_000);

it('mutations of valid submits: accepted or a 4xx naming the problem, never a 5xx', async () => {
  const submit = validish.map<FuzzRequest>((value) => ({
    method: 'POST',
    path: '/api/v1/video/generate',
    headers: { authorization: `Bearer ${fuzzed.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(value),
  }));
  await fc.assert(
    fc.asyncProperty(fc.array(submit, { minLength: 8, maxLength: 8 }), async (batch) => {
      await Promise.all(batch.map(exchange));
    }),
    { numRuns: Math.round(100 * SCALE) },
  );
}, 300_000);

it('nothing refused was created or charged, and the stack still serves', async () => {
  const balanceUnits = async () =>
    toUnits(
      (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key: fuzzed.key })).body.data
        .balance,
    );
  // A task's refund and its status change are one write: a listing between two equal balances matches them.
  const { tasks, after } = await pollUntil(
    async () => {
      const before = await balanceUnits();
      const listed = await tasksOfAccount(stack, fuzzed.accountId);
      return { before, tasks: listed, after: await balanceUnits() };
    },
    ({ before, after: balanceAfter }) => before === balanceAfter,
    { describe: ({ before, after: balanceAfter }) => `balance ${before}, then ${balanceAfter}` },
  );
  expect(tasks.map((task) => task['task_id']).sort()).toEqual([...accepted.keys()].sort());
  // The upstream never ends a job, but it downloads every reference first: an accepted submit whose fuzzed
  // reference URL serves no usable file fails there, whenever the download gives up, and is refunded.
  const inFlight = tasks.filter((task) => ['pending', 'running'].includes(task['status'] as string));
  for (const task of tasks.filter((candidate) => !inFlight.includes(candidate))) {
    expect(task).toMatchObject({ status: 'failed', error_message: expect.stringMatching(/^(the|a) reference /) });
    expect(task['refunded_at']).toEqual(expect.any(String));
  }
  const spent = inFlight.reduce((total, task) => total + accepted.get(task['task_id'] as string)!, 0);
  expect(after).toBe(toUnits(Number(OPENING_YUAN)) - spent);
  const models = await callApi(stack, 'GET', '/api/v1/models', { key: fuzzed.key });
  expect(models.status).toBe(200);
});
