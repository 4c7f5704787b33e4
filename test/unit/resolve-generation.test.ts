/**
 * Step 2 of a submit: the chosen model's defaults and limits (DESIGN §3 rows 3–6), on the seeded catalog
 * (seedance-1.5-pro: per_second, max 12 s, 480p–1080p, audio; seedance-2.0-ultra: per_second, max 30 s,
 * 720p–4k, no audio, no audio references; seedance-1.0-lite-i2v: per_call, fixed 5 s 720p, images only).
 */
import { describe, expect, it } from 'vitest';
import { parseGenerationBody } from '../../functions/core/generation-request.js';
import { resolveGeneration } from '../../functions/core/resolve-generation.js';
import type { ResolvedGeneration } from '../../functions/core/resolve-generation.js';
import type { VideoModel } from '../../functions/core/video-model.js';
import { buildModel, catalogModel, invalidRequest, LITE, PRO, ULTRA } from './support.js';

const FORM_B = { imageUrls: [] };

function resolve(model: VideoModel | string, fields: Record<string, unknown> = {}): ResolvedGeneration {
  const chosen = typeof model === 'string' ? catalogModel(model) : model;
  const body = parseGenerationBody({ model: chosen.record.name, prompt: 'A fox in the snow', ...fields });
  return resolveGeneration(body, chosen);
}

function rejects(model: VideoModel | string, fields: Record<string, unknown>, message: string | RegExp): void {
  expect(invalidRequest(() => resolve(model, fields)).message).toMatch(message);
}

describe('duration (row 3)', () => {
  it('Form A defaults to 15, lowered to the model max (seedance-1.5-pro: 12)', () => {
    expect(resolve(PRO).durationSeconds).toBe(12);
  });

  it('Form A defaults to 15 where the model allows it (seedance-2.0-ultra: max 30)', () => {
    expect(resolve(ULTRA).durationSeconds).toBe(15);
  });

  it.each([
    [5, 5],
    [10, 10],
    [15, 15],
    [20, 15],
  ])('Form A default with a model max of %s → %s', (maxDuration, expected) => {
    expect(resolve(buildModel({ max_duration: maxDuration })).durationSeconds).toBe(expected);
  });

  it.each([PRO, ULTRA])('Form B defaults to 5 (%s)', (name) => {
    expect(resolve(name, FORM_B).durationSeconds).toBe(5);
  });

  it('null duration takes the default', () => {
    expect(resolve(PRO, { duration: null }).durationSeconds).toBe(12);
  });

  it.each([
    [PRO, 5],
    [PRO, 12],
    [ULTRA, 5],
    [ULTRA, 20],
    [ULTRA, 30],
  ])('%s keeps a duration of %s s that it allows (in either form)', (name, duration) => {
    expect(resolve(name, { duration }).durationSeconds).toBe(duration);
    expect(resolve(name, { duration, ...FORM_B }).durationSeconds).toBe(duration);
  });

  it.each([13, 15, 30])(
    'a duration above the model max (%s on seedance-1.5-pro) → 400 naming the bound',
    (duration) => {
      rejects(PRO, { duration }, 'duration must be between 5 and 12 seconds for seedance-1.5-pro');
    },
  );

  it.each([undefined, 5])('a per_call model makes its fixed duration (%s sent)', (duration) => {
    const fields = duration === undefined ? {} : { duration };
    expect(resolve(LITE, fields).durationSeconds).toBe(5);
    expect(resolve(LITE, { ...fields, ...FORM_B }).durationSeconds).toBe(5);
  });

  it.each([6, 15, 30])('a per_call model still bounds the duration sent by its max_duration (%s → 400)', (duration) => {
    expect(() => resolve(LITE, { duration })).toThrow(/duration must be between 5 and 5 seconds/);
  });

  it('a fixed duration wins over the form default', () => {
    expect(resolve(buildModel({ max_duration: 30, fixed_duration: 8 })).durationSeconds).toBe(8);
    expect(resolve(buildModel({ max_duration: 30, fixed_duration: 8 }), FORM_B).durationSeconds).toBe(8);
  });
});

describe('resolution (row 5)', () => {
  it.each([PRO, ULTRA, LITE])('defaults to 720p (%s)', (name) => {
    expect(resolve(name).resolution).toBe('720p');
  });

  it("defaults to the model's own default where it has one", () => {
    expect(resolve(buildModel({ default_resolution: '1080p' })).resolution).toBe('1080p');
  });

  it('falls back to the first supported resolution when 720p is unsupported and there is no model default', () => {
    const model = buildModel({ pricing: { resolution_multipliers: { '480p': '0', '720p': '0', '1080p': '2' } } });
    expect(resolve(model).resolution).toBe('1080p');
  });

  it.each([
    [PRO, ['480p', '720p', '1080p']],
    [ULTRA, ['720p', '1080p', '2k', '4k']],
    [LITE, ['720p']],
  ] as const)('%s accepts each of %j', (name, resolutions) => {
    for (const resolution of resolutions) expect(resolve(name, { resolution }).resolution).toBe(resolution);
  });

  it('4k on seedance-2.0-ultra is accepted', () => {
    expect(resolve(ULTRA, { resolution: '4k' }).resolution).toBe('4k');
  });

  it.each([
    [PRO, '2k', '480p, 720p, 1080p'],
    [PRO, '4k', '480p, 720p, 1080p'],
    [ULTRA, '480p', '720p, 1080p, 2k, 4k'],
    [LITE, '480p', '720p'],
    [LITE, '1080p', '720p'],
    [LITE, '4k', '720p'],
  ])('%s rejects %s (multiplier 0 or outside the per_call list), naming %s', (name, resolution, supported) => {
    rejects(name, { resolution }, `resolution ${resolution} is not supported by ${name}: use ${supported}`);
  });

  it('a resolution without a multiplier at all is unsupported', () => {
    const model = buildModel({ pricing: { resolution_multipliers: { '480p': '0.5', '720p': '1' } } });
    rejects(model, { resolution: '1080p' }, 'resolution 1080p is not supported by test-model: use 480p, 720p');
  });
});

