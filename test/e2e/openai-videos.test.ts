/**
 * OpenAI's Videos API over HTTP (docs/openai-videos.md), with the wire shapes the official `openai` SDK sends
 * (multipart/form-data from the platform's FormData, as its `videos.create` does): create, retrieve, list,
 * download, delete and remix, each answer checked against the served OpenAPI document; the same tasks, charges
 * and refunds as the native API, and OpenAI's error body on every refusal.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { servedValidator } from '../support/openapi-validator.js';
import { sharedStack } from '../support/shared-stack.js';
import { testMedia } from '../support/test-media.js';
import { askedAgainWhileBusy, callApi, newAccount, pollUntil } from '../support/test-stack.js';

type Json = Record<string, unknown>;
interface Video extends Json {
  id: string;
  status: string;
  error: { code: string; message: string } | null;
}
interface Answer<T = Json> {
  status: number;
  headers: Headers;
  body: T;
}

const stack = sharedStack();
const MODEL = 'seedance-1.5-pro';

/** One request as the SDK makes it (Bearer key, FormData or JSON), its answer checked against the document. */
async function openAi<T = Json>(
  method: string,
  path: string,
  options: { key: string; form?: FormData; json?: unknown; headers?: Record<string, string> },
): Promise<Answer<T>> {
  const validator = await servedValidator(stack.baseUrl);
  const headers: Record<string, string> = { authorization: `Bearer ${options.key}`, ...options.headers };
  let body: FormData | string | undefined = options.form;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  const response = await fetch(`${stack.baseUrl}/api/v1${path}`, {
    method,
    headers,
    redirect: 'manual',
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  const answer = { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as T };
  if (response.status !== 302) {
    const problems = validator.check({ method, path: `/api/v1${path}`, ...answer });
    if (problems.length > 0) throw new Error(`answer not as the OpenAPI document says:\n${problems.join('\n')}`);
  }
  return answer;
}

function form(fields: Record<string, string | Blob>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  return data;
}

/** Asked again while 429, as a client does (test-stack.ts's askedAgainWhileBusy, for OpenAI's bodies). */
const whileBusy = <T>(request: () => Promise<Answer<T>>) =>
  pollUntil(request, (answer) => answer.status !== 429, { timeoutMs: 300_000, intervalMs: 1_000 });

const create = (key: string, fields: Record<string, string | Blob>, headers?: Record<string, string>) =>
  whileBusy(() => openAi<Video>('POST', '/videos', { key, form: form(fields), ...(headers && { headers }) }));
const retrieve = (key: string, id: string) => openAi<Video>('GET', `/videos/${id}`, { key });
const finished = (key: string, id: string) =>
  pollUntil(
    () => retrieve(key, id),
    (answer) => answer.body.status === 'completed' || answer.body.status === 'failed',
  );
const balance = async (key: string) =>
  (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key })).body.data.balance;
const nativeTask = (key: string, id: string) => callApi<Json>(stack, 'GET', `/api/v1/video/tasks/${id}`, { key });

