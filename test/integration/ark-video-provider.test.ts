/**
 * Drives the real ArkVideoProvider over HTTP against the upstream simulator (and a few hostile
 * servers), so the request mapping, reply validation, error classes and cancel outcomes are checked end
 * to end. Ark's documented error bodies, code by code: ark-video-provider-errors.test.ts.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArkVideoProvider } from '../../functions/providers/ark/video-provider.js';
import type { ProviderJobStatus } from '../../functions/core/ports/video-provider.js';
import {
  UpstreamAccountError,
  UpstreamBusyError,
  UpstreamJobNotFoundError,
  UpstreamOutcomeUnknownError,
  UpstreamRejectedError,
  UpstreamTransientError,
} from '../../functions/core/upstream-errors.js';
import { startUpstreamSimulator } from '../../lib/dev/simulators/ark/simulator.js';
import type { UpstreamSimulator } from '../../lib/dev/simulators/ark/simulator.js';

const API_KEY = 'test-key';
import { jobRequest } from '../support/job-requests.js';
import { mediaUrl } from '../support/media-server.js';

/** Real files: the simulator downloads every reference, as Ark does. */
const [IMAGE, VIDEO, AUDIO] = await Promise.all([mediaUrl('png'), mediaUrl('mp4'), mediaUrl('mp3')]);

const FIXTURE = new URL('../../lib/dev/fixtures/sample.mp4', import.meta.url);

/** Polls every 50 ms until `done` holds or a generous minute passes; never a fixed sleep. */
async function pollUntil(
  provider: ArkVideoProvider,
  jobId: string,
  done: (status: ProviderJobStatus) => boolean,
): Promise<ProviderJobStatus> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await provider.getJob(jobId, 'default');
    if (done(status) || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const isFinal = (status: ProviderJobStatus): boolean => status.state !== 'queued' && status.state !== 'running';

/** A bare node:http server for failure modes the simulator does not model. */
async function startRawServer(handler: RequestListener): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, baseUrl: `http://127.0.0.1:${port}` };
}

