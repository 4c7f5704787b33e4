/**
 * The simulated Ark over plain HTTP: it must refuse what Ark documents as refused (its own rule table,
 * lib/dev/simulators/ark/*.ts), cap unfinished tasks, expire tasks and video URLs on its clock, report
 * usage, and answer DELETE per state. The clock is injected, so nothing here sleeps. Callbacks go to a
 * local receiver and are waited for by polling (the retries run on real, shortened timers).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startUpstreamSimulator } from '../../lib/dev/simulators/ark/simulator.js';
import type { UpstreamSimulator, UpstreamSimulatorOptions } from '../../lib/dev/simulators/ark/simulator.js';
import { mediaUrl } from '../support/media-server.js';

/** Real files: the simulator downloads every reference of an accepted job, as Ark does. */
const [IMAGE_URL, VIDEO_URL, AUDIO_URL] = await Promise.all([mediaUrl('png'), mediaUrl('mp4'), mediaUrl('mp3')]);

const TASKS = '/api/v3/contents/generations/tasks';
const HOUR = 3_600_000;
const V2 = 'dreamina-seedance-2-0-260128';
const V2_FAST = 'dreamina-seedance-2-0-fast-260128';
const PRO_15 = 'seedance-1-5-pro-251215';
const PRO = 'seedance-1-0-pro-250528';
const PRO_FAST = 'seedance-1-0-pro-fast-251015';
const LITE_T2V = 'seedance-1-0-lite-t2v-250428';
const LITE_I2V = 'seedance-1-0-lite-i2v-250428';

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

let clock = 0;
const started: UpstreamSimulator[] = [];
const receivers: Receiver[] = [];

