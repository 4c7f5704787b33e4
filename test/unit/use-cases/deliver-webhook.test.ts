/** One queue message of a webhook and what is sent on next (functions/core/use-cases/deliver-webhook.ts). */
import { describe, expect, it } from 'vitest';
import { deliverWebhook } from '../../../functions/core/use-cases/deliver-webhook.js';
import type { DeliveryDecision } from '../../../functions/core/use-cases/deliver-webhook.js';
import type { TaskRecord } from '../../../functions/core/task.js';
import type { WebhookMessage, WebhookSendResult } from '../../../functions/core/webhook.js';
import { TASK_ID } from '../../support/task-records.js';
import {
  CountingSigner,
  HOOK,
  MemoryWebhookDeliveries,
  MemoryWebhookSecrets,
  MemoryWebhookTasks,
  ScriptedSender,
  webhookTask,
} from '../webhook-support.js';

const NOW = new Date('2026-11-21T10:05:00.000Z');
const SCHEDULE = [5, 30, 3600];
const SUCCESS = webhookTask('success', {
  finished_at: '2026-11-21T10:03:00.000Z',
  video_key: 'videos/acc-1/task.mp4',
  video_url: 'https://videos.example.com/stored',
  video_url_expires_at: '2026-11-22T10:03:00.000Z',
  webhook_pending: '7',
  webhook_due_at: '2026-11-21T09:59:00.000Z',
});
/** What the state machine sends: no try count. */
const MESSAGE = { task_id: TASK_ID, event: 'task.success' } as const;

function setup(
  task: TaskRecord | undefined,
  results: WebhookSendResult[],
  secrets = { 'acc-1': ['whsec_new', 'whsec_old'] },
) {
  const tasks = task ? new MemoryWebhookTasks(task) : new MemoryWebhookTasks();
  const sender = new ScriptedSender(results);
  const signer = new CountingSigner();
  const deliveries = new MemoryWebhookDeliveries();
  let now = NOW;
  let reads = 0;
  const deps = {
    tasks: {
      get: (taskId: string) => {
        reads += 1;
        return tasks.get(taskId);
      },
    },
    attempts: tasks,
    deliveries,
    secrets: new MemoryWebhookSecrets(secrets),
    sender,
    signer,
    schedule: SCHEDULE,
    claimSeconds: 30,
    now: () => now,
  };
  return { tasks, sender, signer, deliveries, deps, at: (time: Date) => (now = time), reads: () => reads };
}

const ok = { kind: 'response', statusCode: 200 } as const;
const serverError = { kind: 'response', statusCode: 500 } as const;

/** The message a decision sends on (retry, wait, dead-letter). */
function next(decision: DeliveryDecision): WebhookMessage {
  if (decision.action === 'done') throw new Error(`no message after ${decision.detail}`);
  return decision.message;
}

