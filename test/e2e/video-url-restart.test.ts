/**
 * A video URL given out still works after the local stack restarts on the same data directory: the URL
 * (stored on the task, sent in webhooks, valid 24 h) names the local S3's port, which the data directory keeps.
 * Owns its stack: it stops the stack and starts it again on the same data.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { callApi, newAccount, pollUntil, startTestStack } from '../support/test-stack.js';
import type { LocalStack } from '../support/test-stack.js';

const FIXTURE = readFileSync(new URL('../../lib/local/fixtures/sample.mp4', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'vgs-restart-'));
let stack: LocalStack | undefined;

afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface TaskData {
  status: string;
  video_url: string | null;
}

const getTask = (running: LocalStack, key: string, taskId: string) =>
  callApi<TaskData>(running, 'GET', `/api/v1/video/tasks/${taskId}`, { key });

it('serves a finished video at the URL given before a restart', async () => {
  stack = await startTestStack({ dataDir });
  const { key } = await newAccount(stack, '50');
  const submit = await callApi<{ task_id: string }>(stack, 'POST', '/api/v1/video/generate', {
    key,
    body: { model: 'seedance-1.5-pro', prompt: 'a red fox in the snow', duration: 5 },
  });
  expect(submit.status).toBe(200);
  const taskId = submit.body.data.task_id;
  const first = stack;
  const done = await pollUntil(
    () => getTask(first, key, taskId),
    (response) => response.body.data.status === 'success',
  );
  const url = done.body.data.video_url as string;
  expect((await fetch(url)).status).toBe(200);

  await stack.stop();
  stack = undefined;
  await expect(fetch(url)).rejects.toThrow();

  stack = await startTestStack({ dataDir });
  const again = await getTask(stack, key, taskId);
  expect(again.body.data).toMatchObject({ status: 'success', video_url: url });
  const video = await fetch(url);
  expect(video.status).toBe(200);
  expect(Buffer.from(await video.arrayBuffer()).equals(FIXTURE)).toBe(true);
}, 300_000);
