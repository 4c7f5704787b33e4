/**
 * A query of an in-progress task asks the upstream first. Here the job never calls back and the execution
 * looks only after 30 s, so the query sees the upstream's success before the execution does: it shows
 * `transferring` (with the spec's message), and the task still reaches `success` exactly once.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { TRANSFERRING_MESSAGE } from '../../functions/core/task.js';
import { callApi, newAccount, pollUntil } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';

const stack = sharedStack();

interface TaskData {
  task_id: string;
  status: string;
  video_url: string | null;
  finished_at: string | null;
}

it('shows transferring as soon as the upstream has finished, then success once', async () => {
  const { key } = await newAccount(stack, '10');
  // The job never calls back, and the execution's fallback look comes after 30 s.
  const prompt = `a lighthouse ${randomUUID()} [simulate:no-callback]`;
  const created = await callApi<TaskData>(stack, 'POST', '/api/v1/video/generate', {
    key,
    body: { model: 'seedance-1.5-pro', prompt, duration: 5 },
  });
  const taskId = created.body.data.task_id;
  const get = () => callApi<TaskData>(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key });

  const transferring = await pollUntil(
    get,
    (response) => response.body.data.status !== 'running' && response.body.data.status !== 'pending',
    // Before the execution's first poll (30 s): only the query can have moved it.
    { timeoutMs: 25_000, intervalMs: 50 },
  );
  expect(transferring.body).toMatchObject({
    code: 0,
    message: TRANSFERRING_MESSAGE,
    data: { status: 'transferring', video_url: null, finished_at: null },
  });

  const done = await pollUntil(get, (response) => response.body.data.status === 'success', { timeoutMs: 120_000 });
  expect(done.body.data.video_url).toMatch(/^http/);
  expect((await stack.upstream.jobs()).filter((job) => job.prompt === prompt)).toHaveLength(1);
  const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
  expect(balance.body.data.balance).toBe(5.8);
});
