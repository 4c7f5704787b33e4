/**
 * Fault injection through the simulated upstream's prompt markers: every fault ends in the right final
 * state with a reason the customer can read, and the balance is exact (failed tasks refunded in full).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, newAccount, pollUntil, startTestStack } from '../support/test-stack.js';
import type { LocalStack } from '../support/test-stack.js';
import catalog from '../../lib/seed/model-catalog.json' with { type: 'json' };

let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack();
  // A model whose generation deadline is 3 s, so a hanging upstream times out within the test.
  const base = catalog.models[0] as Record<string, unknown>;
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
  { marker: '[simulate:fail]', status: 'failed', message: /^generation failed: .*sensitive/ },
  { marker: '[simulate:reject]', status: 'failed', message: /^the generator rejected the task: .*input text/ },
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
    for (const { fault, task, balance } of runs) {
      expect(task.status, fault.marker).toBe(fault.status);
      if (fault.message) {
        expect(task.error_message, fault.marker).toMatch(fault.message);
        expect(balance, fault.marker).toBe(20);
      } else {
        expect(task.error_message, fault.marker).toBeNull();
        expect(balance, fault.marker).toBe(15.8);
      }
    }
  });
});