async function stopRawServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('ArkVideoProvider against the upstream simulator', () => {
  let sim: UpstreamSimulator;
  let provider: ArkVideoProvider;

  beforeAll(async () => {
    sim = await startUpstreamSimulator({ queuedMs: 100, runningMs: 200, apiKey: API_KEY });
    provider = new ArkVideoProvider({ platform: 'byteplus', baseUrl: sim.baseUrl, apiKey: API_KEY });
  });
  afterAll(() => sim.close());

  it('creates a job, sees it succeed, and the video URL serves the fixture', async () => {
    const { jobId } = await provider.createJob(jobRequest());
    expect(jobId).toMatch(/^cgt-\d{14}-[a-z0-9]{5}$/);

    const status = await pollUntil(provider, jobId, isFinal);
    expect(status.state).toBe('succeeded');
    if (status.state !== 'succeeded') return;

    const response = await fetch(status.videoUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.equals(await readFile(FIXTURE))).toBe(true);
  });

  it('sends the Ark body: text first, reference roles, top-level options, no watermark', async () => {
    const request = jobRequest({
      imageUrls: [IMAGE],
      videoUrls: [VIDEO],
      audioUrls: [AUDIO],
      generateAudio: true,
      resolution: '1080p',
      ratio: '9:16',
      durationSeconds: 8,
    });
    const { jobId } = await provider.createJob(request);
    const sent = sim.jobs().find((job) => job.id === jobId)?.request;
    expect(sent).toEqual({
      model: 'dreamina-seedance-2-0-260128',
      content: [
        { type: 'text', text: request.prompt },
        { type: 'image_url', image_url: { url: IMAGE }, role: 'reference_image' },
        { type: 'video_url', video_url: { url: VIDEO }, role: 'reference_video' },
        { type: 'audio_url', audio_url: { url: AUDIO }, role: 'reference_audio' },
      ],
      resolution: '1080p',
      ratio: '9:16',
      duration: 8,
      generate_audio: true,
      watermark: false,
      execution_expires_after: 7200,
    });
    await provider.createJob(jobRequest({ seed: 42, prompt: 'seeded' }));
    expect(sim.jobs().find((job) => job.prompt === 'seeded')?.request.seed).toBe(42);
  });

  it('reports a failed job with the upstream message', async () => {
    const { jobId } = await provider.createJob(jobRequest({ prompt: 'A storm [simulate:output-moderation]' }));
    const status = await pollUntil(provider, jobId, isFinal);
    expect(status).toMatchObject({
      state: 'failed',
      message: expect.stringMatching(/sensitive/),
      // OutputVideoSensitiveContentDetected: the failure's cause, for the customer's reason.
      cause: { kind: 'moderation', content: 'output', concern: 'sensitive' },
    });
  });

  it('throws UpstreamJobNotFoundError for an unknown id', async () => {
    await expect(provider.getJob('cgt-20250101000000-nope0', 'default')).rejects.toBeInstanceOf(
      UpstreamJobNotFoundError,
    );
  });

  it('a bad api key (401 AuthenticationError) is an account error, for an operator, on every call', async () => {
    const wrongKey = new ArkVideoProvider({ platform: 'byteplus', baseUrl: sim.baseUrl, apiKey: 'wrong' });
    const error: unknown = await wrongKey.createJob(jobRequest()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamAccountError);
    expect((error as Error).message).toMatch(/AuthenticationError: .*API key/);
    await expect(wrongKey.getJob('cgt-1', 'default')).rejects.toBeInstanceOf(UpstreamAccountError);
    await expect(wrongKey.cancelJob('cgt-1', 'default')).rejects.toBeInstanceOf(UpstreamAccountError);
  });

  it('a rate-limited create (429) is UpstreamBusyError: nothing was created, come back later', async () => {
    const prompt = `busy ${Date.now()} [simulate:rate-limit]`;
    await expect(provider.createJob(jobRequest({ prompt }))).rejects.toBeInstanceOf(UpstreamBusyError);
    await expect(provider.createJob(jobRequest({ prompt }))).rejects.toBeInstanceOf(UpstreamBusyError);
    const { jobId } = await provider.createJob(jobRequest({ prompt }));
    expect(
      sim
        .jobs()
        .filter((job) => job.prompt === prompt)
        .map((job) => job.id),
    ).toEqual([jobId]);
  });

  it('throws UpstreamRejectedError when the body is invalid (no text item)', async () => {
    const error: unknown = await provider
      .createJob(jobRequest({ prompt: undefined as unknown as string }))
      .catch((e) => e);
    expect(error).toBeInstanceOf(UpstreamRejectedError);
  });

  it('treats 503 polls as transient with Retry-After, then recovers', async () => {
    const { jobId } = await provider.createJob(jobRequest({ prompt: 'flaky [simulate:upstream-5xx]' }));
    const error: unknown = await provider.getJob(jobId, 'default').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamTransientError);
    expect((error as UpstreamTransientError).retryAfterSeconds).toBe(1);
    await expect(provider.getJob(jobId, 'default')).rejects.toBeInstanceOf(UpstreamTransientError);
    expect((await pollUntil(provider, jobId, isFinal)).state).toBe('succeeded');
  });

  it('a job started or finished is not cancelled, and its record is kept (Ark deletes finished ones)', async () => {
    const { jobId } = await provider.createJob(jobRequest({ prompt: 'long take [simulate:hang]' }));
    expect((await pollUntil(provider, jobId, (s) => s.state === 'running')).state).toBe('running');
    expect(await provider.cancelJob(jobId, 'default')).toEqual({ outcome: 'refused', state: 'running' });

    const done = await provider.createJob(jobRequest());
    expect((await pollUntil(provider, done.jobId, isFinal)).state).toBe('succeeded');
    expect(await provider.cancelJob(done.jobId, 'default')).toEqual({ outcome: 'refused', state: 'succeeded' });
    // No DELETE was sent: the video is still there to collect.
    expect((await provider.getJob(done.jobId, 'default')).state).toBe('succeeded');
    expect(sim.jobs().find((job) => job.id === done.jobId)?.deleted).toBe(false);
    expect(await provider.cancelJob('cgt-20250101000000-nope0', 'default')).toEqual({ outcome: 'not-found' });
  });
});

describe('cancelling a queued job', () => {
  let sim: UpstreamSimulator;

  // A long queue so the cancel surely lands while the job is still queued.
  beforeAll(async () => {
    sim = await startUpstreamSimulator({ queuedMs: 5000, runningMs: 200 });
  });
  afterAll(() => sim.close());

  it('ends cancelled (with its time), and a second cancel says so again', async () => {
    const provider = new ArkVideoProvider({ platform: 'byteplus', baseUrl: sim.baseUrl, apiKey: 'any' });
    const { jobId } = await provider.createJob(jobRequest());
    const before = Date.now();
    expect(await provider.cancelJob(jobId, 'default')).toEqual({ outcome: 'cancelled' });
    const status = await provider.getJob(jobId, 'default');
    expect(status.state).toBe('cancelled');
    // Unix seconds upstream: within a second of the cancel.
    const at = status.state === 'cancelled' ? Date.parse(status.cancelledAt ?? '') : NaN;
    expect(Math.abs(at - before)).toBeLessThan(2000);
    expect(sim.jobs().find((job) => job.id === jobId)?.cancelled).toBe(true);
    expect(await provider.cancelJob(jobId, 'default')).toEqual({ outcome: 'cancelled' });
  });
});

