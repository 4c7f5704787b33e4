/**
 * ArkVideoProvider against a local HTTP server answering with Ark's documented error bodies, code by code
 * (docs/providers/ark.md, "Errors"; volcengine/ark-cli skills/arkcli-doctor/references/error-codes.md): each refusal
 * becomes the error the workflow acts on, each failed status its cause, and a cancel sends DELETE only to a
 * queued job (Ark deletes a finished job's record, video and all).
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ArkVideoProvider } from '../../functions/providers/ark/video-provider.js';
import {
  ContentModerationError,
  UpstreamAccountError,
  UpstreamBusyError,
  UpstreamConfigurationError,
  UpstreamJobNotFoundError,
  UpstreamOutcomeUnknownError,
  UpstreamRejectedError,
  UpstreamTransientError,
} from '../../functions/core/upstream-errors.js';
import { jobRequest } from '../support/job-requests.js';

interface Reply {
  status: number;
  body?: unknown;
}
type Handler = (method: string) => Reply;

const arkError = (status: number, code: string, message = `${code} happened. Request id: 0217x`): Reply => ({
  status,
  body: { error: { code, message, param: '', type: 'BadRequest' } },
});
const task = (status: string, extra: Record<string, unknown> = {}): Reply => ({
  status: 200,
  body: { id: 'cgt-1', model: 'dreamina-seedance-2-0-260128', status, created_at: 1_790_000_000, ...extra },
});

let server: Server;
let baseUrl: string;
let handler: Handler;
let requests: string[];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.method ?? '');
    req.resume();
    req.on('end', () => {
      const reply = handler(req.method ?? '');
      res.writeHead(reply.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  requests = [];
});

const provider = () => new ArkVideoProvider({ platform: 'byteplus', baseUrl, apiKey: 'key' });
const request = jobRequest({ expiresAfterSeconds: 3600 });
const createError = async (reply: Reply) => {
  handler = () => reply;
  return (await provider()
    .createJob(request)
    .then(() => undefined)
    .catch((error: unknown) => error)) as Error;
};

describe('create refusals', () => {
  it.each([
    ['InputTextSensitiveContentDetected', 'the prompt: its text may contain sensitive content'],
    [
      'InputImageSensitiveContentDetected.PrivacyInformation',
      "the prompt: a reference image shows a real person's face",
    ],
    ['InputVideoSensitiveContentDetected.PolicyViolation', 'the prompt: a reference video may infringe copyright'],
    ['InputAudioSensitiveContentDetected', 'the prompt: a reference audio may contain sensitive content'],
    // The older code, for input text.
    ['SensitiveContentDetected.Violence', 'the prompt: its text may contain sensitive content'],
  ])('400 %s → ContentModerationError naming what to change', async (code, what) => {
    const error = await createError(arkError(400, code, 'The request failed. Request id: 0217x'));
    expect(error).toBeInstanceOf(ContentModerationError);
    expect(error.message).toBe(
      `the upstream's content moderation refused ${what}; change it and submit again ` +
        '(upstream: The request failed. Request id: 0217x)',
    );
  });

  it.each([
    [401, 'AuthenticationError', UpstreamAccountError],
    [403, 'AccountOverdueError', UpstreamAccountError],
    [403, 'OperationDenied.ServiceOverdue', UpstreamAccountError],
    [403, 'OperationDenied.ServiceNotOpen', UpstreamConfigurationError],
    [404, 'InvalidEndpointOrModel.NotFound', UpstreamConfigurationError],
    [404, 'ModelNotOpen', UpstreamConfigurationError],
    [429, 'QuotaExceeded', UpstreamBusyError],
    [429, 'RateLimitExceeded.EndpointRPMExceeded', UpstreamBusyError],
    [429, 'ModelAccountRpmRateLimitExceeded', UpstreamBusyError],
    [429, 'ServerOverloaded', UpstreamBusyError],
    // Busy by its code whatever the status: waiting, never a refund after a few retries.
    [503, 'ServerOverloaded', UpstreamBusyError],
    [500, 'QuotaExceeded', UpstreamBusyError],
    [400, 'InvalidParameter', UpstreamRejectedError],
    [500, 'InternalServiceError', UpstreamTransientError],
    [502, 'BadGateway', UpstreamOutcomeUnknownError],
  ])('%i %s → %o', async (status, code, expected) => {
    const error = await createError(arkError(status, code));
    expect(error).toBeInstanceOf(expected);
    if (expected !== UpstreamOutcomeUnknownError) expect(error.message).toContain(`${code} happened`);
  });

  it('a 429 without a code is busy all the same; a 404 without one (a wrong base URL) is configuration', async () => {
    expect(await createError({ status: 429, body: 'slow down' })).toBeInstanceOf(UpstreamBusyError);
    expect(await createError({ status: 404, body: 'no such path' })).toBeInstanceOf(UpstreamConfigurationError);
  });
});

describe('get', () => {
  const status = async (reply: Reply) => {
    handler = () => reply;
    return provider().getJob('cgt-1', 'default');
  };

  it.each([
    ['OutputVideoSensitiveContentDetected', 'sensitive'],
    ['OutputVideoSensitiveContentDetected.PolicyViolation', 'copyright'],
  ])('a task failed with %s → failed, caused by output moderation', async (code, concern) => {
    const failed = task('failed', { error: { code, message: 'The output video may contain sensitive information.' } });
    expect(await status(failed)).toEqual({
      state: 'failed',
      message: 'The output video may contain sensitive information.',
      cause: { kind: 'moderation', content: 'output', concern },
    });
  });

  it('an expired task → failed, caused by its expiry; any other failure keeps only its message', async () => {
    expect(await status(task('expired'))).toEqual({
      state: 'failed',
      message: 'the job expired upstream before it finished',
      cause: { kind: 'expired' },
    });
    const failed = task('failed', { error: { code: 'InternalServiceError', message: 'boom' } });
    expect(await status(failed)).toEqual({ state: 'failed', message: 'boom' });
  });

  it('a cancelled task tells when (updated_at, unix seconds)', async () => {
    expect(await status(task('cancelled', { updated_at: 1_790_000_100 }))).toEqual({
      state: 'cancelled',
      cancelledAt: new Date(1_790_000_100_000).toISOString(),
    });
    expect(await status(task('cancelled', { updated_at: 'soon' }))).toEqual({ state: 'cancelled' });
  });

  it.each([
    [401, 'AuthenticationError', UpstreamAccountError],
    [403, 'AccountOverdueError', UpstreamAccountError],
    [429, 'QuotaExceeded', UpstreamBusyError],
    [500, 'InternalServiceError', UpstreamTransientError],
    [404, 'NotFound.Id', UpstreamJobNotFoundError],
  ])('%i %s → %o', async (code, name, expected) => {
    await expect(status(arkError(code, name))).rejects.toBeInstanceOf(expected);
  });
});

describe('cancel', () => {
  const cancel = async (replies: Record<string, Reply[]>) => {
    handler = (method) => replies[method]?.shift() ?? { status: 500, body: 'unexpected' };
    return provider().cancelJob('cgt-1', 'default');
  };

  it('a queued job: DELETE, and it is cancelled', async () => {
    expect(await cancel({ GET: [task('queued')], DELETE: [{ status: 200 }] })).toEqual({ outcome: 'cancelled' });
    expect(requests).toEqual(['GET', 'DELETE']);
  });

  it.each([
    ['running', { outcome: 'refused', state: 'running' }],
    ['succeeded', { outcome: 'refused', state: 'succeeded' }],
    ['failed', { outcome: 'refused', state: 'failed' }],
    ['expired', { outcome: 'refused', state: 'failed' }],
    ['cancelled', { outcome: 'cancelled' }],
  ])('a %s job: no DELETE (it would delete a finished record), %j', async (state, outcome) => {
    const content = state === 'succeeded' ? { content: { video_url: 'https://cdn.example.com/v.mp4' } } : {};
    expect(await cancel({ GET: [task(state, content)] })).toEqual(outcome);
    expect(requests).toEqual(['GET']);
  });

  it('an unknown job: not-found', async () => {
    expect(await cancel({ GET: [arkError(404, 'NotFound.Id')] })).toEqual({ outcome: 'not-found' });
  });

  it('a job that starts between our read and our DELETE: refused (undocumented code), read again: running', async () => {
    const refused = arkError(400, 'InvalidParameter', 'A task in status running cannot be cancelled.');
    const outcome = await cancel({ GET: [task('queued'), task('running')], DELETE: [refused] });
    expect(outcome).toEqual({ outcome: 'refused', state: 'running' });
    expect(requests).toEqual(['GET', 'DELETE', 'GET']);
  });

  it('a refused DELETE is explained by the job, whatever its code: 404 or 403 for a job now running is refused', async () => {
    for (const refusal of [arkError(404, 'NotFound.Id'), arkError(403, 'OperationDenied')]) {
      const outcome = await cancel({ GET: [task('queued'), task('running')], DELETE: [refusal] });
      expect(outcome).toEqual({ outcome: 'refused', state: 'running' });
    }
    expect(
      await cancel({ GET: [task('queued'), arkError(404, 'NotFound.Id')], DELETE: [arkError(404, 'NotFound.Id')] }),
    ).toEqual({
      outcome: 'not-found',
    });
  });

  it('a DELETE refused as busy or for our key while the job is still queued: thrown, the outcome unknown', async () => {
    await expect(
      cancel({ GET: [task('queued'), task('queued')], DELETE: [arkError(429, 'ServerOverloaded')] }),
    ).rejects.toBeInstanceOf(UpstreamBusyError);
    await expect(cancel({ GET: [arkError(401, 'AuthenticationError')] })).rejects.toBeInstanceOf(UpstreamAccountError);
  });
});