describe('ratio (row 4)', () => {
  it('defaults to 16:9', () => {
    expect(resolve(PRO).ratio).toBe('16:9');
  });

  it.each(['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'])('the catalog models accept %s', (ratio) => {
    for (const name of [PRO, ULTRA, LITE]) expect(resolve(name, { ratio }).ratio).toBe(ratio);
  });

  it('a model may restrict the list: another ratio → 400 naming the allowed ones', () => {
    const model = buildModel({ ratios: ['16:9', '9:16'] });
    expect(resolve(model, { ratio: '9:16' }).ratio).toBe('9:16');
    rejects(model, { ratio: '1:1' }, 'ratio 1:1 is not supported by test-model: use 16:9, 9:16');
  });
});

describe('reference kinds per model (row 6)', () => {
  const image = ['https://cdn.example.com/a.png'];
  const video = ['https://cdn.example.com/a.mp4'];
  const audio = ['https://cdn.example.com/a.mp3'];

  it('seedance-1.5-pro accepts images, videos and audios, in either spelling', () => {
    const resolved = resolve(PRO, { image_urls: image, video_urls: video, audio_urls: audio });
    expect([resolved.imageUrls, resolved.videoUrls, resolved.audioUrls]).toEqual([image, video, audio]);
    const formB = resolve(PRO, { imageUrls: image, videoUrls: video, audioUrls: audio });
    expect([formB.imageUrls, formB.videoUrls, formB.audioUrls]).toEqual([image, video, audio]);
  });

  it('seedance-2.0-ultra accepts images and videos, not audios', () => {
    expect(resolve(ULTRA, { image_urls: image, video_urls: video }).videoUrls).toEqual(video);
    rejects(
      ULTRA,
      { audio_urls: audio },
      'seedance-2.0-ultra does not accept audio references (accepted: image, video)',
    );
  });

  it('a per_call model accepts images only', () => {
    expect(resolve(LITE, { image_urls: image }).imageUrls).toEqual(image);
    rejects(LITE, { video_urls: video }, 'seedance-1.0-lite-i2v does not accept video references (accepted: image)');
    rejects(LITE, { audioUrls: audio }, 'seedance-1.0-lite-i2v does not accept audio references (accepted: image)');
  });

  it('a model that accepts no references says so', () => {
    rejects(buildModel({ reference_kinds: [] }), { image_urls: image }, '(accepted: none)');
  });

  it('empty lists are not references', () => {
    expect(resolve(LITE, { video_urls: [], audio_urls: [] }).videoUrls).toEqual([]);
  });
});

describe('generate_audio', () => {
  it.each([ULTRA, LITE])('true on a model without audio (%s) → 400', (name) => {
    rejects(name, { generate_audio: true }, `model ${name} does not generate audio`);
    rejects(name, { generateAudio: true }, `model ${name} does not generate audio`);
  });

  it.each([ULTRA, LITE])('false or absent on a model without audio (%s) → no audio', (name) => {
    expect(resolve(name, { generate_audio: false }).generateAudio).toBe(false);
    expect(resolve(name).generateAudio).toBe(false);
  });

  it('defaults to on for a model with audio, and may be turned off', () => {
    expect(resolve(PRO).generateAudio).toBe(true);
    expect(resolve(PRO, { generate_audio: false }).generateAudio).toBe(false);
    expect(resolve(PRO, { generateAudio: true }).generateAudio).toBe(true);
  });
});

describe('the model itself', () => {
  it('an inactive model → 400', () => {
    rejects(buildModel({ status: 'inactive' }), {}, 'model test-model is not active');
  });

  it('carries the model id and name, the prompt, seed and webhook through', () => {
    const resolved = resolve(PRO, {
      prompt: 'A fox',
      seed: 99,
      webhook_url: 'https://hooks.example.com/a',
      duration: 5,
      resolution: '1080p',
      ratio: '9:16',
    });
    expect(resolved).toEqual({
      modelId: '6f1c2a0e-5b7d-4c1e-9a3f-0d2b8e4c7a11',
      modelName: PRO,
      prompt: 'A fox',
      resolution: '1080p',
      ratio: '9:16',
      durationSeconds: 5,
      seed: 99,
      generateAudio: true,
      imageUrls: [],
      videoUrls: [],
      audioUrls: [],
      webhookUrl: 'https://hooks.example.com/a',
      // 0.6 × 5 × 2.25 + 1.2 = 7.95 yuan
      costUnits: 79_500,
    });
  });

  it('leaves seed and webhookUrl out when not sent', () => {
    const resolved = resolve(PRO);
    expect('seed' in resolved).toBe(false);
    expect('webhookUrl' in resolved).toBe(false);
  });

  it.each([
    // Form A default 12 s 720p with audio: 0.6 × 12 + 1.2 = 8.4 yuan
    [PRO, {}, 84_000],
    // Form B default 5 s 720p with audio: 0.6 × 5 + 1.2 = 4.2 yuan
    [PRO, FORM_B, 42_000],
    // Form A default 15 s 720p: 1 × 15 = 15 yuan
    [ULTRA, {}, 150_000],
    // per_call: 2.5 × 1.2 = 3 yuan
    [LITE, { duration: 5 }, 30_000],
  ])('prices the resolved request (%s %j → %s units)', (name, fields, units) => {
    expect(resolve(name, fields).costUnits).toBe(units);
  });
});
