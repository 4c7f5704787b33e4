/**
 * A query of an in-progress task asks the upstream first. Here the job never calls back and is held upstream until
 * the execution has looked at it once (the look that found it running); then it ends, and the execution looks again
 * only after 30 s, so a query finds the upstream's success first. Its download is slow (15 s more), so the task
 * stays `transferring` long enough to be seen however slow the machine (should the execution's look come first):
 * it shows `transferring` (with the contract's message), and the task still reaches `success` exactly once.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
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
  // The job never calls back, and runs until released; the execution's fallback look comes 30 s after its first.
  const run = randomUUID();
  const prompt = `a lighthouse ${run} [simulate:no-callback] [simulate:held] [simulate:slow-download]`;
  const created = await callApi<TaskData>(stack, 'POST', '/api/v1/video/generate', {
    key,
    body: { model: 'seedance-1.5-pro', prompt, duration: 5 },
  });
  const taskId = created.body.data.task_id;
  const get = () => callApi<TaskData>(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key });
  // Read from the table, not through the API (a query would look upstream itself): only the execution's own look
  // moves the task to running. Then the job ends.
  await pollUntil(
    async () =>
      (await stack.db.send(new GetCommand({ TableName: stack.names.tables.tasks, Key: { task_id: taskId } }))).Item,
    (record) => record?.['status'] === 'running',
    { timeoutMs: 120_000 },
  );
  const released = await fetch(`${stack.endpoints.upstreams.ark.baseUrl}/simulator/release?prompt=${run}`, {
    method: 'POST',
  });
  expect(released.ok).toBe(true);

  const transferring = await pollUntil(
    get,
    (response) => response.body.data.status !== 'running' && response.body.data.status !== 'pending',
    { timeoutMs: 60_000, intervalMs: 50 },
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
