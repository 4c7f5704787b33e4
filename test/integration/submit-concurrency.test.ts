/**
 * Money under contention: many submits on one account at once. Each submit is one TransactWriteItems
 * (debit if enough + key spend + task), so exactly as many succeed as the balance covers.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { callApi, newAccount, tasksOfAccount } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';
import { mediaUrl } from '../support/media-server.js';

/** A real image the simulator downloads (it fetches every reference, as the upstream does). */
const REFERENCE_IMAGE = await mediaUrl('png');

const stack = sharedStack();
const run = randomUUID();
// Held upstream until the file ends: nothing is refunded while the balance is being counted.
const PROMPT = `a paper boat ${run} [simulate:held]`;
afterAll(async () => {
  await fetch(`${stack.endpoints.upstreams.ark.baseUrl}/simulator/release?prompt=${run}`, { method: 'POST' });
});

const tasksOf = (accountId: string) => tasksOfAccount(stack, accountId);

describe('200 concurrent submits against a balance that covers exactly 20', () => {
  it('creates exactly 20 tasks, refuses the other 180 without a 500, and leaves the balance at exactly 0', async () => {
    // seedance-1.0-lite-i2v costs 2.5 × 1.2 = 3 CNY per call: 60 CNY covers exactly 20.
    const { accountId, key } = await newAccount(stack, '60');
    const body = {
      model: 'seedance-1.0-lite-i2v',
      prompt: PROMPT,
      duration: 5,
      image_urls: [REFERENCE_IMAGE],
    };
    const responses = await Promise.all(
      Array.from({ length: 200 }, () => callApi(stack, 'POST', '/api/v1/video/generate', { key, body })),
    );
    const byStatus = new Map<number, number>();
    for (const response of responses) byStatus.set(response.status, (byStatus.get(response.status) ?? 0) + 1);
    // The others: 402 once the balance is spent; a submit still losing to the others on the account's item
    // after its 6 s of retries answers 429 "retry" (nothing charged), seen only on an overloaded machine.
    const counts = JSON.stringify(Object.fromEntries(byStatus));
    expect(byStatus.get(200), counts).toBe(20);
    expect((byStatus.get(402) ?? 0) + (byStatus.get(429) ?? 0), counts).toBe(180);
    for (const response of responses) {
      expect(response.body.code).toBe(response.status === 200 ? 0 : response.status);
      if (response.status === 429) expect(response.headers.get('retry-after')).toBe('1');
    }

    const tasks = await tasksOf(accountId);
    expect(tasks).toHaveLength(20);
    expect(tasks.every((task) => task['cost_units'] === 30_000)).toBe(true);
    const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
    expect(balance.body.data.balance).toBe(0);
  });

  it('keeps per-key quota exact under the same contention', async () => {
    const { accountId, key } = await newAccount(stack, '1000', { quotaYuan: '30' });
    const body = {
      model: 'seedance-1.0-lite-i2v',
      prompt: PROMPT,
      duration: 5,
      image_urls: [REFERENCE_IMAGE],
    };
    const responses = await Promise.all(
      Array.from({ length: 60 }, () => callApi(stack, 'POST', '/api/v1/video/generate', { key, body })),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(10);
    // As above, a 429 "retry" only if a submit still loses after its retries; never a 500.
    const refused = responses.filter((response) => /quota/.test(response.body.message) || response.status === 429);
    expect(refused).toHaveLength(50);
    expect(await tasksOf(accountId)).toHaveLength(10);
    const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
    expect(balance.body.data.balance).toBe(970);
  });
});
