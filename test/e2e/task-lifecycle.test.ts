/** The life of a task over real HTTP against the started stack: success down to the MP4 bytes, and failure with refund. */
import { labelMp4, readAigcLabel } from '../../functions/core/mp4-label/index.js';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { callApi, newAccount, pollUntil } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';
import { mediaUrl } from '../support/media-server.js';

/** A real image the simulator downloads (it fetches every reference, as the upstream does). */
const REFERENCE_IMAGE = await mediaUrl('png');

const FIXTURE = readFileSync(new URL('../../lib/dev/fixtures/sample.mp4', import.meta.url));

interface TaskData {
  task_id: string;
  status: string;
  video_url: string | null;
  cost: number;
  created_at: string;
  finished_at: string | null;
  error_message: string | null;
}

const stack = sharedStack();

async function balanceOf(key: string): Promise<number> {
  const { body } = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
  return body.data.balance;
}

async function followTask(key: string, taskId: string) {
  const seen: string[] = [];
  const final = await pollUntil(
    async () => {
      const response = await callApi<TaskData>(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key });
      const { status } = response.body.data;
      if (seen.at(-1) !== status) seen.push(status);
      return response;
    },
    (response) => ['success', 'failed', 'refunded'].includes(response.body.data.status),
    { timeoutMs: 120_000, intervalMs: 50 },
  );
  return { final, seen };
}

describe('a task that succeeds', () => {
  it('is charged, moves forward through the states, and serves the real MP4 from our storage', async () => {
    const { key } = await newAccount(stack, '50');
    const submit = await callApi<TaskData>(stack, 'POST', '/api/v1/video/generate', {
      key,
      body: { model: 'seedance-1.5-pro', prompt: 'a red fox running through snow', duration: 5, resolution: '720p' },
    });
    expect(submit.status).toBe(200);
    expect(submit.body).toMatchObject({ code: 0, message: 'success' });
    expect(submit.body.data).toEqual({
      task_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'pending',
      cost: 4.2,
      // 720p with sound (generate_audio defaults to true): the base and the audio part.
      cost_breakdown: { base: 3, resolution: 0, audio: 1.2, surcharges: 0 },
      created_at: expect.any(String),
    });
    expect(await balanceOf(key)).toBe(45.8);

    const { final, seen } = await followTask(key, submit.body.data.task_id);
    const order = ['pending', 'running', 'transferring', 'success'];
    expect(seen.map((status) => order.indexOf(status))).toEqual([...seen.map((s) => order.indexOf(s))].sort());
    expect(seen.at(-1)).toBe('success');
    const task = final.body.data;
    expect(task).toMatchObject({ status: 'success', cost: 4.2, error_message: null });
    expect(task.finished_at).not.toBeNull();
    expect(Date.parse(task.finished_at as string)).toBeGreaterThanOrEqual(Date.parse(task.created_at));

    const video = await fetch(task.video_url as string);
    expect(video.status).toBe(200);
    // The upstream's file, its AI-content label added and nothing else changed (docs/compliance.md).
    const served = Buffer.from(await video.arrayBuffer());
    const label = readAigcLabel(served);
    expect(label?.PropagateID).toBe(task.task_id);
    expect(Buffer.from(labelMp4(FIXTURE, label!).bytes).equals(served)).toBe(true);
    expect(await balanceOf(key)).toBe(45.8);
  });

  it('accepts Form B field names and applies Form B defaults', async () => {
    const { key } = await newAccount(stack, '50');
    const models = await callApi<{ id: string; name: string }[]>(stack, 'GET', '/api/v1/models', { key });
    const v2 = models.body.data.find((model) => model.name === 'seedance-2.0');
    const submit = await callApi<TaskData>(stack, 'POST', '/api/v1/video/generate', {
      key,
      body: {
        modelId: v2?.id,
        prompt: 'city at night',
        resolution: '1080p',
        imageUrls: [REFERENCE_IMAGE],
      },
    });
    // Form B default duration 5: 1.4 CNY/s × 5 s × 2.2 (1080p) = 15.4 CNY.
    expect(submit.body).toMatchObject({ code: 0, data: { status: 'pending', cost: 15.4 } });
    const { final } = await followTask(key, submit.body.data.task_id);
    // The task shows what was made (docs/api-contract.md, "Task object"): one image is the first frame by default.
    expect(final.body.data).toMatchObject({
      status: 'success',
      model: 'seedance-2.0',
      duration: 5,
      resolution: '1080p',
      ratio: '16:9',
      generate_audio: true,
      image_mode: 'first_frame',
    });
  });
});

describe('a task whose generation fails', () => {
  it('ends failed with the upstream reason and the balance restored to the cent', async () => {
    const { key } = await newAccount(stack, '10.0001');
    const submit = await callApi<TaskData>(stack, 'POST', '/api/v1/video/generate', {
      key,
      body: { model: 'seedance-1.5-pro', prompt: 'this will fail [simulate:fail]', duration: 5 },
    });
    expect(submit.body.code).toBe(0);
    expect(await balanceOf(key)).toBe(5.8001);

    const { final } = await followTask(key, submit.body.data.task_id);
    expect(final.body.data).toMatchObject({ status: 'failed', video_url: null, cost: 4.2 });
    expect(final.body.data.error_message).toMatch(/^generation failed: .+/);
    expect(final.body.data.finished_at).not.toBeNull();
    await pollUntil(
      () => balanceOf(key),
      (balance) => balance === 10.0001,
      { timeoutMs: 120_000 },
    );
  });
});