describe('OpenAI Videos API', () => {
  it('creates from a form, charges as the native submit, and the native API reads the same task', async () => {
    const { key } = await newAccount(stack, '100');
    const prompt = `a fox in snow ${randomUUID()}`;
    const created = await create(key, { model: MODEL, prompt, seconds: '5', size: '1280x720' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: 'video',
      status: 'queued',
      progress: 0,
      model: MODEL,
      prompt,
      seconds: '5',
      size: '1280x720',
      completed_at: null,
      error: null,
    });
    const native = await nativeTask(key, created.body.id);
    expect(native.body.data).toMatchObject({
      task_id: created.body.id,
      duration: 5,
      resolution: '720p',
      ratio: '16:9',
    });
    const same = await askedAgainWhileBusy(() =>
      callApi<{ cost: number }>(stack, 'POST', '/api/v1/video/generate', {
        key,
        body: { model: MODEL, prompt, duration: 5, resolution: '720p', ratio: '16:9' },
      }),
    );
    expect(native.body.data['cost']).toBe(same.body.data.cost);
    expect(await balance(key)).toBeCloseTo(100 - 2 * same.body.data.cost, 4);

    const done = await finished(key, created.body.id);
    expect(done.body).toMatchObject({ status: 'completed', progress: 100, error: null });
    expect(done.body['completed_at']).toEqual(expect.any(Number));

    // The content: a redirect to the signed URL, whose bytes are the MP4.
    const content = await openAi('GET', `/videos/${created.body.id}/content`, { key });
    expect(content.status).toBe(302);
    const location = content.headers.get('location') as string;
    const video = Buffer.from(await (await fetch(location)).arrayBuffer());
    expect(video.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const thumbnail = await openAi<Json>('GET', `/videos/${created.body.id}/content?variant=thumbnail`, { key });
    expect(thumbnail.status).toBe(404);
    expect(thumbnail.body).toMatchObject({ error: { type: 'invalid_request_error', code: 'not_found' } });

    // Deleting the finished video: storage is emptied, the task (and its cost) stays.
    const deleted = await openAi('DELETE', `/videos/${created.body.id}`, { key });
    expect(deleted.body).toEqual({ id: created.body.id, object: 'video.deleted', deleted: true });
    expect((await fetch(location)).status).toBe(404);
    expect((await openAi('GET', `/videos/${created.body.id}/content`, { key })).status).toBe(404);
    expect((await nativeTask(key, created.body.id)).body.data).toMatchObject({
      status: 'success',
      video_url: null,
      video_deleted_at: expect.any(String),
    });
  });

  it('creates from JSON with a data: URL input_reference, and a form file part, once per Idempotency-Key', async () => {
    const { key } = await newAccount(stack, '100');
    const png = await testMedia('png');
    const json = await whileBusy(() =>
      openAi<Video>('POST', '/videos', {
        key,
        json: {
          model: MODEL,
          prompt: `from a data url ${randomUUID()}`,
          input_reference: { image_url: `data:image/png;base64,${png.toString('base64')}` },
        },
      }),
    );
    expect(json.status).toBe(200);
    expect((await nativeTask(key, json.body.id)).body.data).toMatchObject({ image_mode: 'first_frame' });

    const fields = {
      model: MODEL,
      prompt: `from a file ${randomUUID()}`,
      input_reference: new File([png], 'frame.png', { type: 'image/png' }),
    };
    const idempotencyKey = randomUUID();
    const first = await create(key, fields, { 'idempotency-key': idempotencyKey });
    const again = await create(key, fields, { 'idempotency-key': idempotencyKey });
    expect(first.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await finished(key, first.body.id)).body.status).toBe('completed');
  });

  it('lists in either order, a page at a time after an id, every task whichever API made it', async () => {
    const { key } = await newAccount(stack, '100');
    const ids: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      ids.push((await create(key, { model: MODEL, prompt: `list ${n} ${randomUUID()}` })).body.id);
    }
    const all = await pollUntil(
      () => openAi<{ data: Video[] }>('GET', '/videos?limit=100', { key }),
      (answer) => answer.body.data.length === 3,
    );
    expect(all.body.data.map((video) => video.id)).toEqual([...ids].reverse());
    const page = await openAi<Json>('GET', '/videos?order=asc&limit=2', { key });
    expect(page.body).toMatchObject({ object: 'list', first_id: ids[0], last_id: ids[1], has_more: true });
    const rest = await openAi<Json>('GET', `/videos?order=asc&limit=2&after=${ids[1]}`, { key });
    expect(rest.body).toMatchObject({ first_id: ids[2], last_id: ids[2], has_more: false });
    const bad = await openAi<Json>('GET', '/videos?order=sideways', { key });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { param: 'order', message: expect.stringContaining('asc or desc') } });
  });

  it('deletes a queued video: cancelled and refunded in full', async () => {
    const { key } = await newAccount(stack, '10');
    const created = await create(key, { model: MODEL, prompt: `queued ${randomUUID()} [simulate:queued]` });
    expect(await balance(key)).toBeLessThan(10);
    const deleted = await whileBusy(() => openAi('DELETE', `/videos/${created.body.id}`, { key }));
    expect(deleted.body).toEqual({ id: created.body.id, object: 'video.deleted', deleted: true });
    expect(await balance(key)).toBe(10);
    expect((await retrieve(key, created.body.id)).body).toMatchObject({
      status: 'failed',
      error: { code: 'cancelled' },
    });
  });

  it('a failed video says why and is refunded', async () => {
    const { key } = await newAccount(stack, '10');
    const created = await create(key, { model: MODEL, prompt: `doomed ${randomUUID()} [simulate:fail]` });
    const done = await finished(key, created.body.id);
    expect(done.body).toMatchObject({ status: 'failed', error: { code: 'generation_failed' } });
    expect(done.body.error?.message).toEqual(expect.any(String));
    expect(
      await pollUntil(
        () => balance(key),
        (value) => value === 10,
      ),
    ).toBe(10);
  });

  it("refuses what the model does not take in OpenAI's error body, naming the field and what it takes", async () => {
    const { key } = await newAccount(stack, '10');
    const size = await create(key, { model: 'seedance-2.0-fast', prompt: 'p', size: '1920x1080' });
    expect(size.status).toBe(400);
    expect(size.body).toMatchObject({
      error: { type: 'invalid_request_error', param: 'size', message: expect.stringContaining('1280x720') },
    });
    const seconds = await create(key, { model: MODEL, prompt: 'p', seconds: '4' });
    expect(seconds.body).toMatchObject({
      error: { param: 'seconds', message: expect.stringContaining('"5" to "12"') },
    });
    const model = await create(key, { model: 'sora-2', prompt: 'p' });
    expect(model.body).toMatchObject({ error: { param: 'model', message: expect.stringContaining('sora-2') } });
    const unknown = await create(key, { model: MODEL, prompt: 'p', durration: '5' });
    expect(unknown.body).toMatchObject({ error: { param: 'durration' } });
    const remix = await openAi<Json>('POST', `/videos/${randomUUID()}/remix`, { key, json: { prompt: 'again' } });
    expect(remix.status).toBe(400);
    expect(remix.body).toMatchObject({ error: { message: expect.stringContaining('remix is not supported') } });
    const noKey = await openAi<Json>('GET', '/videos', { key: 'bc_nope' });
    expect(noKey.status).toBe(401);
    expect(noKey.body).toMatchObject({ error: { code: 'invalid_api_key' } });
    expect(await balance(key)).toBe(10);
  });
});
