/** Fixtures for the webhook unit tests: a task that asked for a webhook, and in-memory ports. */
import type { TaskRecord } from '../../functions/core/task.js';
import type { TaskStatus } from '../../functions/core/task-status.js';
import type { SignedUrl, VideoUrlSigner } from '../../functions/core/ports/video-storage.js';
import type {
  WebhookAttemptLog,
  WebhookRequest,
  WebhookSecretStore,
  WebhookSender,
} from '../../functions/core/ports/webhooks.js';
import type { WebhookAttemptRecord, WebhookSendResult } from '../../functions/core/webhook.js';

export const TASK_ID = '7a0c1a8e-1f0b-4a51-9d86-6b8f5f0c2d11';
export const HOOK = 'https://hooks.example.com/video';

export function webhookTask(status: TaskStatus, fields: Partial<TaskRecord> = {}, webhookUrl: string | null = HOOK) {
  const task: TaskRecord = {
    task_id: TASK_ID,
    account_id: 'acc-1',
    key_hash: 'hash',
    key_quota_charged: false,
    form: 'A',
    status,
    cost_units: 42_000,
    generation: {
      modelId: '6f1c2a0e-5b7d-4c1e-9a3f-0d2b8e4c7a11',
      modelName: 'seedance-1.5-pro',
      prompt: 'A fox',
      resolution: '720p',
      ratio: '16:9',
      durationSeconds: 5,
      generateAudio: true,
      imageUrls: [],
      videoUrls: [],
      audioUrls: [],
      ...(webhookUrl ? { webhookUrl } : {}),
    },
    upstream_provider: 'ark',
    upstream_model: 'doubao-seedance-1-5-pro-251215',
    created_at: '2026-11-21T10:00:00.000Z',
    updated_at: '2026-11-21T10:03:00.000Z',
    deadline_at: '2026-11-21T11:00:00.000Z',
    ...fields,
  };
  return task;
}

/** Tasks in memory; the attempt log writes into them as DynamoDbWebhookAttemptLog does. */
export class MemoryWebhookTasks implements WebhookAttemptLog {
  readonly tasks = new Map<string, TaskRecord>();
  readonly attempts: WebhookAttemptRecord[] = [];

  constructor(...tasks: TaskRecord[]) {
    for (const task of tasks) this.tasks.set(task.task_id, structuredClone(task));
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const task = this.tasks.get(taskId);
    return task && structuredClone(task);
  }

  async record(taskId: string, attempt: WebhookAttemptRecord): Promise<void> {
    this.attempts.push(attempt);
    const task = this.tasks.get(taskId);
    if (!task || task.webhook_state === 'delivered') return;
    task.webhook_state = attempt.state;
    task.webhook_attempts = (task.webhook_attempts ?? 0) + 1;
    task.webhook_last_status_code = attempt.statusCode;
    task.webhook_last_error = attempt.error;
    task.webhook_last_attempt_at = attempt.at;
    if (attempt.state === 'delivered') task.webhook_delivered_at = attempt.at;
  }
}

export class MemoryWebhookSecrets implements WebhookSecretStore {
  constructor(private readonly secrets: Record<string, string[]>) {}

  async signingSecrets(accountId: string): Promise<string[] | undefined> {
    return this.secrets[accountId];
  }
}

/** Answers each send with the next scripted result (the last one repeating), keeping every request. */
export class ScriptedSender implements WebhookSender {
  readonly requests: WebhookRequest[] = [];

  constructor(private readonly results: WebhookSendResult[]) {}

  async send(request: WebhookRequest): Promise<WebhookSendResult> {
    this.requests.push(request);
    return this.results[Math.min(this.requests.length, this.results.length) - 1] as WebhookSendResult;
  }
}

export class CountingSigner implements VideoUrlSigner {
  signed = 0;

  async sign(key: string, now: Date): Promise<SignedUrl> {
    this.signed += 1;
    return {
      url: `https://videos.example.com/${key}?fresh=${this.signed}`,
      expiresAt: new Date(now.getTime() + 24 * 3600_000).toISOString(),
    };
  }
}