/** queuedMs 1 s, runningMs 2 s on an injected clock that only moves when a test moves it. */
async function start(options: UpstreamSimulatorOptions = {}): Promise<UpstreamSimulator> {
  clock = Date.UTC(2026, 0, 1);
  const sim = await startUpstreamSimulator({ queuedMs: 1000, runningMs: 2000, now: () => clock, ...options });
  started.push(sim);
  return sim;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.close()));
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function call(
  sim: UpstreamSimulator,
  method: string,
  path: string,
  body?: unknown,
  key = 'key-a',
): Promise<Reply> {
  const response = await fetch(`${sim.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const create = (sim: UpstreamSimulator, body: unknown, key?: string): Promise<Reply> =>
  call(sim, 'POST', TASKS, body, key);
const getTask = (sim: UpstreamSimulator, id: string): Promise<Reply> => call(sim, 'GET', `${TASKS}/${id}`);
const deleteTask = (sim: UpstreamSimulator, id: string): Promise<Reply> => call(sim, 'DELETE', `${TASKS}/${id}`);

const text = (prompt = 'a red fox in the snow') => ({ type: 'text', text: prompt });
const image = (role?: string) => ({ type: 'image_url', image_url: { url: IMAGE_URL }, role });
const video = (role = 'reference_video') => ({
  type: 'video_url',
  video_url: { url: VIDEO_URL },
  role,
});
const audio = () => ({ type: 'audio_url', audio_url: { url: AUDIO_URL }, role: 'reference_audio' });
const times = <T>(n: number, make: () => T): T[] => Array.from({ length: n }, make);

/** A create that must be accepted; returns the task id. */
async function created(sim: UpstreamSimulator, body: unknown, key?: string): Promise<string> {
  const reply = await create(sim, body, key);
  expect(reply, JSON.stringify(reply.body)).toMatchObject({ status: 200 });
  return reply.body.id as string;
}

function expectRefused(reply: Reply, status: number, code: string, param: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body.error).toMatchObject({ code, param, message: expect.any(String), type: expect.any(String) });
}

describe('model ids per platform', () => {
  const byteplus = [LITE_T2V, LITE_I2V, PRO, PRO_FAST, PRO_15, V2, V2_FAST];
  const volcengine = byteplus.map((id) => `doubao-${id.replace(/^dreamina-/, '')}`);
  const firstFrameOnly = new Set([LITE_I2V, 'doubao-seedance-1-0-lite-i2v-250428']);
  const minimal = (model: string) => ({ model, content: firstFrameOnly.has(model) ? [text(), image()] : [text()] });

  it('byteplus (the default) knows its own ids and answers 404 InvalidEndpointOrModel.NotFound to the others', async () => {
    const sim = await start();
    for (const model of byteplus) await created(sim, minimal(model));
    for (const model of [...volcengine, 'seedance-2-0-ultra', 'dreamina-seedance-2-0-260129']) {
      expectRefused(await create(sim, minimal(model)), 404, 'InvalidEndpointOrModel.NotFound', 'model');
    }
  });

  it('volcengine knows the doubao- ids and refuses the BytePlus ones', async () => {
    const sim = await start({ platform: 'volcengine' });
    for (const model of volcengine) await created(sim, minimal(model));
    for (const model of byteplus) {
      expectRefused(await create(sim, minimal(model)), 404, 'InvalidEndpointOrModel.NotFound', 'model');
    }
  });

  it('a body without model or content is MissingParameter', async () => {
    const sim = await start();
    expectRefused(await create(sim, { content: [text()] }), 400, 'MissingParameter', 'model');
    expectRefused(await create(sim, { model: V2 }), 400, 'MissingParameter', 'content');
    expectRefused(await create(sim, { model: V2, content: [] }), 400, 'MissingParameter', 'content');
  });
});

describe('content items, roles and modes', () => {
  it.each([
    ['1.5 pro takes no reference images', PRO_15, [text(), image('reference_image')], 'content'],
    ['frames and references cannot be mixed', V2, [text(), image('first_frame'), video()], 'content'],
    ['a text-to-video model takes no image', LITE_T2V, [text(), image()], 'content'],
    ['an image-to-video model needs an image', LITE_I2V, [text()], 'content'],
    [
      '1.0 lite i2v takes at most 4 reference images',
      LITE_I2V,
      [text(), ...times(5, () => image('reference_image'))],
      'content',
    ],
    ['1.0 lite i2v takes no reference video', LITE_I2V, [text(), image('reference_image'), video()], 'content'],
    ['1.0 pro fast has no first+last mode', PRO_FAST, [text(), image('first_frame'), image('last_frame')], 'content'],
    ['2.0 takes at most 9 images', V2, [text(), ...times(10, () => image('reference_image'))], 'content'],
    ['2.0 takes at most 3 videos', V2, [text(), ...times(4, () => video())], 'content'],
    ['2.0 takes at most 3 audios', V2, [text(), image('reference_image'), ...times(4, audio)], 'content'],
    [
      '2.0 takes at most 12 items',
      V2,
      [text(), ...times(9, () => image('reference_image')), ...times(3, video), audio()],
      'content',
    ],
    ['audio needs an image or a video', V2, [text(), audio()], 'content'],
    ['one first frame at most', V2, [text(), image('first_frame'), image()], 'content'],
    ['a last frame needs a first frame', V2, [text(), image('last_frame')], 'content'],
    ['one text item only', V2, [text(), text()], 'content'],
    ['an image cannot be a reference video', V2, [text(), image('reference_video')], 'content[1].role'],
    ['a video cannot be a first frame', V2, [text(), video('first_frame')], 'content[1].role'],
    [
      'unknown content types are refused',
      V2,
      [text(), { type: 'draft_task', draft_task: { id: 'x' } }],
      'content[1].type',
    ],
    ['prototype names are not content types', V2, [text(), { type: 'constructor' }], 'content[1].type'],
    ['media needs a URL', V2, [text(), { type: 'image_url', image_url: {} }], 'content[1].image_url.url'],
  ])('%s', async (_name, model, content, param) => {
    const sim = await start();
    const reply = await create(sim, { model, content });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ param, code: expect.stringMatching(/^(Invalid|Missing)Parameter$/) });
  });

  it('a video without a role is MissingParameter (unconfirmed rule, safe side)', async () => {
    const sim = await start();
    expectRefused(
      await create(sim, {
        model: V2,
        content: [text(), { type: 'video_url', video_url: { url: VIDEO_URL } }],
      }),
      400,
      'MissingParameter',
      'content[1].role',
    );
  });

  it.each([
    ['1.0 lite i2v: first frame (role optional)', LITE_I2V, [text(), image()]],
    ['1.0 lite i2v: first + last', LITE_I2V, [text(), image('first_frame'), image('last_frame')]],
    ['1.0 lite i2v: 4 reference images', LITE_I2V, [text(), ...times(4, () => image('reference_image'))]],
    ['1.0 pro: first + last', PRO, [text(), image('first_frame'), image('last_frame')]],
    ['1.5 pro: first frame without text', PRO_15, [image('first_frame')]],
    ['2.0: 9 images + 3 videos', V2, [text(), ...times(9, () => image('reference_image')), ...times(3, video)]],
    ['2.0: audio beside a video', V2, [text(), video(), ...times(3, audio)]],
    ['2.0 fast: first + last', V2_FAST, [text(), image('first_frame'), image('last_frame')]],
  ])('accepts %s', async (_name, model, content) => {
    await created(await start(), { model, content });
  });
});

describe('top-level options', () => {
  const t2v = (model: string, options: Record<string, unknown>) => ({ model, content: [text()], ...options });

  it.each([
    ['duration below 1.0 range', t2v(PRO, { duration: 1 }), 'duration'],
    ['duration below 1.5 pro range', t2v(PRO_15, { duration: 3 }), 'duration'],
    ['duration above 1.5 pro range', t2v(PRO_15, { duration: 13 }), 'duration'],
    ['duration above 2.0 range', t2v(V2, { duration: 16 }), 'duration'],
    ['duration -1 (unconfirmed)', t2v(V2, { duration: -1 }), 'duration'],
    ['fractional duration', t2v(V2, { duration: 5.5 }), 'duration'],
    ['1080p on 2.0 fast', t2v(V2_FAST, { resolution: '1080p' }), 'resolution'],
    ['4k on 2.0 (unconfirmed)', t2v(V2, { resolution: '4k' }), 'resolution'],
    [
      '1080p with lite references',
      { model: LITE_I2V, content: [text(), image('reference_image')], resolution: '1080p' },
      'resolution',
    ],
    ['an undocumented ratio', t2v(V2, { ratio: '2:1' }), 'ratio'],
    ['adaptive on a 1.0 text-to-video task', t2v(LITE_T2V, { ratio: 'adaptive' }), 'ratio'],
    ['generate_audio on a silent model', t2v(PRO, { generate_audio: false }), 'generate_audio'],
    ['generate_audio not boolean', t2v(PRO_15, { generate_audio: 'yes' }), 'generate_audio'],
    ['seed below -1', t2v(V2, { seed: -2 }), 'seed'],
    ['seed above 2^32-1', t2v(V2, { seed: 2 ** 32 }), 'seed'],
    ['execution_expires_after below 3600', t2v(V2, { execution_expires_after: 3599 }), 'execution_expires_after'],
    ['execution_expires_after above 259200', t2v(V2, { execution_expires_after: 259_201 }), 'execution_expires_after'],
    ['flex on 2.0', t2v(V2, { service_tier: 'flex' }), 'service_tier'],
    ['an unknown tier', t2v(PRO_15, { service_tier: 'fast' }), 'service_tier'],
    ['watermark not boolean', t2v(V2, { watermark: 'false' }), 'watermark'],
    ['camera_fixed not boolean', t2v(V2, { camera_fixed: 1 }), 'camera_fixed'],
    ['return_last_frame not boolean', t2v(V2, { return_last_frame: null }), 'return_last_frame'],
    ['priority off 2.0', t2v(PRO_15, { priority: 1 }), 'priority'],
    ['priority above 9', t2v(V2, { priority: 10 }), 'priority'],
    ['an unknown field (unconfirmed)', t2v(V2, { fps: 24 }), 'fps'],
    ['frames (unconfirmed)', t2v(PRO, { frames: 121 }), 'frames'],
    ['a callback that is not a URL', t2v(V2, { callback_url: 'not a url' }), 'callback_url'],
  ])('refuses %s', async (_name, body, param) => {
    expectRefused(await create(await start(), body), 400, 'InvalidParameter', param);
  });

  it.each([
    [
      'the edges of the ranges',
      t2v(V2, { duration: 4, seed: 2 ** 32 - 1, execution_expires_after: 3600, priority: 9 }),
    ],
    ['1.0 lite at 12 s, 1080p, 21:9', t2v(LITE_T2V, { duration: 12, resolution: '1080p', ratio: '21:9' })],
    ['adaptive on 1.5 pro text-to-video', t2v(PRO_15, { ratio: 'adaptive', generate_audio: false, draft: true })],
    ['adaptive with a 1.0 first frame', { model: PRO, content: [text(), image()], ratio: 'adaptive', duration: 2 }],
    ['flex where it exists', t2v(PRO_15, { service_tier: 'flex', execution_expires_after: 259_200, seed: -1 })],
    ['every boolean flag', t2v(V2, { watermark: false, camera_fixed: true, return_last_frame: true })],
    // Port 9 (discard) refuses at once: the queued callback fails without leaving the machine.
    ['callback and safety id', t2v(V2, { callback_url: 'http://127.0.0.1:9/hook', safety_identifier: 'u1' })],
  ])('accepts %s', async (_name, body) => {
    await created(await start(), body);
  });
});

describe('queued-task cap', () => {
  it('the 121st queued task of one master account gets 429 QuotaExceeded; running, finished and other accounts do not count', async () => {
    const sim = await start({ queuedMs: HOUR });
    const body = { model: V2, content: [text()] };
    for (let i = 0; i < 119; i += 1) await created(sim, body, 'key-a');
    clock += HOUR; // the first 119 are running now: they no longer count
    for (let i = 0; i < 120; i += 1) await created(sim, body, 'key-a');
    const refused = await create(sim, body, 'key-a');
    expectRefused(refused, 429, 'QuotaExceeded', '');
    expect(refused.body.error).toMatchObject({ type: 'TooManyRequests' });
    await created(sim, body, 'key-b');

    clock += HOUR; // the next 120 run too
    await created(sim, body, 'key-a');
  });
});

describe('expiry on the injected clock', () => {
  it('a task not finished within execution_expires_after reports expired', async () => {
    const sim = await start();
    const id = await created(sim, { model: V2, content: [text('[simulate:hang]')], execution_expires_after: 3600 });
    const createdAt = clock;
    clock += 3600 * 1000 - 1;
    expect((await getTask(sim, id)).body.status).toBe('running');
    clock += 1;
    const task = (await getTask(sim, id)).body;
    expect(task).toMatchObject({ status: 'expired', updated_at: createdAt / 1000 + 3600 });
    expect(task.content).toBeUndefined();
  });

  it('the default execution_expires_after is 172800 s', async () => {
    const sim = await start();
    const id = await created(sim, { model: PRO, content: [text('[simulate:hang]')] });
    expect((await getTask(sim, id)).body.execution_expires_after).toBe(172_800);
    clock += 172_800 * 1000 - 1;
    expect((await getTask(sim, id)).body.status).toBe('running');
    clock += 1;
    expect((await getTask(sim, id)).body.status).toBe('expired');
    expect(sim.jobs()[0]?.status).toBe('expired');
  });

  it('[simulate:expire] ends expired when it would have finished', async () => {
    const sim = await start();
    const id = await created(sim, { model: V2, content: [text('slow queue [simulate:expire]')] });
    clock += 2999;
    expect((await getTask(sim, id)).body.status).toBe('running');
    clock += 1;
    expect((await getTask(sim, id)).body.status).toBe('expired');
  });
});

describe('[simulate:held]', () => {
  it('runs until released, then the usual running time; a release names part of the prompt', async () => {
    const sim = await start();
    const held = await created(sim, { model: V2, content: [text('wave one [simulate:held]')] });
    const other = await created(sim, { model: V2, content: [text('wave two [simulate:held]')] });
    clock += HOUR;
    expect((await getTask(sim, held)).body.status).toBe('running');
    expect((await call(sim, 'POST', '/simulator/release')).status).toBe(400);
    expect((await call(sim, 'POST', '/simulator/release?prompt=wave%20one')).body).toEqual({ released: 1 });
    clock += 1999;
    expect((await getTask(sim, held)).body.status).toBe('running');
    clock += 1;
    expect((await getTask(sim, held)).body.status).toBe('succeeded');
    expect((await getTask(sim, other)).body.status).toBe('running');
    // Released once: a second release finds nothing more.
    expect((await call(sim, 'POST', '/simulator/release?prompt=wave%20one')).body).toEqual({ released: 0 });
  });

  it('[simulate:held-download] sends half the file, and the rest once released; later reads get all', async () => {
    const sim = await start();
    const id = await created(sim, { model: V2, content: [text('copy one [simulate:held-download]')] });
    clock += 3000;
    expect((await getTask(sim, id)).body.status).toBe('succeeded');
    const response = await fetch(`${sim.baseUrl}/files/${id}.mp4`);
    const length = Number(response.headers.get('content-length'));
    const reader = response.body!.getReader();
    let received = 0;
    while (received < length / 2) received += (await reader.read()).value?.byteLength ?? 0;
    expect(received).toBeLessThan(length);
    expect((await call(sim, 'POST', '/simulator/release?prompt=copy%20one')).body).toEqual({ released: 1 });
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) received += chunk.value.byteLength;
    expect(received).toBe(length);
    expect((await (await fetch(`${sim.baseUrl}/files/${id}.mp4`)).arrayBuffer()).byteLength).toBe(length);
  });
});

describe('the video URL', () => {
  it('answers GET only, and 403 once 24 h have passed since the task succeeded', async () => {
    const sim = await start();
    const id = await created(sim, { model: V2, content: [text()] });
    expect((await fetch(`${sim.baseUrl}/files/${id}.mp4`)).status).toBe(404); // not produced yet
    clock += 3000;
    const task = (await getTask(sim, id)).body;
    const url = (task.content as { video_url: string }).video_url;
    expect(url).toBe(`${sim.baseUrl}/files/${id}.mp4`);

    expect((await fetch(url, { method: 'HEAD' })).status).toBe(403);
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('video/mp4');
    expect((await ok.arrayBuffer()).byteLength).toBeGreaterThan(0);

    clock += 24 * HOUR - 1;
    expect((await fetch(url)).status).toBe(200);
    clock += 1;
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toMatch(/<Code>AccessDenied<\/Code>/);
  });
});

describe('usage and the echoed options', () => {
  it.each([
    // width × height × 24 fps × seconds / 1024, pixel sizes from the documented resolution table
    ['2.0 720p 16:9 5 s', { model: V2, content: [text()], resolution: '720p', ratio: '16:9', duration: 5 }, 108_000],
    ['1.0 pro default 1080p 16:9', { model: PRO, content: [text()], ratio: '16:9', duration: 5 }, 244_800],
    [
      '1.5 pro 480p 9:16 4 s',
      { model: PRO_15, content: [text()], resolution: '480p', ratio: '9:16', duration: 4 },
      40_176,
    ],
    ['1.0 lite 720p 21:9 10 s', { model: LITE_T2V, content: [text()], ratio: '21:9', duration: 10 }, 225_600],
  ])('%s', async (_name, body, tokens) => {
    const sim = await start();
    const id = await created(sim, body);
    clock += 3000;
    expect((await getTask(sim, id)).body.usage).toEqual({ completion_tokens: tokens, total_tokens: tokens });
  });

  it('GET reports model, resolution, ratio, duration, fps, seed, tier and expiry; generate_audio only on audio models', async () => {
    const sim = await start();
    const withAudio = await created(sim, { model: PRO_15, content: [text()], seed: 7, service_tier: 'flex' });
    expect((await getTask(sim, withAudio)).body).toMatchObject({
      model: PRO_15,
      status: 'queued',
      resolution: '720p',
      ratio: 'adaptive',
      duration: 5,
      framespersecond: 24,
      generate_audio: true,
      seed: 7,
      service_tier: 'flex',
      execution_expires_after: 172_800,
    });
    const silent = (await getTask(sim, await created(sim, { model: PRO, content: [text()] }))).body;
    expect(silent).toMatchObject({ resolution: '1080p', ratio: '16:9', service_tier: 'default' });
    expect(silent).not.toHaveProperty('generate_audio');
    expect(silent.seed).toEqual(expect.any(Number));
  });
});

describe('DELETE per state', () => {
  it('queued → cancelled; running and cancelled → refused; succeeded, failed and expired → record deleted', async () => {
    const sim = await start();
    const queued = await created(sim, { model: V2, content: [text('q')] });
    expect(await deleteTask(sim, queued)).toEqual({ status: 200, body: {} });
    expect((await getTask(sim, queued)).body.status).toBe('cancelled');
    expectRefused(await deleteTask(sim, queued), 400, 'InvalidParameter', 'id');

    const running = await created(sim, { model: V2, content: [text('[simulate:hang]')] });
    const succeeded = await created(sim, { model: V2, content: [text('ok')] });
    const failed = await created(sim, { model: V2, content: [text('[simulate:fail]')] });
    const expired = await created(sim, { model: V2, content: [text('[simulate:expire]')] });
    clock += 3000;
    expectRefused(await deleteTask(sim, running), 400, 'InvalidParameter', 'id');
    for (const id of [succeeded, failed, expired]) {
      expect((await deleteTask(sim, id)).status).toBe(200);
      expect((await getTask(sim, id)).status).toBe(404);
    }
    expect((await getTask(sim, running)).body.status).toBe('running');
  });

  it('cancelled tasks disappear after 24 h, every task after 7 days', async () => {
    const sim = await start();
    const cancelled = await created(sim, { model: V2, content: [text('c')] });
    const kept = await created(sim, { model: V2, content: [text('k')] });
    await deleteTask(sim, cancelled);
    clock += 24 * HOUR;
    expect((await getTask(sim, cancelled)).status).toBe(404);
    expect((await getTask(sim, kept)).body.status).toBe('succeeded');
    clock += 6 * 24 * HOUR;
    expect((await getTask(sim, kept)).status).toBe(404);
  });
});

describe('fault markers and persistence', () => {
  it('[simulate:rate-limit]: the first two creates of the prompt get 429, the third is accepted', async () => {
    const sim = await start();
    const body = { model: V2, content: [text('busy [simulate:rate-limit]')] };
    for (let i = 0; i < 2; i += 1) {
      expectRefused(await create(sim, body), 429, 'RateLimitExceeded.EndpointRPMExceeded', '');
    }
    await created(sim, body);
    expect(sim.jobs()).toHaveLength(1);
  });

  it('[simulate:reject] is refused by input moderation and creates nothing', async () => {
    const sim = await start();
    const reply = await create(sim, { model: V2, content: [text('[simulate:reject]')] });
    expectRefused(reply, 400, 'InputTextSensitiveContentDetected', '');
    expect(sim.jobs()).toHaveLength(0);
  });

  it('the api key is still checked, and the state file still outlives a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ark-sim-'));
    try {
      const stateFile = join(dir, 'jobs.json');
      const first = await start({ apiKey: 'key-a', stateFile });
      expectRefused(await create(first, { model: V2, content: [text()] }, 'wrong'), 401, 'AuthenticationError', '');
      const id = await created(first, { model: V2, content: [text()], duration: 8 });
      await first.close();
      started.splice(started.indexOf(first), 1);
      const second = await start({ apiKey: 'key-a', stateFile });
      clock += 3000;
      expect((await getTask(second, id)).body).toMatchObject({ status: 'succeeded', duration: 8 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------- callbacks, keys, /simulator/

interface Received {
  body: Record<string, unknown>;
  contentType: string | undefined;
  /** The connection closed before the receiver answered (the sender gave up or was closed). */
  dropped: boolean;
}

interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A local callback receiver; `answer` gives each request's HTTP status, or 'hang' never to answer. */
async function receiver(answer: (body: Record<string, unknown>) => number | 'hang' = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const entry: Received = { body, contentType: req.headers['content-type'], dropped: false };
      received.push(entry);
      res.on('close', () => {
        if (!res.writableFinished) entry.dropped = true;
      });
      const status = answer(body);
      if (status !== 'hang') res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  const handle = { url: `http://127.0.0.1:${port}/ark-callback`, received, close };
  receivers.push(handle);
  return handle;
}

/** Polls `probe` until it gives something other than undefined; a generous deadline, no fixed sleeps. */
async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface JobTimings {
  id: string;
  status: string;
  history: { status: string; at: string }[];
  callbacks: { status: string; at: string; attempt: number; acknowledged: boolean }[];
  callbackPending: boolean;
}

const timingsOf = async (sim: UpstreamSimulator, id: string): Promise<JobTimings> =>
  (await call(sim, 'GET', `/simulator/jobs/${id}`)).body as unknown as JobTimings;

/** The job's timings once every callback it has reached so far has been sent (retries included). */
const settled = (sim: UpstreamSimulator, id: string): Promise<JobTimings> =>
  until(`the callbacks of ${id}`, async () => {
    const timings = await timingsOf(sim, id);
    return timings.callbackPending ? undefined : timings;
  });

const attempts = (timings: JobTimings) =>
  timings.callbacks.map(({ status, attempt, acknowledged }) => ({ status, attempt, acknowledged }));
const iso = (ms: number) => new Date(ms).toISOString();
const withHook = (url: string, prompt?: string) => ({ model: V2, content: [text(prompt)], callback_url: url });

describe('callback_url', () => {
  it('calls back on each status change, in order, with the body GET answers then', async () => {
    const hook = await receiver();
    const sim = await start();
    const id = await created(sim, withHook(hook.url));
    const seen = [(await getTask(sim, id)).body];
    clock += 1000;
    seen.push((await getTask(sim, id)).body);
    clock += 2000;
    seen.push((await getTask(sim, id)).body);
    const timings = await settled(sim, id);

    expect(seen.map((task) => task.status)).toEqual(['queued', 'running', 'succeeded']);
    expect(hook.received.map((call) => call.body)).toEqual(seen);
    expect(hook.received.map((call) => call.contentType)).toEqual(times(3, () => 'application/json'));
    expect(attempts(timings)).toEqual(
      ['queued', 'running', 'succeeded'].map((status) => ({ status, attempt: 1, acknowledged: true })),
    );
  });

  it('on the real clock, timers call back without anyone polling; a cancel calls back too', async () => {
    const hook = await receiver();
    const sim = await start({ now: Date.now, queuedMs: 50, runningMs: 100 });
    const done = await created(sim, withHook(hook.url));
    const cancelled = await created(sim, withHook(hook.url, 'wait [simulate:queued]'));
    expect((await deleteTask(sim, cancelled)).status).toBe(200);
    const statuses = (id: string) =>
      hook.received.filter((call) => call.body.id === id).map((call) => call.body.status);
    await until('the final callbacks', () =>
      statuses(done).length >= 3 && statuses(cancelled).length >= 2 ? true : undefined,
    );

    expect(statuses(done)).toEqual(['queued', 'running', 'succeeded']);
    expect(statuses(cancelled)).toEqual(['queued', 'cancelled']);
    const final = hook.received.find((call) => call.body.id === done && call.body.status === 'succeeded');
    expect(final?.body).toEqual((await getTask(sim, done)).body);
    expect(final?.body.content).toEqual({ video_url: `${sim.baseUrl}/files/${done}.mp4` });
  });

  it('retries an unacknowledged final callback until a 2xx; non-final ones are sent once', async () => {
    let finalCalls = 0;
    const hook = await receiver((body) => {
      if (body.status === 'queued') return 503;
      if (body.status !== 'succeeded') return 200;
      finalCalls += 1;
      return finalCalls === 1 ? 500 : 204;
    });
    const sim = await start({ callbackTimeoutMs: 2000, callbackRetryDelayMs: 10 });
    const id = await created(sim, withHook(hook.url));
    clock += 3000;
    await getTask(sim, id);
    const timings = await settled(sim, id);

    expect(attempts(timings)).toEqual([
      { status: 'queued', attempt: 1, acknowledged: false },
      { status: 'running', attempt: 1, acknowledged: true },
      { status: 'succeeded', attempt: 1, acknowledged: false },
      { status: 'succeeded', attempt: 2, acknowledged: true },
    ]);
    expect(hook.received.map((call) => call.body.status)).toEqual(['queued', 'running', 'succeeded', 'succeeded']);
  });

  it('a receiver that never answers gets the final callback 1 + 3 times, each given up after the timeout', async () => {
    const hook = await receiver(() => 'hang');
    const sim = await start({ callbackTimeoutMs: 100, callbackRetryDelayMs: 10 });
    const id = await created(sim, withHook(hook.url, 'doomed [simulate:fail]'));
    clock += 3000;
    expect((await getTask(sim, id)).body.status).toBe('failed');
    const timings = await settled(sim, id);

    expect(attempts(timings)).toEqual([
      { status: 'queued', attempt: 1, acknowledged: false },
      { status: 'running', attempt: 1, acknowledged: false },
      ...[1, 2, 3, 4].map((attempt) => ({ status: 'failed', attempt, acknowledged: false })),
    ]);
    const statuses = hook.received.map((call) => call.body.status);
    expect(statuses).toEqual(['queued', 'running', 'failed', 'failed', 'failed', 'failed']);
    await until('the receiver to see every attempt dropped', () =>
      hook.received.every((call) => call.dropped) ? true : undefined,
    );
  });

  it('[simulate:no-callback] never calls back; a job beside it does', async () => {
    const hook = await receiver();
    const sim = await start();
    const silent = await created(sim, withHook(hook.url, 'quiet [simulate:no-callback]'));
    const loud = await created(sim, withHook(hook.url, 'loud'));
    clock += 3000;
    for (const id of [silent, loud]) expect((await getTask(sim, id)).body.status).toBe('succeeded');
    await settled(sim, loud);

    expect(hook.received.map((call) => call.body.id)).toEqual([loud, loud, loud]);
    const timings = await timingsOf(sim, silent);
    expect(timings).toMatchObject({ status: 'succeeded', callbacks: [], callbackPending: false });
    expect(timings.history).toHaveLength(3);
  });

  it.each([
    ['not a URL', 'not a url'],
    ['another scheme', 'ftp://example.com/hook'],
    ['a relative path', '/ark/callback'],
    ['no slashes', 'http:example.com/hook'],
    ['no host', 'http:///hook'],
    ['a space', 'https://example.com/a hook'],
    ['empty', ''],
    ['a number', 42],
    ['null', null],
  ])('refuses a callback_url that is %s with 400 InvalidParameter', async (_name, callbackUrl) => {
    const sim = await start();
    const reply = await create(sim, { model: V2, content: [text()], callback_url: callbackUrl });
    expectRefused(reply, 400, 'InvalidParameter', 'callback_url');
    expect(sim.jobs()).toHaveLength(0);
  });

  it('close() abandons pending callbacks: the in-flight one is dropped, nothing follows', async () => {
    const hook = await receiver(() => 'hang');
    const sim = await start({ callbackTimeoutMs: 120_000 });
    await created(sim, withHook(hook.url));
    await until('the queued callback', () => hook.received[0]);
    clock += 3000;
    await sim.close();
    started.splice(started.indexOf(sim), 1);
    await until('the callback to be dropped', () => (hook.received[0]?.dropped ? true : undefined));
    expect(hook.received).toHaveLength(1);
  });
});

describe('several API keys and master accounts', () => {
  it('caps queued tasks per master account (QuotaExceeded); running ones do not count; jobs visible to any key', async () => {
    const sim = await start({ apiKey: 'key-a', apiKeys: ['key-b'], maxQueuedPerAccount: 2 });
    const body = { model: V2, content: [text()] };
    const first = await created(sim, body, 'key-a');
    await created(sim, body, 'key-a');
    const refused = await create(sim, body, 'key-a');
    expectRefused(refused, 429, 'QuotaExceeded', '');
    expect((refused.body.error as { message: string }).message).toMatch(/limit of 2 queued tasks/);
    // Another master account (each key its own by default) has its own queue.
    await created(sim, body, 'key-b');
    expectRefused(await create(sim, body, 'key-c'), 401, 'AuthenticationError', '');

    // Once key-a's jobs run, they no longer count: two more may queue.
    clock += 1000;
    expect((await call(sim, 'GET', `${TASKS}/${first}`, undefined, 'key-b')).body.status).toBe('running');
    await created(sim, body, 'key-a');
    await created(sim, body, 'key-a');
    expectRefused(await create(sim, body, 'key-a'), 429, 'QuotaExceeded', '');

    const stats = async () => (await call(sim, 'GET', '/simulator/stats')).body;
    expect(await stats()).toMatchObject({
      maxQueuedPerAccount: 2,
      keys: [
        { key: '…ey-a', unfinished: 4, peakUnfinished: 4 },
        { key: '…ey-b', unfinished: 1, peakUnfinished: 1 },
      ],
    });
    clock += HOUR + 2000;
    expect(await stats()).toMatchObject({ keys: [{ unfinished: 0, peakUnfinished: 4 }, { unfinished: 0 }] });
  });

  it('keys of one master account share its queue', async () => {
    const sim = await start({
      apiKeys: ['key-a', 'key-b'],
      masterAccounts: { 'key-a': 'main', 'key-b': 'main' },
      maxQueuedPerAccount: 2,
    });
    const body = { model: V2, content: [text()] };
    await created(sim, body, 'key-a');
    await created(sim, body, 'key-b');
    expectRefused(await create(sim, body, 'key-b'), 429, 'QuotaExceeded', '');
    expectRefused(await create(sim, body, 'key-a'), 429, 'QuotaExceeded', '');
  });

  it('an optional limit on queued + running (Ark publishes none): InflightBatchsizeExceeded', async () => {
    const sim = await start({ maxInflightPerAccount: 1 });
    const body = { model: V2, content: [text()] };
    await created(sim, body);
    clock += 1000; // running now: not queued, still in flight
    expectRefused(await create(sim, body), 429, 'InflightBatchsizeExceeded', '');
    clock += 2000; // ended
    await created(sim, body);
  });

  it('refuses every create for a window set by POST /simulator/refuse, and counts them', async () => {
    const sim = await start();
    const body = { model: V2, content: [text()] };
    expect((await call(sim, 'POST', '/simulator/refuse?seconds=600&code=ServerOverloaded')).status).toBe(200);
    expectRefused(await create(sim, body), 429, 'ServerOverloaded', '');
    clock += 599_000;
    expectRefused(await create(sim, body), 429, 'ServerOverloaded', '');
    clock += 1000;
    await created(sim, body);
    expect((await call(sim, 'GET', '/simulator/stats')).body).toMatchObject({ creates: 3, refusedCreates: 2 });
    expect((await call(sim, 'POST', '/simulator/refuse?seconds=-1')).status).toBe(400);
  });

  it('[simulate:held-queued] stays queued until released', async () => {
    const sim = await start();
    const id = await created(sim, { model: V2, content: [text('a fox [simulate:held-queued]')] });
    clock += HOUR / 2;
    expect((await call(sim, 'GET', `${TASKS}/${id}`)).body.status).toBe('queued');
    expect((await call(sim, 'POST', '/simulator/release?prompt=fox')).body).toEqual({ released: 1 });
    clock += 1;
    expect((await call(sim, 'GET', `${TASKS}/${id}`)).body.status).toBe('running');
  });

  it('refuses an empty key list and limits below 1', async () => {
    await expect(startUpstreamSimulator({ apiKeys: [] })).rejects.toThrow(/apiKeys/);
    await expect(startUpstreamSimulator({ maxQueuedPerAccount: 0 })).rejects.toThrow(/maxQueuedPerAccount/);
    await expect(startUpstreamSimulator({ maxInflightPerAccount: 0 })).rejects.toThrow(/maxInflightPerAccount/);
  });
});

describe('/simulator/jobs/{id} (not part of Ark)', () => {
  it('gives the status history in milliseconds, without anyone polling Ark', async () => {
    const sim = await start();
    const createdAt = clock;
    const id = await created(sim, { model: V2, content: [text()] });
    clock += 1500;
    expect(await timingsOf(sim, id)).toEqual({
      id,
      status: 'running',
      history: [
        { status: 'queued', at: iso(createdAt) },
        { status: 'running', at: iso(createdAt + 1000) },
      ],
      callbacks: [],
      callbackPending: false,
    });
    clock += 10_000;
    expect((await timingsOf(sim, id)).history.at(-1)).toEqual({ status: 'succeeded', at: iso(createdAt + 3000) });

    const cancelled = await created(sim, { model: V2, content: [text('c')] });
    clock += 7;
    await deleteTask(sim, cancelled);
    expect((await timingsOf(sim, cancelled)).history).toEqual([
      { status: 'queued', at: iso(clock - 7) },
      { status: 'cancelled', at: iso(clock) },
    ]);

    expect((await call(sim, 'GET', '/simulator/jobs/cgt-nope')).status).toBe(404);
    expect((await call(sim, 'POST', '/simulator/stats', {})).status).toBe(405);
  });
});

describe('the task list (GET …/tasks)', () => {
  const list = (sim: UpstreamSimulator, query: string, key?: string) =>
    call(sim, 'GET', `${TASKS}?${query}`, undefined, key);

  it("lists the caller's tasks newest first, a page at a time, filtered by model, status and ids", async () => {
    const sim = await start();
    const first = await created(sim, { model: V2, content: [text()] });
    clock += 1000;
    const second = await created(sim, { model: V2, content: [text()] });
    clock += 1000;
    const other = await created(sim, { model: PRO, content: [text()] });
    await created(sim, { model: V2, content: [text()] }, 'key-b');
    expect((await list(sim, 'page_num=1&page_size=10')).body).toMatchObject({
      total: 3,
      items: [{ id: other }, { id: second }, { id: first }],
    });
    const page = (await list(sim, `page_num=2&page_size=1&filter.model=${V2}`)).body;
    expect(page).toMatchObject({
      total: 2,
      items: [{ id: first, model: V2, created_at: expect.any(Number), seed: expect.any(Number) }],
    });
    expect((page.items as unknown[]).length).toBe(1);
    // Only `other`, just made, is still queued; the two before it run.
    expect((await list(sim, 'filter.status=queued')).body).toMatchObject({ total: 1, items: [{ id: other }] });
    const ids = (await list(sim, `filter.task_ids=${first}&filter.task_ids=${other}`)).body;
    expect((ids.items as { id: string }[]).map((item) => item.id)).toEqual([other, first]);
  });

  it('refuses a page number or size outside 1 … 500, and needs the key', async () => {
    const sim = await start({ apiKeys: ['key-a'] });
    expectRefused(await list(sim, 'page_size=501'), 400, 'InvalidParameter', 'page_size');
    expectRefused(await list(sim, 'page_num=0'), 400, 'InvalidParameter', 'page_num');
    expect((await list(sim, 'page_num=1', 'key-x')).status).toBe(401);
  });
});