describe('ArkVideoProvider against broken servers', () => {
  it('a server that never answers: create is outcome-unknown, get is transient', async () => {
    const { server, baseUrl } = await startRawServer(() => {
      /* accept and never respond */
    });
    try {
      const provider = new ArkVideoProvider({
        platform: 'byteplus',
        baseUrl,
        apiKey: API_KEY,
        requestTimeoutMs: 200,
        createTimeoutMs: 200,
      });
      await expect(provider.createJob(jobRequest())).rejects.toBeInstanceOf(UpstreamOutcomeUnknownError);
      await expect(provider.getJob('cgt-1', 'default')).rejects.toBeInstanceOf(UpstreamTransientError);
      await expect(provider.cancelJob('cgt-1', 'default')).rejects.toBeInstanceOf(UpstreamTransientError);
    } finally {
      await stopRawServer(server);
    }
  });

  it('a malformed 200: create is outcome-unknown, get is transient', async () => {
    const { server, baseUrl } = await startRawServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"done"}');
    });
    try {
      const provider = new ArkVideoProvider({ platform: 'byteplus', baseUrl, apiKey: API_KEY });
      await expect(provider.createJob(jobRequest())).rejects.toBeInstanceOf(UpstreamOutcomeUnknownError);
      await expect(provider.getJob('cgt-1', 'default')).rejects.toBeInstanceOf(UpstreamTransientError);
    } finally {
      await stopRawServer(server);
    }
  });

  it('a 500 on create is transient; a 504 is outcome-unknown', async () => {
    let status = 500;
    const { server, baseUrl } = await startRawServer((_req, res) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'InternalServiceError', message: 'try later', param: '', type: 'x' } }));
    });
    try {
      const provider = new ArkVideoProvider({ platform: 'byteplus', baseUrl, apiKey: API_KEY });
      await expect(provider.createJob(jobRequest())).rejects.toBeInstanceOf(UpstreamTransientError);
      status = 504;
      await expect(provider.createJob(jobRequest())).rejects.toBeInstanceOf(UpstreamOutcomeUnknownError);
    } finally {
      await stopRawServer(server);
    }
  });

  it('a refused connection on create is transient: nothing was sent', async () => {
    const { server, baseUrl } = await startRawServer(() => undefined);
    await stopRawServer(server);
    const provider = new ArkVideoProvider({ platform: 'byteplus', baseUrl, apiKey: API_KEY, requestTimeoutMs: 1000 });
    await expect(provider.createJob(jobRequest())).rejects.toBeInstanceOf(UpstreamTransientError);
  });
});

describe('ArkVideoProvider.findJobs (a lost create, looked for upstream)', () => {
  it("finds the job by model, creation time and the request's seed; another seed or time is not it", async () => {
    let clock = Date.UTC(2026, 10, 21, 10);
    const sim = await startUpstreamSimulator({ queuedMs: 1000, runningMs: 2000, apiKey: API_KEY, now: () => clock });
    try {
      const provider = new ArkVideoProvider({ platform: 'byteplus', baseUrl: sim.baseUrl, apiKey: API_KEY });
      const window = (from: number, to: number) => ({
        createdFrom: new Date(from).toISOString(),
        createdTo: new Date(to).toISOString(),
      });
      const claimedAt = clock;
      const { jobId } = await provider.createJob(jobRequest({ seed: 1234 }));
      await provider.createJob(jobRequest({ seed: 99 }));
      await provider.createJob(jobRequest({ seed: 1234, upstreamModel: 'seedance-1-5-pro' }));
      clock += 60_000;
      const lookup = { request: jobRequest({ seed: 1234 }), ...window(claimedAt - 30_000, claimedAt + 150_000) };
      expect(await provider.findJobs(lookup)).toEqual([jobId]);
      expect(await provider.findJobs({ ...lookup, ...window(claimedAt + 10_000, claimedAt + 150_000) })).toEqual([]);
      expect(await provider.findJobs({ ...lookup, request: jobRequest({ seed: 5 }) })).toEqual([]);
    } finally {
      await sim.close();
    }
  });
});
