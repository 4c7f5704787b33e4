/**
 * Sends one completion webhook: a JSON POST signed by the `standardwebhooks` library (one signature per
 * secret while a rotated one overlaps), so receivers can verify with it. node:http(s), no redirects, no
 * connection reuse, one time limit over DNS, connect, TLS and headers, and only to addresses the SSRF
 * guard allows (public-address-guard.ts).
 */
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { WebhookRequest, WebhookSender } from '../../core/ports/webhooks.js';
import type { WebhookSendResult } from '../../core/webhook.js';
import { RESPONSE_EXCERPT_BYTES } from '../../core/webhook-delivery.js';
import type { AddressPolicy, Resolver } from './public-address-guard.js';
import { ForbiddenAddressError, guardedLookup } from './public-address-guard.js';

export interface HttpWebhookSenderOptions {
  policy: AddressPolicy;
  /** Whole exchange, in ms. Default 15 s. */
  timeoutMs?: number;
  /** For tests: resolve names without the system resolver. */
  resolver?: Resolver;
  userAgent?: string;
}

export const WEBHOOK_TIMEOUT_MS = 15_000;
/** How long the body's first bytes are waited for once the headers came: a slow body never delays a try. */
const EXCERPT_WAIT_MS = 1_000;

/** The first RESPONSE_EXCERPT_BYTES as text, never cut inside a UTF-8 character. */
function excerptOf(body: Buffer): string {
  const text = body.subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
  return body.length > RESPONSE_EXCERPT_BYTES ? text.replace(/\uFFFD$/, '') : text;
}

/** The `webhook-signature` header value: `v1,<sig>` per secret, space-separated. */
export function signWebhook(request: Pick<WebhookRequest, 'id' | 'timestamp' | 'body' | 'secrets'>): string {
  if (request.secrets.length === 0) throw new Error('no secret to sign the webhook with');
  return request.secrets
    .map((secret) => new Webhook(secret).sign(request.id, request.timestamp, request.body))
    .join(' ');
}

export class HttpWebhookSender implements WebhookSender {
  private readonly timeoutMs: number;

  constructor(private readonly options: HttpWebhookSenderOptions) {
    this.timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  }

  async send(webhook: WebhookRequest): Promise<WebhookSendResult> {
    let url: URL;
    let lookup;
    try {
      url = new URL(webhook.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return { kind: 'refused', message: `${url.protocol} URLs are not allowed` };
      }
      lookup = guardedLookup(url, this.options.policy, this.options.resolver);
    } catch (error) {
      if (error instanceof ForbiddenAddressError) return { kind: 'refused', message: error.message };
      return { kind: 'refused', message: `not a valid URL: ${(error as Error).message}` };
    }
    const body = Buffer.from(webhook.body, 'utf8');
    const headers = {
      'content-type': 'application/json',
      'content-length': String(body.length),
      'user-agent': this.options.userAgent ?? 'video-generation-webhooks/1',
      'webhook-id': webhook.id,
      'webhook-timestamp': String(Math.floor(webhook.timestamp.getTime() / 1000)),
      'webhook-signature': signWebhook(webhook),
    };
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<WebhookSendResult>((resolve) => {
      let settled = false;
      const settle = (result: WebhookSendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const req = request(url, { method: 'POST', headers, lookup, agent: false }, (res: IncomingMessage) => {
        const retryAfter = res.headers['retry-after'];
        const answer = (bodyExcerpt: string) =>
          settle({
            kind: 'response',
            statusCode: res.statusCode ?? 0,
            ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
            ...(bodyExcerpt !== '' ? { bodyExcerpt } : {}),
          });
        // The status decides; the first 1 KiB of the body is kept for the delivery log (docs/webhooks.md,
        // "Delivery log"), read for at most EXCERPT_WAIT_MS, and the connection is closed.
        const chunks: Buffer[] = [];
        let bytes = 0;
        const done = () => {
          clearTimeout(excerptTimer);
          answer(excerptOf(Buffer.concat(chunks)));
          res.destroy();
        };
        const excerptTimer = setTimeout(done, EXCERPT_WAIT_MS);
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          bytes += chunk.length;
          if (bytes >= RESPONSE_EXCERPT_BYTES) done();
        });
        res.on('end', done);
        res.on('error', done);
      });
      const timer = setTimeout(() => {
        settle({ kind: 'error', message: `no answer within ${this.timeoutMs / 1000} s` });
        req.destroy();
      }, this.timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error instanceof ForbiddenAddressError) settle({ kind: 'refused', message: error.message });
        else {
          const withCode = error.code && !error.message.includes(error.code);
          settle({ kind: 'error', message: withCode ? `${error.code}: ${error.message}` : error.message });
        }
      });
      req.end(body);
    });
  }
}
