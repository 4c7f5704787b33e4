/** One delivery attempt and what the queue is told to do next (functions/core/use-cases/deliver-webhook.ts). */
import { describe, expect, it } from 'vitest';
import { deliverWebhook } from '../../../functions/core/use-cases/deliver-webhook.js';
import type { TaskRecord } from '../../../functions/core/task.js';
import type { WebhookSendResult } from '../../../functions/core/webhook.js';
import { TASK_ID } from '../../support/task-records.js';
import {
  CountingSigner,
  HOOK,
  MemoryWebhookSecrets,
  MemoryWebhookTasks,
  ScriptedSender,
  webhookTask,
} from '../webhook-support.js';

const NOW = new Date('2026-11-21T10:05:00.000Z');
const SCHEDULE = [5, 30, 120];
const SUCCESS = webhookTask('success', {
  finished_at: '2026-11-21T10:03:00.000Z',
  video_key: 'videos/acc-1/task.mp4',
  video_url: 'https://videos.example.com/stored',
  video_url_expires_at: '2026-11-22T10:03:00.000Z',
});
const MESSAGE = { task_id: TASK_ID, event: 'task.success' } as const;

function setup(
  task: TaskRecord | undefined,
  results: WebhookSendResult[],
  secrets = { 'acc-1': ['whsec_new', 'whsec_old'] },
) {
  const tasks = task ? new MemoryWebhookTasks(task) : new MemoryWebhookTasks();
  const sender = new ScriptedSender(results);
  const signer = new CountingSigner();
  const deps = {
    tasks,
    attempts: tasks,
    secrets: new MemoryWebhookSecrets(secrets),
    sender,
    signer,
    schedule: SCHEDULE,
    now: () => NOW,
  };
  return { tasks, sender, signer, deps };
}

const ok = { kind: 'response', statusCode: 200 } as const;
const serverError = { kind: 'response', statusCode: 500 } as const;

