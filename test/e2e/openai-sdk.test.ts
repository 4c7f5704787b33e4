/**
 * The official `openai` SDK, unchanged, against our Videos API (docs/openai-videos.md): `baseURL` our `/api/v1`, the
 * API key a `bc_` key. Create (multipart), retrieve, list, download, delete and an idempotent re-create; a failed
 * video's error and its refund; a refusal as the SDK's BadRequestError carrying our message; the charge equals the
 * native API's, and the native API reads the same task.
 */
import OpenAI, { BadRequestError, NotFoundError } from 'openai';
import { describe, expect, it } from 'vitest';
import { sharedStack } from '../support/shared-stack.js';
import { callApi, newAccount, pollUntil } from '../support/test-stack.js';

const stack = sharedStack();
const MODEL = 'seedance-1.5-pro';

async function client(balance = '50') {
  const { accountId, key } = await newAccount(stack, balance);
  // Our model names and sizes are not OpenAI's literal types: the SDK sends whatever it is given.
  const sdk = new OpenAI({ apiKey: key, baseURL: `${stack.baseUrl}/api/v1`, maxRetries: 0 });
  return { accountId, key, sdk };
}

const balanceOf = async (key: string) =>
  (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key })).body.data.balance;

describe('the official openai SDK', () => {
  it('creates, retrieves, lists, downloads and deletes a video; the native API reads the same task', async () => {
    const { key, sdk } = await client();
    const created = await sdk.videos.create({
      model: MODEL as never,
      prompt: 'a paper crane unfolding',
      seconds: '5' as never,
      size: '1280x720' as never,
    });
    expect(created).toMatchObject({ object: 'video', status: 'queued', model: MODEL, seconds: '5', size: '1280x720' });
    const done = await pollUntil(
      () => sdk.videos.retrieve(created.id),
      (video) => video.status === 'completed',
    );
    expect(done.progress).toBe(100);
    // The same task in our own dialect, charged as the native API charges 5 s at 720p with sound.
    const native = await callApi<{ status: string; cost: number }>(stack, 'GET', `/api/v1/video/tasks/${created.id}`, {
      key,
    });
    expect(native.body.data).toMatchObject({ status: 'success', cost: 4.2 });
    expect(await balanceOf(key)).toBe(45.8);

    const page = await sdk.videos.list({ limit: 10, order: 'desc' });
    expect(page.data.map((video) => video.id)).toContain(created.id);

    const content = await sdk.videos.downloadContent(created.id);
    const bytes = Buffer.from(await content.arrayBuffer());
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');

    const deleted = await sdk.videos.delete(created.id);
    expect(deleted).toMatchObject({ id: created.id, deleted: true });
    await expect(sdk.videos.downloadContent(created.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('re-creates idempotently with an Idempotency-Key: one video, one charge', async () => {
    const { key, sdk } = await client('10');
    const body = { model: MODEL as never, prompt: 'a lighthouse at dusk', seconds: '5' as never };
    const headers = { 'Idempotency-Key': `sdk-${Date.now()}` };
    const first = await sdk.videos.create(body, { headers });
    const again = await sdk.videos.create(body, { headers });
    expect(again.id).toBe(first.id);
    expect(await balanceOf(key)).toBe(5.8);
  });

  it('reports a failed video with its message, and refunds it', async () => {
    const { key, sdk } = await client('10');
    const created = await sdk.videos.create({ model: MODEL as never, prompt: '[simulate:fail] a storm' });
    const failed = await pollUntil(
      () => sdk.videos.retrieve(created.id),
      (video) => video.status === 'failed',
    );
    expect(failed.error?.message).toMatch(/\S/);
    await pollUntil(
      () => balanceOf(key),
      (balance) => balance === 10,
    );
  });

  it("refuses what the model does not take with the SDK's BadRequestError, in our words", async () => {
    const { key, sdk } = await client('10');
    const refusal = await sdk.videos
      .create({ model: MODEL as never, prompt: 'x', size: '1792x1024' as never })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BadRequestError);
    expect((refusal as BadRequestError).message).toMatch(/size/);
    expect((refusal as BadRequestError).param).toBe('size');
    expect(await balanceOf(key)).toBe(10);
  });
});
