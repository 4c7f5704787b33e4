/**
 * The HTTP side of a delivery (functions/adapters/outbound/webhook-sender.ts) against receivers on 127.0.0.1:
 * Standard Webhooks headers that the `standardwebhooks` library's own verifier accepts, two signatures
 * during a rotation, no redirects, the time limit, and what a failure reports.
 */
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../functions/adapters/dynamodb/webhooks.js';
import { HttpWebhookSender, signWebhook } from '../../functions/adapters/outbound/webhook-sender.js';

const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

interface Seen {
  method?: string;
  headers: IncomingHttpHeaders;
  body: string;
}

async function receiver(listener: (seen: Seen, res: Parameters<RequestListener>[1]) => void) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = { method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(entry);
      listener(entry, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen };
}

const sender = new HttpWebhookSender({ policy: { allowLoopback: true } });
const BODY = JSON.stringify({ task_id: 'abc', status: 'success', cost: 4.2 });

function headersOf(seen: Seen): Record<string, string> {
  return Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(seen.headers[name])]),
  );
}

describe('HttpWebhookSender', () => {
  it('POSTs the JSON body with Standard Webhooks headers that Webhook.verify accepts', async () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const { url, seen } = await receiver((_seen, res) => res.writeHead(204).end());
    const result = await sender.send({ url, id: 'msg_1', timestamp: new Date(), body: BODY, secrets: [secret] });
    expect(result).toEqual({ kind: 'response', statusCode: 204 });
    const [request] = seen;
    expect(request).toMatchObject({ method: 'POST', body: BODY });
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['webhook-id']).toBe('msg_1');
    expect(request?.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(request!.body, headersOf(request!))).toEqual(JSON.parse(BODY));
    expect(() => new Webhook(generateWebhookSecret()).verify(request!.body, headersOf(request!))).toThrow(
      WebhookVerificationError,
    );
  });

  it('signs with both secrets during a rotation: space-separated, each verifies alone', async () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const { url, seen } = await receiver((_seen, res) => res.writeHead(200).end());
    await sender.send({ url, id: 'msg_2', timestamp: new Date(), body: BODY, secrets: [current, previous] });
    const signatures = String(seen[0]?.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    for (const secret of [current, previous]) {
      expect(new Webhook(secret).verify(seen[0]!.body, headersOf(seen[0]!))).toEqual(JSON.parse(BODY));
    }
  });

  it('signs as the spec says: v1,<base64 HMAC-SHA256 of id.timestamp.body> keyed by the base64 secret', () => {
    const key = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const [id, body] = ['msg_p5jXN8AQM9LWM0D4loKWxJek', '{"test": 2432232314}'];
    const expected = createHmac('sha256', Buffer.from(key, 'base64'))
      .update(`${id}.1674087231.${body}`)
      .digest('base64');
    expect(signWebhook({ id, timestamp: new Date(1_674_087_231_000), body, secrets: [`whsec_${key}`] })).toBe(
      `v1,${expected}`,
    );
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const target = await receiver((_seen, res) => res.writeHead(200).end());
    const { url } = await receiver((_seen, res) => res.writeHead(307, { location: target.url }).end());
    const result = await sender.send({
      url,
      id: 'msg_3',
      timestamp: new Date(),
      body: BODY,
      secrets: [generateWebhookSecret()],
    });
    expect(result).toEqual({ kind: 'response', statusCode: 307 });
    expect(target.seen).toHaveLength(0);
  });

  it('reports Retry-After with the status', async () => {
    const { url } = await receiver((_seen, res) => res.writeHead(503, { 'retry-after': '120' }).end());
    const result = await sender.send({
      url,
      id: 'msg_4',
      timestamp: new Date(),
      body: BODY,
      secrets: [generateWebhookSecret()],
    });
    expect(result).toEqual({ kind: 'response', statusCode: 503, retryAfter: '120' });
  });

  // The receiver never answers: without the limit the send would never end, and the test's own deadline fails it.
  it('gives up at the time limit when the receiver never answers', { timeout: 60_000 }, async () => {
    const { url } = await receiver(() => undefined);
    const quick = new HttpWebhookSender({ policy: { allowLoopback: true }, timeoutMs: 300 });
    const result = await quick.send({
      url,
      id: 'msg_5',
      timestamp: new Date(),
      body: BODY,
      secrets: [generateWebhookSecret()],
    });
    expect(result).toEqual({ kind: 'error', message: 'no answer within 0.3 s' });
  });

  it('reports a refused connection as an error (retried), a bad scheme as refused', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await sender.send({
      url: `http://127.0.0.1:${port}/hook`,
      id: 'msg_6',
      timestamp: new Date(),
      body: BODY,
      secrets: [generateWebhookSecret()],
    });
    expect(result).toMatchObject({ kind: 'error', message: expect.stringMatching(/ECONNREFUSED/) });
    expect(
      await sender.send({
        url: 'ftp://example.com/x',
        id: 'm',
        timestamp: new Date(),
        body: BODY,
        secrets: ['whsec_AA=='],
      }),
    ).toMatchObject({ kind: 'refused' });
  });
});
