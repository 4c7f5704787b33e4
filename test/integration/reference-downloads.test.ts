/**
 * Both simulators download every reference of an accepted job before it runs, as the upstreams do
 * (docs/providers/ark.md and model-studio.md, "References"): unreachable, 404, too large or of the wrong type
 * fails the job with the provider's error naming the reference; a good one lets it proceed. The adapters read
 * that failure as a `reference` cause whose position names the customer's field. Waits poll with a deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderJobStatus, ReferenceProblem, VideoProvider } from '../../functions/core/ports/video-provider.js';
import { ArkVideoProvider } from '../../functions/providers/ark/video-provider.js';
import { ModelStudioVideoProvider } from '../../functions/providers/model-studio/video-provider.js';
import { startUpstreamSimulator } from '../../lib/dev/simulators/ark/simulator.js';
import type { UpstreamSimulator } from '../../lib/dev/simulators/ark/simulator.js';
import { startModelStudioSimulator } from '../../lib/dev/simulators/model-studio/simulator.js';
import type { ModelStudioSimulator } from '../../lib/dev/simulators/model-studio/simulator.js';
import { jobRequest } from '../support/job-requests.js';
import { mediaServer, mediaUrl, unreachableUrl } from '../support/media-server.js';

const KEY = 'test-key';
/** Name, the bad reference's URL, the problem the adapter reads, the provider's words. */
type BadReference = [string, () => Promise<string>, ReferenceProblem, RegExp];
const big = async (bytes: number): Promise<string> => `${await mediaServer()}/big?bytes=${bytes}`;
const MB = 1024 * 1024;

async function finalStatus(provider: VideoProvider, jobId: string): Promise<ProviderJobStatus> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await provider.getJob(jobId, 'default');
    if ((status.state !== 'queued' && status.state !== 'running') || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The raw GET reply, to check the provider's own error shape. */
async function rawTask(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${KEY}` } });
  return (await response.json()) as Record<string, unknown>;
}

describe('the Ark simulator downloads every reference', () => {
  let sim: UpstreamSimulator;
  let provider: ArkVideoProvider;
  beforeAll(async () => {
    sim = await startUpstreamSimulator({ queuedMs: 50, runningMs: 50, apiKey: KEY });
    provider = new ArkVideoProvider({ platform: 'byteplus', baseUrl: sim.baseUrl, apiKey: KEY });
  });
  afterAll(() => sim.close());

  const failed = async (request: Parameters<VideoProvider['createJob']>[0]) => {
    const { jobId } = await provider.createJob(request);
    const status = await finalStatus(provider, jobId);
    const raw = await rawTask(`${sim.baseUrl}/api/v3/contents/generations/tasks/${jobId}`);
    return { status, error: raw.error as { code: string; message: string } | null, rawStatus: raw.status };
  };

  it('a good image, video and audio: the job proceeds to success', async () => {
    const request = jobRequest({
      imageUrls: [await mediaUrl('png'), await mediaUrl('jpeg')],
      videoUrls: [await mediaUrl('mp4')],
      audioUrls: [await mediaUrl('mp3')],
      imageMode: 'reference',
    });
    const { jobId } = await provider.createJob(request);
    expect((await finalStatus(provider, jobId)).state).toBe('succeeded');
  });

  it.each([
    ['unreachable', unreachableUrl, 'unreachable', /could not be downloaded \(ECONNREFUSED\)/],
    ['404', () => mediaUrl('missing'), 'unreachable', /could not be downloaded \(HTTP 404\)/],
    ['over 30 MB', () => big(30 * MB + 1), 'too-large', /too large/],
    ['an HTML page', () => mediaUrl('page'), 'wrong-type', /not of a supported format \(text\/html/],
  ] satisfies BadReference[])(
    'an image that is %s fails the job with InvalidParameter naming it',
    async (_, url, problem, words) => {
      const good = await mediaUrl('png');
      const request = jobRequest({ imageUrls: [good, await url()], imageMode: 'reference' });
      const { status, error, rawStatus } = await failed(request);
      expect(rawStatus).toBe('failed');
      expect(error?.code).toBe('InvalidParameter');
      expect(error?.message).toContain('`content[2].image_url.url`');
      expect(error?.message).toMatch(words);
      // content[0] is the prompt: the second image is the job's reference at position 1.
      expect(status).toMatchObject({
        state: 'failed',
        cause: { kind: 'reference', problem, media: 'image', position: 1 },
      });
    },
  );

  it('a reference video that is an image fails as the wrong type, after the images', async () => {
    const request = jobRequest({
      imageUrls: [await mediaUrl('png')],
      videoUrls: [await mediaUrl('mp4'), await mediaUrl('jpeg')],
      imageMode: 'reference',
    });
    const { status, error } = await failed(request);
    expect(error?.message).toContain('`content[3].video_url.url`');
    expect(status).toMatchObject({ cause: { kind: 'reference', problem: 'wrong-type', media: 'video', position: 2 } });
  });

  it('a file without a Content-Type is judged by its first bytes', async () => {
    // The simulator sniffs what a server sends as octet-stream; the media server's PNG is named by its header,
    // so a local raw server stands in here.
    const { createServer } = await import('node:http');
    const png = await (await fetch(await mediaUrl('png'))).arrayBuffer();
    const server = createServer((_req, res) => res.writeHead(200).end(Buffer.from(png)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const request = jobRequest({ imageUrls: [`http://127.0.0.1:${port}/x`], imageMode: 'reference' });
      const { jobId } = await provider.createJob(request);
      expect((await finalStatus(provider, jobId)).state).toBe('succeeded');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('the Model Studio simulator downloads every media item', () => {
  let sim: ModelStudioSimulator;
  let provider: ModelStudioVideoProvider;
  beforeAll(async () => {
    sim = await startModelStudioSimulator({ queuedMs: 50, runningMs: 50, apiKeys: [KEY] });
    provider = new ModelStudioVideoProvider({ region: 'singapore', baseUrl: sim.baseUrl, apiKey: KEY });
  });
  afterAll(() => sim.close());

  const i2v = (urls: string[]) =>
    jobRequest({
      upstreamModel: 'wan2.7-i2v',
      imageUrls: urls,
      imageMode: urls.length > 1 ? 'first_last_frame' : 'first_frame',
    });

  it('a good first frame: the task proceeds to success', async () => {
    const { jobId } = await provider.createJob(i2v([await mediaUrl('png')]));
    expect((await finalStatus(provider, jobId)).state).toBe('succeeded');
  });

  it.each([
    ['unreachable', unreachableUrl, 'unreachable', /^Failed to download input\.media\[1\]\.url /],
    ['404', () => mediaUrl('missing'), 'unreachable', /^Failed to download input\.media\[1\]\.url .*HTTP 404/],
    ['over 10 MB', () => big(10 * MB + 1), 'too-large', /too large/],
    ['an HTML page', () => mediaUrl('page'), 'wrong-type', /format is not supported/],
  ] satisfies BadReference[])(
    'a last frame that is %s fails the task with InvalidParameter',
    async (_, url, problem, words) => {
      const { jobId } = await provider.createJob(i2v([await mediaUrl('png'), await url()]));
      const status = await finalStatus(provider, jobId);
      const raw = (await rawTask(`${sim.baseUrl}/api/v1/tasks/${jobId}`)).output as Record<string, string>;
      expect(raw.task_status).toBe('FAILED');
      expect(raw.code).toBe('InvalidParameter');
      expect(raw.message).toMatch(words);
      expect(status).toMatchObject({ state: 'failed', cause: { kind: 'reference', problem, position: 1 } });
    },
  );
});
