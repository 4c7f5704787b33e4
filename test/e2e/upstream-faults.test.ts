/**
 * Fault injection through the simulated upstream's prompt markers: every fault ends in the right final
 * state with a reason the customer can read, and the balance is exact (failed tasks refunded in full; a
 * create answered 429 waits and succeeds, never refunded for it).
 * Owns its stack: the simulator's expiry clock runs 1,000 times faster, and a test-only model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, newAccount, pollUntil, startTestStack } from '../support/test-stack.js';
import type { LocalStack } from '../support/test-stack.js';
import catalog from '../../lib/seed/model-catalog.json' with { type: 'json' };

let stack: LocalStack;
beforeAll(async () => {
  // Ark keeps a job at least an hour (execution_expires_after) and the poll loop waits for it that long, as
  // it may still finish and bill: the simulator's clock for that expiry runs 1,000 times faster here (3.6 s).
  stack = await startTestStack({ upstream: { queuedMs: 150, runningMs: 300, expiryScale: 0.001 } });
  // A model whose generation deadline is 3 s: a hanging job times out upstream within the test.
  const base = catalog.models.find((model) => model.name === 'seedance-1.5-pro') as Record<string, unknown>;
  await stack.admin.seedModels({
    version: 1,
    models: [
      { ...base, id: '11111111-2222-4333-8444-555555555555', name: 'test-short-deadline', max_generation_seconds: 3 },
    ],
  });
});
afterAll(async () => {
  await stack?.stop();
});

interface TaskData {
  task_id: string;
  status: string;
  error_message: string | null;
  video_url: string | null;
}

const CASES = [
  {
    marker: '[simulate:output-moderation]',
    status: 'failed',
    message: /^the upstream's content moderation refused the generated video: it may contain sensitive content; /,
  },
  {
    marker: '[simulate:reject]',
    status: 'failed',
    message: /^the upstream's content moderation refused the prompt: its text may contain sensitive content; /,
  },
  { marker: '[simulate:expire]', status: 'failed', message: /^generation timed out: the upstream gave up on the job/ },
  // The first two creates answer 429: StartUpstream waits (10 s, then 20 s) and the third starts the job.
  { marker: '[simulate:rate-limit]', status: 'success', message: null },
  { marker: '[simulate:lost]', status: 'failed', message: /^the generator lost the task/ },
  { marker: '[simulate:broken-download]', status: 'failed', message: /^the generated video could not be downloaded/ },
  {
    marker: '[simulate:not-video]',
    status: 'failed',
    message: /^the generated file could not be stored: .*not a video/,
  },
  { marker: '[simulate:upstream-5xx]', status: 'success', message: null },
  { marker: '[simulate:hang]', status: 'failed', message: /^generation timed out/, model: 'test-short-deadline' },
] as const;

describe('upstream faults', () => {
  it('each ends in the right final state with the balance exact', async () => {
    const runs = await Promise.all(
      CASES.map(async (fault) => {
        const { key } = await newAccount(stack, '20');
        const model = 'model' in fault ? fault.model : 'seedance-1.5-pro';
        const submit = await callApi<TaskData>(stack, 'POST', '/api/v1/video/generate', {
          key,
          body: { model, prompt: `scene ${fault.marker}`, duration: 5 },
        });
        expect(submit.body.code, fault.marker).toBe(0);
        const final = await pollUntil(
          () => callApi<TaskData>(stack, 'GET', `/api/v1/video/tasks/${submit.body.data.task_id}`, { key }),
          (response) => ['success', 'failed', 'refunded'].includes(response.body.data.status),
          { timeoutMs: 120_000, intervalMs: 200 },
        );
        const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
        return { fault, task: final.body.data, balance: balance.body.data.balance };
      }),
    );
    // All at once, so that one mismatch does not hide the others.
    expect(
      runs.map(({ fault, task, balance }) => ({
        marker: fault.marker,
        status: task.status,
        error_message: task.error_message,
        balance,
      })),
    ).toEqual(
      CASES.map((fault) => ({
        marker: fault.marker,
        status: fault.status,
        // Failed: refunded in full; succeeded: charged 4.2 once (a create answered 429 costs nothing).
        error_message: fault.message ? expect.stringMatching(fault.message) : null,
        balance: fault.message ? 20 : 15.8,
      })),
    );
  });
});
