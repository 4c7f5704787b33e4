/** The pure webhook rules (functions/core/webhook.ts): message, payload, schedule, judging an answer, the view. */
import { webhookView } from '../../functions/core/task.js';
import { describe, expect, it } from 'vitest';
import { toTaskView } from '../../functions/core/task.js';
import type { TaskStatus } from '../../functions/core/task-status.js';
import {
  attemptError,
  buildWebhookPayload,
  DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS,
  judgeAttempt,
  MAX_MESSAGE_DELAY_SECONDS,
  parseRetryAfterSeconds,
  parseWebhookMessage,
  parseWebhookRetrySchedule,
  pendingWebhookKeys,
  retryMessage,
  secondsUntilDue,
  shouldNotify,
  WEBHOOK_PENDING_SHARDS,
  webhookEventOf,
  webhookMaxAttempts,
  webhookMessageId,
  webhookRetryDelaySeconds,
} from '../../functions/core/webhook.js';
import { TASK_ID } from '../support/task-records.js';
import { webhookTask } from './webhook-support.js';

describe('the queue message', () => {
  it('parses what the state machine sends', () => {
    expect(parseWebhookMessage(JSON.stringify({ task_id: TASK_ID, event: 'task.success' }))).toEqual({
      task_id: TASK_ID,
      event: 'task.success',
    });
  });
  it.each([
    'not json',
    '{}',
    JSON.stringify({ task_id: 'x', event: 'task.success' }),
    JSON.stringify({ task_id: TASK_ID, event: 'task.cancelled' }),
  ])('refuses %s', (body) => {
    expect(() => parseWebhookMessage(body)).toThrow(expect.objectContaining({ name: 'InvalidWebhookMessageError' }));
  });
  it('parses what the consumer and the requeuer send: the try count and a due time', () => {
    const later = { task_id: TASK_ID, event: 'task.failed', attempts: 3, due_at: '2026-11-21T11:05:00.000Z' };
    expect(parseWebhookMessage(JSON.stringify(later))).toEqual(later);
    for (const wrong of [{ attempts: -1 }, { attempts: 1.5 }, { due_at: 'tomorrow' }]) {
      expect(() => parseWebhookMessage(JSON.stringify({ ...later, ...wrong }))).toThrow(/webhook message/);
    }
  });
  it('has a webhook-id fixed by task and event', () => {
    expect(webhookMessageId(TASK_ID, 'task.success')).toBe('msg_7a0c1a8e1f0b4a519d866b8f5f0c2d11_success');
    expect(webhookMessageId(TASK_ID, 'task.failed')).toBe('msg_7a0c1a8e1f0b4a519d866b8f5f0c2d11_failed');
  });
});

describe('shouldNotify', () => {
  it('is true for a task with a webhook_url in the expected final state', () => {
    expect(shouldNotify(webhookTask('success'), 'success')).toBe(true);
    expect(shouldNotify(webhookTask('failed'), 'failed')).toBe(true);
  });
  it('is false without a webhook_url, in another state, or without a task', () => {
    expect(shouldNotify(webhookTask('success', {}, null), 'success')).toBe(false);
    expect(shouldNotify(webhookTask('refunded'), 'failed')).toBe(false);
    expect(shouldNotify(webhookTask('transferring'), 'success')).toBe(false);
    expect(shouldNotify(undefined, 'failed')).toBe(false);
  });
});

describe('buildWebhookPayload', () => {
  const VIDEO = 'https://cdn.example.com/v.mp4?sig=1';
  it('success: Form A fields plus result_url, no error_message', () => {
    const payload = buildWebhookPayload(
      webhookTask('success', { video_url: VIDEO, finished_at: '2026-11-21T10:03:00.000Z', video_key: 'k' }),
    );
    expect(payload).toEqual({
      type: 'task.succeeded',
      task_id: TASK_ID,
      status: 'success',
      model: 'seedance-1.5-pro',
      video_url: VIDEO,
      result_url: VIDEO,
      cost: 4.2,
      finished_at: '2026-11-21T10:03:00.000Z',
    });
  });
  it('failure: error_message, no video_url or result_url', () => {
    const payload = buildWebhookPayload(
      webhookTask('failed', { error_message: 'generation failed: x', finished_at: '2026-11-21T10:03:00.000Z' }),
    );
    expect(payload).toEqual({
      type: 'task.failed',
      task_id: TASK_ID,
      status: 'failed',
      model: 'seedance-1.5-pro',
      error_message: 'generation failed: x',
      cost: 4.2,
      finished_at: '2026-11-21T10:03:00.000Z',
    });
  });
  it.each<TaskStatus>(['pending', 'running', 'transferring', 'refunded'])('nothing for a %s task', (status) => {
    expect(buildWebhookPayload(webhookTask(status))).toBeUndefined();
  });
});