describe('deliverWebhook', () => {
  it('delivers: one signed request with the stable id, recorded once, out of the pending index', async () => {
    const { tasks, sender, deps } = setup(SUCCESS, [ok]);
    expect(await deliverWebhook(MESSAGE, deps)).toEqual({ action: 'done', outcome: 'delivered', detail: 'HTTP 200' });
    expect(sender.requests).toHaveLength(1);
    const [request] = sender.requests;
    expect(request).toMatchObject({
      url: HOOK,
      id: 'msg_7a0c1a8e1f0b4a519d866b8f5f0c2d11_success',
      timestamp: NOW,
      secrets: ['whsec_new', 'whsec_old'],
    });
    expect(JSON.parse(request!.body)).toEqual({
      type: 'task.succeeded',
      task_id: TASK_ID,
      status: 'success',
      model: 'seedance-1.5-pro',
      video_url: 'https://videos.example.com/stored',
      result_url: 'https://videos.example.com/stored',
      cost: 4.2,
      finished_at: '2026-11-21T10:03:00.000Z',
    });
    const stored = tasks.tasks.get(TASK_ID);
    expect(stored).toMatchObject({
      webhook_state: 'delivered',
      webhook_attempts: 1,
      webhook_last_status_code: 200,
      webhook_last_error: null,
      webhook_delivered_at: NOW.toISOString(),
    });
    expect(stored).not.toHaveProperty('webhook_pending');
    expect(stored).not.toHaveProperty('webhook_due_at');
  });

  it('a failed try sends the next one as a new message with its timer and the try count', async () => {
    const { tasks, deps } = setup(SUCCESS, [serverError]);
    expect(await deliverWebhook(MESSAGE, deps)).toEqual({
      action: 'retry',
      message: { ...MESSAGE, attempts: 1 },
      delaySeconds: 5,
      detail: 'HTTP 500',
    });
    // The requeuer leaves the task alone until the next try is due.
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({
      webhook_state: 'retrying',
      webhook_attempts: 1,
      webhook_pending: '7',
      webhook_due_at: '2026-11-21T10:05:05.000Z',
    });
    expect(await deliverWebhook({ ...MESSAGE, attempts: 1 }, deps)).toMatchObject({
      action: 'retry',
      message: { attempts: 2 },
      delaySeconds: 30,
    });

    const throttled = setup(SUCCESS, [{ kind: 'response', statusCode: 429, retryAfter: '90' }]);
    expect(await deliverWebhook(MESSAGE, throttled.deps)).toMatchObject({ action: 'retry', delaySeconds: 90 });
  });

  it('a wait longer than a message timer is due at its time and hops until then, with no read', async () => {
    const { tasks, sender, deps, at, reads } = setup({ ...SUCCESS, webhook_attempts: 2 }, [serverError, ok]);
    const retry = await deliverWebhook({ ...MESSAGE, attempts: 2 }, deps);
    const dueAt = '2026-11-21T11:05:00.000Z';
    expect(retry).toEqual({
      action: 'retry',
      message: { ...MESSAGE, attempts: 3, due_at: dueAt },
      delaySeconds: 900,
      detail: 'HTTP 500',
    });

    // Received 15 min later, then again with 20 s to go: sent on each time, nothing read or sent.
    const readsBefore = reads();
    at(new Date('2026-11-21T10:20:00.000Z'));
    expect(await deliverWebhook(next(retry), deps)).toEqual({
      action: 'wait',
      message: next(retry),
      delaySeconds: 900,
      detail: `due at ${dueAt}`,
    });
    at(new Date('2026-11-21T11:04:40.000Z'));
    expect(await deliverWebhook(next(retry), deps)).toMatchObject({ action: 'wait', delaySeconds: 20 });
    expect(reads()).toBe(readsBefore);
    expect(sender.requests).toHaveLength(1);

    // Due (a little early counts): the try.
    at(new Date('2026-11-21T11:04:59.500Z'));
    expect(await deliverWebhook(next(retry), deps)).toMatchObject({ action: 'done', outcome: 'delivered' });
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({ webhook_state: 'delivered', webhook_attempts: 4 });
  });

  it('retries when there is no answer, recording the error', async () => {
    const { tasks, deps } = setup(SUCCESS, [{ kind: 'error', message: 'no answer within 15 s' }]);
    expect(await deliverWebhook(MESSAGE, deps)).toMatchObject({ action: 'retry', delaySeconds: 5 });
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({
      webhook_last_status_code: null,
      webhook_last_error: 'no answer within 15 s',
    });
  });

  it('500 three times then 200: four tries following the messages, one delivery, the same webhook-id', async () => {
    const { tasks, sender, deps } = setup(SUCCESS, [serverError, serverError, serverError, ok]);
    const actions: string[] = [];
    let message: WebhookMessage = MESSAGE;
    for (;;) {
      const decision = await deliverWebhook(message, deps);
      actions.push(decision.action);
      if (decision.action === 'done') break;
      message = { ...next(decision), due_at: undefined };
    }
    expect(actions).toEqual(['retry', 'retry', 'retry', 'done']);
    expect(new Set(sender.requests.map((request) => request.id)).size).toBe(1);
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({ webhook_state: 'delivered', webhook_attempts: 4 });
  });

  it('logs every POST: event, task, URL, status, error, the answer’s first bytes, and what followed', async () => {
    const answered = { kind: 'response', statusCode: 503, bodyExcerpt: 'down for maintenance' } as const;
    const { deliveries, deps } = setup(SUCCESS, [answered, { kind: 'error', message: 'ECONNREFUSED' }, ok]);
    let message: WebhookMessage = MESSAGE;
    for (;;) {
      const decision = await deliverWebhook(message, deps);
      if (decision.action === 'done') break;
      message = { ...next(decision), due_at: undefined };
    }
    expect(deliveries.records.map(({ outcome, status_code, error }) => ({ outcome, status_code, error }))).toEqual([
      { outcome: 'retrying', status_code: 503, error: 'HTTP 503' },
      { outcome: 'retrying', status_code: null, error: 'ECONNREFUSED' },
      { outcome: 'delivered', status_code: 200, error: null },
    ]);
    expect(deliveries.records[0]).toMatchObject({
      account_id: SUCCESS.account_id,
      task_id: TASK_ID,
      event: 'task.success',
      url: HOOK,
      webhook_id: 'msg_7a0c1a8e1f0b4a519d866b8f5f0c2d11_success',
      attempted_at: NOW.toISOString(),
      response_excerpt: 'down for maintenance',
      redelivery: false,
      expires_at: NOW.getTime() / 1000 + 30 * 86_400,
    });
    expect(deliveries.records.every((record) => /^wd_[0-9a-z]{9}[0-9a-f]{12}$/.test(record.delivery_id))).toBe(true);
  });

  it('after the last try fails: recorded as failed, out of the index, its message to the dead-letter queue', async () => {
    const { tasks, deliveries, deps } = setup({ ...SUCCESS, webhook_attempts: 3, webhook_state: 'retrying' }, [
      serverError,
    ]);
    expect(await deliverWebhook({ ...MESSAGE, attempts: 3 }, deps)).toEqual({
      action: 'dead-letter',
      message: { ...MESSAGE, attempts: 4 },
      detail: 'HTTP 500; that was try 4 of 4',
    });
    const stored = tasks.tasks.get(TASK_ID);
    expect(stored).toMatchObject({ webhook_state: 'failed', webhook_attempts: 4, status: 'success' });
    expect(stored).not.toHaveProperty('webhook_pending');
    // The dead-letter path is in the delivery log too.
    expect(deliveries.records.map((record) => record.outcome)).toEqual(['dead_lettered']);
  });

  it('a stale message (the task has recorded another try since) is dropped unsent', async () => {
    const { sender, deps } = setup({ ...SUCCESS, webhook_attempts: 2, webhook_state: 'retrying' }, [ok]);
    expect(await deliverWebhook({ ...MESSAGE, attempts: 1 }, deps)).toMatchObject({
      action: 'done',
      outcome: 'skipped',
      detail: expect.stringMatching(/stale duplicate/),
    });
    expect(sender.requests).toHaveLength(0);
  });

  it('two messages of one event at once: one sends and records the try; the other waits out its claim', async () => {
    const { tasks, sender, deps, at } = setup(SUCCESS, [serverError]);
    const [first, second] = await Promise.all([deliverWebhook(MESSAGE, deps), deliverWebhook(MESSAGE, deps)]);
    expect(sender.requests).toHaveLength(1);
    expect([first?.action, second?.action].sort()).toEqual(['retry', 'wait']);
    const waiting = [first, second].find((decision) => decision?.action === 'wait');
    // Pinned to the count it saw, back just after the claim (30 s) lapses.
    expect(waiting).toMatchObject({ message: { ...MESSAGE, attempts: 0 }, delaySeconds: 31 });
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({ webhook_attempts: 1 });
    // Back: the try it waited for is recorded, so it is stale and sends nothing.
    at(new Date(NOW.getTime() + 31_000));
    expect(await deliverWebhook(next(waiting!), deps)).toMatchObject({ action: 'done', outcome: 'skipped' });
    expect(sender.requests).toHaveLength(1);
  });

  it('a claim whose try died with its run lapses: the next message makes the try', async () => {
    const { tasks, sender, deps, at } = setup(SUCCESS, [ok]);
    // A run that claimed try 1 and died before recording it.
    expect(await tasks.claim(TASK_ID, 0, NOW, new Date(NOW.getTime() + 30_000))).toBe(true);
    const held = await deliverWebhook(MESSAGE, deps);
    expect(held).toMatchObject({ action: 'wait', delaySeconds: 31 });
    expect(sender.requests).toHaveLength(0);
    at(new Date(NOW.getTime() + 31_000));
    expect(await deliverWebhook(next(held), deps)).toMatchObject({ action: 'done', outcome: 'delivered' });
    expect(sender.requests).toHaveLength(1);
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({ webhook_state: 'delivered', webhook_attempts: 1 });
    expect(tasks.tasks.get(TASK_ID)).not.toHaveProperty('webhook_claimed_until');
  });

  it.each<[string, WebhookSendResult]>([
    ['410 Gone', { kind: 'response', statusCode: 410 }],
    ['a refused address', { kind: 'refused', message: '10.0.0.1 is not a public address (private)' }],
  ])('%s ends the event: recorded as failed, not retried', async (_name, result) => {
    const { tasks, deps } = setup(SUCCESS, [result]);
    expect(await deliverWebhook(MESSAGE, deps)).toMatchObject({ action: 'done', outcome: 'permanent-failure' });
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({ webhook_state: 'failed', webhook_attempts: 1 });
  });

  it('skips a delivered event (a duplicate message), a missing task, a task without webhook_url', async () => {
    const delivered = setup({ ...SUCCESS, webhook_state: 'delivered' }, [ok]);
    expect(await deliverWebhook(MESSAGE, delivered.deps)).toMatchObject({ action: 'done', outcome: 'skipped' });
    expect(delivered.sender.requests).toHaveLength(0);

    const missing = setup(undefined, [ok]);
    expect(await deliverWebhook(MESSAGE, missing.deps)).toMatchObject({ action: 'done', outcome: 'skipped' });

    const noUrl = setup(webhookTask('success', { video_url: 'x' }, null), [ok]);
    expect(await deliverWebhook(MESSAGE, noUrl.deps)).toMatchObject({ action: 'done', outcome: 'skipped' });
    expect(noUrl.sender.requests).toHaveLength(0);
  });

  it('a failed event takes one more try from its parked message (an operator redrive), from no other', async () => {
    const failed = { ...SUCCESS, webhook_state: 'failed', webhook_attempts: 4 } as const;
    const late = setup(failed, [ok]);
    expect(await deliverWebhook(MESSAGE, late.deps)).toMatchObject({ action: 'done', outcome: 'skipped' });
    expect(late.sender.requests).toHaveLength(0);

    const redriven = setup(failed, [ok]);
    expect(await deliverWebhook({ ...MESSAGE, attempts: 4 }, redriven.deps)).toMatchObject({
      action: 'done',
      outcome: 'delivered',
    });
    expect(redriven.tasks.tasks.get(TASK_ID)).toMatchObject({ webhook_state: 'delivered', webhook_attempts: 5 });

    const failsAgain = setup(failed, [serverError]);
    expect(await deliverWebhook({ ...MESSAGE, attempts: 4 }, failsAgain.deps)).toMatchObject({
      action: 'dead-letter',
      message: { attempts: 5 },
    });
  });

  it('sends a failed task with its error_message', async () => {
    const failed = webhookTask('failed', {
      error_message: 'generation failed: nope',
      finished_at: '2026-11-21T10:01:00.000Z',
    });
    const { sender, deps } = setup(failed, [ok]);
    await deliverWebhook({ task_id: TASK_ID, event: 'task.failed' }, deps);
    expect(sender.requests[0]?.id).toBe('msg_7a0c1a8e1f0b4a519d866b8f5f0c2d11_failed');
    expect(JSON.parse(sender.requests[0]!.body)).toEqual({
      type: 'task.failed',
      task_id: TASK_ID,
      status: 'failed',
      model: 'seedance-1.5-pro',
      error_message: 'generation failed: nope',
      cost: 4.2,
      finished_at: '2026-11-21T10:01:00.000Z',
    });
  });

  it('signs the video URL afresh when the stored one expires within the hour (a late retry)', async () => {
    const stale = { ...SUCCESS, video_url_expires_at: '2026-11-21T10:30:00.000Z' };
    const { sender, signer, deps } = setup(stale, [ok]);
    await deliverWebhook(MESSAGE, deps);
    expect(signer.signed).toBe(1);
    const payload = JSON.parse(sender.requests[0]!.body) as Record<string, string>;
    expect(payload['video_url']).toBe('https://videos.example.com/videos/acc-1/task.mp4?fresh=1');
    expect(payload['result_url']).toBe(payload['video_url']);
  });

  it('an account that no longer exists ends the event', async () => {
    const { tasks, sender, deps } = setup(SUCCESS, [ok], {} as never);
    expect(await deliverWebhook(MESSAGE, deps)).toMatchObject({ action: 'done', outcome: 'permanent-failure' });
    expect(sender.requests).toHaveLength(0);
    expect(tasks.tasks.get(TASK_ID)).toMatchObject({ webhook_state: 'failed', webhook_attempts: 1 });
  });
});
