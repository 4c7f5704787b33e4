/**
 * The console's "send a test event" (docs/console.md), through the real webhook sender to a real receiver: signed
 * as a task's webhook is (Standard Webhooks), a non-2xx answer or no answer reported in words.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../functions/adapters/dynamodb/webhooks.js';
import { HttpWebhookSender } from '../../functions/adapters/outbound/webhook-sender.js';
import { sendTestWebhook } from '../../functions/core/use-cases/console/send-test-webhook.js';

const secret = generateWebhookSecret();
const received: { headers: Record<string, string>; body: string }[] = [];
let status = 204;
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    received.push({ headers: req.headers as Record<string, string>, body });
    res.writeHead(status).end();
  });
});
let url = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const deps = (allowLoopback = true) => ({
  secrets: { signingSecrets: async () => [secret] },
  sender: new HttpWebhookSender({ policy: { allowLoopback }, timeoutMs: 5_000 }),
  now: () => new Date(),
});
const caller = { accountId: 'acct_test', sub: 'sub' };

describe('send a test webhook', () => {
  it('delivers a test event a receiver verifies with the account secret', async () => {
    status = 204;
    const result = await sendTestWebhook(caller, { url }, deps());
    expect(result).toMatchObject({ delivered: true, status_code: 204, error: null });
    const last = received.at(-1)!;
    expect(last.headers['webhook-id']).toBe(result.webhook_id);
    const payload = new Webhook(secret).verify(last.body, last.headers) as Record<string, unknown>;
    expect(payload).toMatchObject({ type: 'task.succeeded', status: 'success', test: true });
  });

  it('reports a non-2xx answer, a refused address and a bad URL in words', async () => {
    status = 500;
    expect(await sendTestWebhook(caller, { url }, deps())).toMatchObject({
      delivered: false,
      status_code: 500,
      error: expect.stringMatching(/answered 500/),
    });
    const refused = await sendTestWebhook(caller, { url }, deps(false));
    expect(refused).toMatchObject({ delivered: false, status_code: null, error: expect.stringMatching(/./) });
    await expect(sendTestWebhook(caller, { url: 'ftp://example.com' }, deps())).rejects.toThrow(/http or https/);
    await expect(sendTestWebhook(caller, {}, deps())).rejects.toThrow(/url/);
  });
});