describe('retry schedule', () => {
  it('defaults to backoff lasting more than 24 h, no wait above 12 h', () => {
    const total = DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS.reduce((sum, delay) => sum + delay, 0);
    expect(total).toBeGreaterThanOrEqual(24 * 3600);
    expect(Math.max(...DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS)).toBeLessThanOrEqual(43_200);
    expect(DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS).toEqual(
      [...DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS].sort((a, b) => a - b),
    );
    expect(webhookMaxAttempts(DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS)).toBe(11);
  });

  it('gives the wait after each failed attempt, and none after the last', () => {
    const schedule = [5, 30, 120];
    expect(webhookRetryDelaySeconds(1, schedule)).toBe(5);
    expect(webhookRetryDelaySeconds(2, schedule)).toBe(30);
    expect(webhookRetryDelaySeconds(3, schedule)).toBe(120);
    expect(webhookRetryDelaySeconds(4, schedule)).toBeUndefined();
    expect(() => webhookRetryDelaySeconds(0, schedule)).toThrow(RangeError);
  });

  it('honours Retry-After when longer, never shorter, and caps at 12 h', () => {
    expect(webhookRetryDelaySeconds(1, [5, 30], 60)).toBe(60);
    expect(webhookRetryDelaySeconds(2, [5, 30], 10)).toBe(30);
    expect(webhookRetryDelaySeconds(1, [5, 30], 999_999)).toBe(43_200);
    expect(webhookRetryDelaySeconds(2, [5, 30], 60)).toBe(60);
  });

  it('parses WEBHOOK_RETRY_SCHEDULE_SECONDS', () => {
    expect(parseWebhookRetrySchedule('1,1,1')).toEqual([1, 1, 1]);
    expect(parseWebhookRetrySchedule(' 5, 30 ,120')).toEqual([5, 30, 120]);
    for (const bad of ['', '1,,2', '-1', '1.5', 'a', '43201']) {
      expect(() => parseWebhookRetrySchedule(bad)).toThrow(/webhook retry schedule/);
    }
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = new Date('2026-11-21T10:00:00.000Z');
    expect(parseRetryAfterSeconds('120', now)).toBe(120);
    expect(parseRetryAfterSeconds('Sat, 21 Nov 2026 10:02:00 GMT', now)).toBe(120);
    expect(parseRetryAfterSeconds('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterSeconds(undefined, now)).toBeUndefined();
    expect(parseRetryAfterSeconds('soon', now)).toBeUndefined();
    expect(parseRetryAfterSeconds('-5', now)).toBeUndefined();
  });
});

describe('the next message', () => {
  const NOW = new Date('2026-11-21T10:00:00.000Z');
  const message = { task_id: TASK_ID, event: 'task.success' } as const;

  it('a wait up to 15 min is the message timer alone; a longer one is due at its time and hops', () => {
    expect(retryMessage(message, 2, 900, NOW)).toEqual({ message: { ...message, attempts: 2 }, delaySeconds: 900 });
    expect(retryMessage({ ...message, due_at: '2026-11-21T09:00:00.000Z' }, 3, 30, NOW)).toEqual({
      message: { ...message, attempts: 3 },
      delaySeconds: 30,
    });
    expect(retryMessage(message, 9, 43_200, NOW)).toEqual({
      message: { ...message, attempts: 9, due_at: '2026-11-21T22:00:00.000Z' },
      delaySeconds: MAX_MESSAGE_DELAY_SECONDS,
    });
  });

  it('is due when its time has come, within a second; otherwise the wait, at most one timer', () => {
    const due = (dueAt: string | undefined, now: string) =>
      secondsUntilDue({ ...message, ...(dueAt && { due_at: dueAt }) }, new Date(now));
    expect(due(undefined, '2026-11-21T10:00:00.000Z')).toBe(0);
    expect(due('2026-11-21T10:00:00.999Z', '2026-11-21T10:00:00.000Z')).toBe(0);
    expect(due('2026-11-21T10:00:01.000Z', '2026-11-21T10:00:00.000Z')).toBe(1);
    expect(due('2026-11-21T10:05:00.500Z', '2026-11-21T10:00:00.000Z')).toBe(301);
    expect(due('2026-11-21T22:00:00.000Z', '2026-11-21T10:00:00.000Z')).toBe(900);
    expect(due('2026-11-21T09:00:00.000Z', '2026-11-21T10:00:00.000Z')).toBe(0);
  });

  it('the event of a final status, none for a cancel', () => {
    expect(webhookEventOf('success')).toBe('task.success');
    expect(webhookEventOf('failed')).toBe('task.failed');
    expect(webhookEventOf('refunded')).toBeUndefined();
    expect(webhookEventOf('running')).toBeUndefined();
  });

  it('the pending-index keys spread tasks over 16 shards by the first hex digit of their id', () => {
    expect(pendingWebhookKeys(TASK_ID, '2026-11-21T10:00:00.000Z')).toEqual({
      webhook_pending: '7',
      webhook_due_at: '2026-11-21T10:00:00.000Z',
    });
    expect(pendingWebhookKeys('A0C1A8E1-1F0B-4A51-9D86-6B8F5F0C2D11', 'x').webhook_pending).toBe('a');
    expect(WEBHOOK_PENDING_SHARDS).toHaveLength(16);
  });
});

describe('judging an attempt', () => {
  it.each([200, 201, 202, 204, 299])('%i is a delivery', (statusCode) => {
    expect(judgeAttempt({ kind: 'response', statusCode })).toBe('delivered');
  });
  it.each([301, 302, 307, 308, 400, 401, 404, 408, 429, 500, 502, 503])('%i is retried', (statusCode) => {
    expect(judgeAttempt({ kind: 'response', statusCode })).toBe('retry');
  });
  it('410 and a refused address end the event; no answer is retried', () => {
    expect(judgeAttempt({ kind: 'response', statusCode: 410 })).toBe('permanent');
    expect(judgeAttempt({ kind: 'refused', message: 'x' })).toBe('permanent');
    expect(judgeAttempt({ kind: 'error', message: 'ECONNREFUSED' })).toBe('retry');
  });
  it('records why, where the status code alone does not say', () => {
    expect(attemptError({ kind: 'response', statusCode: 500 })).toBeNull();
    expect(attemptError({ kind: 'response', statusCode: 302 })).toMatch(/redirects are not followed/);
    expect(attemptError({ kind: 'response', statusCode: 410 })).toMatch(/410 Gone/);
    expect(attemptError({ kind: 'error', message: 'no answer within 15 s' })).toBe('no answer within 15 s');
  });
});

describe('the webhook object of the task view', () => {
  it('is null without a webhook_url', () => {
    expect(webhookView(webhookTask('success', {}, null))).toBeNull();
    expect(toTaskView(webhookTask('success', {}, null)).webhook).toBeNull();
  });
  it('is pending before any attempt, not_sent for a cancelled task', () => {
    expect(webhookView(webhookTask('running'))).toEqual({
      state: 'pending',
      attempts: 0,
      last_status_code: null,
      last_error: null,
      last_attempt_at: null,
      delivered_at: null,
    });
    expect(webhookView(webhookTask('refunded'))?.state).toBe('not_sent');
  });
  it('shows the recorded attempts', () => {
    const task = webhookTask('success', {
      webhook_state: 'delivered',
      webhook_attempts: 4,
      webhook_last_status_code: 200,
      webhook_last_error: null,
      webhook_last_attempt_at: '2026-11-21T10:05:00.000Z',
      webhook_delivered_at: '2026-11-21T10:05:00.000Z',
    });
    expect(toTaskView(task).webhook).toEqual({
      state: 'delivered',
      attempts: 4,
      last_status_code: 200,
      last_error: null,
      last_attempt_at: '2026-11-21T10:05:00.000Z',
      delivered_at: '2026-11-21T10:05:00.000Z',
    });
  });
});
