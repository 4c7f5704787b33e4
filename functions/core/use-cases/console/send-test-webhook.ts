/**
 * POST /api/v1/console/webhook-test. Primary course: check the URL (http or https); sign a `test` event with
 * the account's current secrets, exactly as a task's webhook is signed, and POST it once (same sender, same
 * address guard, same 15 s limit); answer whether the receiver took it (2xx), its status or the error.
 */
import type { WebhookPayload } from '../../webhook.js';
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { NotFoundError } from '../../api-error.js';
import { parseBody } from '../../console-key.js';
import type { WebhookSecretStore, WebhookSender } from '../../ports/webhooks.js';
import type { ConsoleCaller } from './console-caller.js';

export const TestWebhookRequestSchema = v.strictObject({
  url: v.pipe(
    v.string('url must be text'),
    v.trim(),
    v.maxLength(2048, 'url must be at most 2048 characters'),
    v.check((text) => /^https?:\/\/[^/]/.test(text) && URL.canParse(text), 'url must be an http or https URL'),
  ),
});

export const TestWebhookResultSchema = v.strictObject({
  delivered: v.pipe(v.boolean(), v.description('The receiver answered 2xx')),
  status_code: v.nullable(v.number()),
  error: v.nullable(v.string()),
  webhook_id: v.string(),
});
type TestWebhookResult = v.InferOutput<typeof TestWebhookResultSchema>;

export interface TestWebhookDeps {
  secrets: WebhookSecretStore;
  sender: WebhookSender;
  now: () => Date;
}

export async function sendTestWebhook(
  caller: ConsoleCaller,
  body: unknown,
  deps: TestWebhookDeps,
): Promise<TestWebhookResult> {
  const { url } = parseBody(TestWebhookRequestSchema, body);
  const now = deps.now();
  const secrets = await deps.secrets.signingSecrets(caller.accountId, now);
  if (!secrets) throw new NotFoundError('this sign-in has no account: contact support');
  const id = `msg_test_${randomUUID().replaceAll('-', '')}`;
  // The shape of a real task.succeeded event (docs/webhooks.md), marked `test`: a receiver's parser is tried as it will run.
  const payload: WebhookPayload = {
    type: 'task.succeeded',
    task_id: `test_${randomUUID()}`,
    status: 'success',
    model: 'seedance-1.5-pro',
    video_url: 'https://example.com/videos/test.mp4',
    result_url: 'https://example.com/videos/test.mp4',
    cost: 0,
    finished_at: now.toISOString(),
    test: true,
  };
  const result = await deps.sender.send({ url, id, timestamp: now, body: JSON.stringify(payload), secrets });
  if (result.kind === 'response') {
    const delivered = result.statusCode >= 200 && result.statusCode < 300;
    return {
      delivered,
      status_code: result.statusCode,
      error: delivered ? null : `the receiver answered ${result.statusCode}: a webhook is taken by any 2xx`,
      webhook_id: id,
    };
  }
  return { delivered: false, status_code: null, error: result.message, webhook_id: id };
}