describe('deliverWebhook', () => {
  it('delivers: one signed request with the stable id, recorded, message done', async () => {
    const { tasks, sender, deps } = setup(SUCCESS, [ok]);
    expect(await deliverWebhook(MESSAGE, 1, deps)).toEqual({
      action: 'done',
      outcome: 'delivered',
      detail: 'HTTP 200',
    });
    expect(sender.requests).toHaveLength(1);
    const [request] = sender.requests;
    expect(request).toMatchObject({
      url: HOOK,
      id: 'msg_7a0c1a8e1f0b4a519d866b8f5f0c2d11_success',
      timestamp: NOW,
      secrets: ['whsec_new', 'whsec_old'],
    });
    expect(JSON.parse(request!.body)).toEqual({
      task_id: TASK_ID,
      status: 'success',
      video_url: 'https://videos.example.com/stored',
      result_url: 'https://videos.example.com/stored',
      cost: 4.2,
      finished_at: '2026-11-21T10:03:00.000Z',
    });
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({
      webhook_state: 'delivered',
      webhook_attempts: 1,
      webhook_last_status_code: 200,
      webhook_last_error: null,
      webhook_delivered_at: NOW.toISOString(),
    });
  });

  it('retries a failed attempt after the scheduled delay, or the longer Retry-After', async () => {
    const { tasks, deps } = setup(SUCCESS, [serverError]);
    expect(await deliverWebhook(MESSAGE, 1, deps)).toMatchObject({ action: 'retry', delaySeconds: 5 });
    expect(await deliverWebhook(MESSAGE, 2, deps)).toMatchObject({ action: 'retry', delaySeconds: 30 });
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({ webhook_state: 'retrying', webhook_attempts: 2 });

    const throttled = setup(SUCCESS, [{ kind: 'response', statusCode: 429, retryAfter: '90' }]);
    expect(await deliverWebhook(MESSAGE, 2, throttled.deps)).toMatchObject({ action: 'retry', delaySeconds: 90 });
  });

  it('retries when there is no answer, recording the error', async () => {
    const { tasks, deps } = setup(SUCCESS, [{ kind: 'error', message: 'no answer within 15 s' }]);
    expect(await deliverWebhook(MESSAGE, 1, deps)).toMatchObject({ action: 'retry', delaySeconds: 5 });
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({
      webhook_last_status_code: null,
      webhook_last_error: 'no answer within 15 s',
    });
  });

  it('500 three times then 200: four attempts, one delivery, the same webhook-id', async () => {
    const { tasks, sender, deps } = setup(SUCCESS, [serverError, serverError, serverError, ok]);
    const decisions = [];
    for (let receive = 1; receive <= 4; receive += 1)
      decisions.push((await deliverWebhook(MESSAGE, receive, deps)).action);
    expect(decisions).toEqual(['retry', 'retry', 'retry', 'done']);
    expect(new Set(sender.requests.map((request) => request.id)).size).toBe(1);
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({ webhook_state: 'delivered', webhook_attempts: 4 });
  });

  it('after the last attempt fails: recorded as failed, message to the dead-letter queue', async () => {
    const { tasks, deps } = setup(SUCCESS, [serverError]);
    expect(await deliverWebhook(MESSAGE, 4, deps)).toMatchObject({ action: 'dead-letter' });
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({ webhook_state: 'failed', webhook_attempts: 1, status: 'success' });
  });

  it('a message received more often than there are tries (a crashed consumer) goes to the DLQ unsent', async () => {
    const { sender, deps } = setup(SUCCESS, [ok]);
    expect(await deliverWebhook(MESSAGE, 5, deps)).toMatchObject({ action: 'dead-letter' });
    expect(sender.requests).toHaveLength(0);
  });

  it.each<[string, WebhookSendResult]>([
    ['410 Gone', { kind: 'response', statusCode: 410 }],
    ['a refused address', { kind: 'refused', message: '10.0.0.1 is not a public address (private)' }],
  ])('%s ends the event: recorded as failed, not retried', async (_name, result) => {
    const { tasks, deps } = setup(SUCCESS, [result]);
    expect(await deliverWebhook(MESSAGE, 1, deps)).toMatchObject({ action: 'done', outcome: 'permanent-failure' });
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({ webhook_state: 'failed', webhook_attempts: 1 });
  });

  it('skips a delivered event (a duplicate message), a missing task, a task without webhook_url', async () => {
    const delivered = setup({ ...SUCCESS, webhook_state: 'delivered' }, [ok]);
    expect(await deliverWebhook(MESSAGE, 1, delivered.deps)).toMatchObject({ action: 'done', outcome: 'skipped' });
    expect(delivered.sender.requests).toHaveLength(0);

    const missing = setup(undefined, [ok]);
    expect(await deliverWebhook(MESSAGE, 1, missing.deps)).toMatchObject({ action: 'done', outcome: 'skipped' });

    const noUrl = setup(webhookTask('success', { video_url: 'x' }, null), [ok]);
    expect(await deliverWebhook(MESSAGE, 1, noUrl.deps)).toMatchObject({ action: 'done', outcome: 'skipped' });
    expect(noUrl.sender.requests).toHaveLength(0);
  });

  it('retries after a failed attempt that went to the DLQ and was redriven', async () => {
    const { sender, deps } = setup({ ...SUCCESS, webhook_state: 'failed', webhook_attempts: 4 }, [ok]);
    expect(await deliverWebhook(MESSAGE, 1, deps)).toMatchObject({ action: 'done', outcome: 'delivered' });
    expect(sender.requests).toHaveLength(1);
  });

  it('sends a failed task with its error_message', async () => {
    const failed = webhookTask('failed', {
      error_message: 'generation failed: nope',
      finished_at: '2026-11-21T10:01:00.000Z',
    });
    const { sender, deps } = setup(failed, [ok]);
    await deliverWebhook({ task_id: TASK_ID, event: 'task.failed' }, 1, deps);
    expect(sender.requests[0]?.id).toBe('msg_7a0c1a8e1f0b4a519d866b8f5f0c2d11_failed');
    expect(JSON.parse(sender.requests[0]!.body)).toEqual({
      task_id: TASK_ID,
      status: 'failed',
      error_message: 'generation failed: nope',
      cost: 4.2,
      finished_at: '2026-11-21T10:01:00.000Z',
    });
  });

  it('signs the video URL afresh when the stored one expires within the hour (a late retry)', async () => {
    const stale = { ...SUCCESS, video_url_expires_at: '2026-11-21T10:30:00.000Z' };
    const { sender, signer, deps } = setup(stale, [ok]);
    await deliverWebhook(MESSAGE, 1, deps);
    expect(signer.signed).toBe(1);
    const payload = JSON.parse(sender.requests[0]!.body) as Record<string, string>;
    expect(payload['video_url']).toBe('https://videos.example.com/videos/acc-1/task.mp4?fresh=1');
    expect(payload['result_url']).toBe(payload['video_url']);
  });

  it('an account that no longer exists ends the event', async () => {
    const { sender, deps } = setup(SUCCESS, [ok], {} as never);
    expect(await deliverWebhook(MESSAGE, 1, deps)).toMatchObject({ action: 'done', outcome: 'permanent-failure' });
    expect(sender.requests).toHaveLength(0);
  });
});
