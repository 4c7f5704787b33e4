/**
 * References as the upstream treats them, over HTTP on the shared stack (docs/providers/ark.md, "References";
 * docs/api-contract.md, "References"): the simulator downloads each reference, so a task whose video cannot be
 * downloaded, or whose image is an HTML page, ends `failed` with a reason naming the field and index, refunded
 * once (one refund entry, the balance back). A submit naming an upload that does not exist is a 400 naming the
 * field, and nothing is charged.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mediaUrl, unreachableUrl } from '../support/media-server.js';
import { sharedStack } from '../support/shared-stack.js';
import { callApi, newAccount, pollUntil } from '../support/test-stack.js';

const stack = sharedStack();

interface TaskData {
  task_id: string;
  status: string;
  cost: number;
  error_message: string | null;
}
interface TransactionsPage {
  items: { id: string; type: string; amount: number; task_id?: string }[];
}

const submit = (key: string, body: Record<string, unknown>) =>
  callApi<TaskData>(stack, 'POST', '/api/v1/video/generate', { key, body });
const balance = async (key: string) =>
  (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key })).body.data.balance;
const transactions = async (key: string) =>
  (await callApi<TransactionsPage>(stack, 'GET', '/api/v1/account/transactions?limit=100', { key })).body.data.items;

async function finished(key: string, taskId: string): Promise<TaskData> {
  const answer = await pollUntil(
    () => callApi<TaskData>(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key }),
    (response) => ['success', 'failed', 'refunded'].includes(response.body.data.status),
    { timeoutMs: 120_000, intervalMs: 100 },
  );
  return answer.body.data;
}

describe('a reference the upstream cannot use', () => {
  it('an unreachable reference video: failed, the reason names video_urls[1], refunded once', async () => {
    const { key } = await newAccount(stack, '100');
    const created = await submit(key, {
      model: 'seedance-2.0',
      prompt: `a fox ${randomUUID()}`,
      duration: 5,
      image_urls: [await mediaUrl('png')],
      image_mode: 'reference',
      video_urls: [await mediaUrl('mp4'), await unreachableUrl()],
    });
    expect(created.body.message).toBe('success');
    const taskId = created.body.data.task_id;
    expect(await balance(key)).toBeCloseTo(100 - created.body.data.cost, 6);

    const task = await finished(key, taskId);
    expect(task.status).toBe('failed');
    expect(task.error_message).toMatch(/^the reference video_urls\[1\] could not be downloaded by the generator: /);
    // Our words only: no upstream parameter names, codes or hosts.
    expect(task.error_message).not.toMatch(/content\[|InvalidParameter|ECONNREFUSED|127\.0\.0\.1/);

    expect(await balance(key)).toBe(100);
    const items = await transactions(key);
    expect(items.filter((item) => item.type === 'refund')).toEqual([
      expect.objectContaining({ id: `refund:${taskId}`, amount: created.body.data.cost, task_id: taskId }),
    ]);
  });

  it('Form B: an HTML page as the image fails naming imageUrls[0] as the wrong type', async () => {
    const { key } = await newAccount(stack, '100');
    const models = await callApi<{ id: string; name: string }[]>(stack, 'GET', '/api/v1/models', { key });
    const model = models.body.data.find((entry) => entry.name === 'seedance-1.5-pro');
    const created = await submit(key, { modelId: model?.id, prompt: 'a kite', imageUrls: [await mediaUrl('page')] });
    expect(created.status).toBe(200);
    const task = await finished(key, created.body.data.task_id);
    expect(task.status).toBe('failed');
    expect(task.error_message).toMatch(/^the reference imageUrls\[0\] is not an image file the generator takes: /);
    expect(await balance(key)).toBe(100);
  });
});

describe('an own upload is checked before any charge', () => {
  it('a missing upload: 400 naming the field, nothing charged, no ledger entry', async () => {
    const { key } = await newAccount(stack, '100');
    const missing = `upload://${randomUUID()}`;
    const answer = await submit(key, { model: 'seedance-2.0', prompt: 'a fox', duration: 5, video_urls: [missing] });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/^video_urls\[0\]: unknown upload /);
    expect(await balance(key)).toBe(100);
    expect((await transactions(key)).filter((item) => item.type === 'charge')).toEqual([]);
  });
});
