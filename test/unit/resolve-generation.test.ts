/**
 * Step 2 of a submit: the chosen model's defaults and its upstream contract (docs/api-contract.md, "Defaults and bounds", "References"), on the
 * seeded catalog: 1.5 pro (text, first / first+last frame, audio, ≤ 12 s), 2.0 (all modes, references,
 * ≤ 15 s, ≤ 1080p), 2.0 fast (≤ 720p), 1.0 lite t2v (text only), 1.0 lite i2v (per_call, images required).
 */
import { describe, expect, it } from 'vitest';
import { parseGenerationBody } from '../../functions/core/generation-request.js';
import { resolveGeneration } from '../../functions/core/resolve-generation.js';
import type { ResolvedGeneration } from '../../functions/core/resolve-generation.js';
import type { VideoModel } from '../../functions/core/video-model.js';
import { buildModel, catalogModel, invalidRequest, LITE, LITE_T2V, PRO, V2, V2_FAST } from './support.js';

const FORM_B = { imageUrls: [] };
const IMAGE = 'https://cdn.example.com/a.png';
const VIDEO = 'https://cdn.example.com/a.mp4';
const AUDIO = 'https://cdn.example.com/a.mp3';
const images = (count: number) => Array.from({ length: count }, (_, i) => `https://cdn.example.com/${i}.png`);
/** The per_call image-to-video model needs an image in every request. */
const ONE_IMAGE = { image_urls: [IMAGE] };

function resolve(model: VideoModel | string, fields: Record<string, unknown> = {}): ResolvedGeneration {
  const chosen = typeof model === 'string' ? catalogModel(model) : model;
  const body = parseGenerationBody({ model: chosen.record.name, prompt: 'A fox in the snow', ...fields });
  return resolveGeneration(body, chosen);
}

function rejects(model: VideoModel | string, fields: Record<string, unknown>, message: string | RegExp): void {
  expect(invalidRequest(() => resolve(model, fields)).message).toMatch(message);
}

describe('duration', () => {
  it('Form A defaults to 15, lowered to the model max (seedance-1.5-pro: 12)', () => {
    expect(resolve(PRO).durationSeconds).toBe(12);
  });

  it('Form A defaults to 15 where the model allows it (seedance-2.0: max 15)', () => {
    expect(resolve(V2).durationSeconds).toBe(15);
  });

  it.each([
    [5, 5],
    [10, 10],
    [12, 12],
  ])('Form A default with a model max of %s → %s', (maxDuration, expected) => {
    expect(resolve(buildModel({ max_duration: maxDuration })).durationSeconds).toBe(expected);
  });

  it.each([PRO, V2])('Form B defaults to 5 (%s)', (name) => {
    expect(resolve(name, FORM_B).durationSeconds).toBe(5);
  });

  it('null duration is refused, not billed as the default (12 s on seedance-1.5-pro); absent is the default', () => {
    rejects(PRO, { duration: null }, 'duration: must be a whole number of seconds, not null');
    expect(resolve(PRO).durationSeconds).toBe(12);
  });

  it.each([
    [PRO, 5],
    [PRO, 12],
    [V2, 5],
    [V2, 15],
  ])('%s keeps a duration of %s s that it allows (in either form)', (name, duration) => {
    expect(resolve(name, { duration }).durationSeconds).toBe(duration);
    expect(resolve(name, { duration, ...FORM_B }).durationSeconds).toBe(duration);
  });

  it.each([
    [PRO, 13, 12],
    [V2, 16, 15],
    [V2, 30, 15],
  ])('a duration above the model max (%s, %s s) → 400 naming the bound', (name, duration, max) => {
    rejects(name, { duration }, `duration must be a whole number of seconds from 5 to ${max} for ${name}`);
  });

  it.each([
    [LITE_T2V, 4, 12],
    [LITE_T2V, 13, 12],
    [PRO, 0, 12],
    [PRO, -5, 12],
    [PRO, 5.5, 12],
    [V2, '10', 15],
    [V2, true, 15],
    [V2, [10], 15],
  ])('%s refuses duration %j with its own range, 5 to %s', (name, duration, max) => {
    rejects(name, { duration }, `duration must be a whole number of seconds from 5 to ${max} for ${name}`);
  });

  it.each([undefined, 5, 6, 15])('a per_call model makes its fixed duration whatever is sent (%s)', (duration) => {
    const fields = duration === undefined ? ONE_IMAGE : { ...ONE_IMAGE, duration };
    expect(resolve(LITE, fields).durationSeconds).toBe(5);
    expect(resolve(LITE, { ...fields, ...FORM_B, imageUrls: [IMAGE], image_urls: undefined }).durationSeconds).toBe(5);
  });

  it('a per_call model checks the duration sent only against its form: A 5–15, B 5–30', () => {
    rejects(
      LITE,
      { ...ONE_IMAGE, duration: 16 },
      'duration must be a whole number of seconds from 5 to 15 for seedance-1.0-lite-i2v (it always makes a 5 s video)',
    );
    expect(resolve(LITE, { imageUrls: [IMAGE], duration: 30 }).durationSeconds).toBe(5);
    expect(resolve(LITE, { imageUrls: [IMAGE], duration: 30 }).costUnits).toBe(30_000);
  });

  it('a fixed duration wins over the form default', () => {
    expect(resolve(buildModel({ max_duration: 12, fixed_duration: 8 })).durationSeconds).toBe(8);
    expect(resolve(buildModel({ max_duration: 12, fixed_duration: 8 }), FORM_B).durationSeconds).toBe(8);
  });
});

describe('resolution', () => {
  it.each([PRO, V2, V2_FAST, LITE_T2V])('defaults to 720p (%s)', (name) => {
    expect(resolve(name).resolution).toBe('720p');
  });

  it('defaults to 720p (seedance-1.0-lite-i2v)', () => {
    expect(resolve(LITE, ONE_IMAGE).resolution).toBe('720p');
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
    [V2, ['480p', '720p', '1080p']],
    [V2_FAST, ['480p', '720p']],
    [LITE_T2V, ['480p', '720p', '1080p']],
  ] as const)('%s accepts each of %j', (name, resolutions) => {
    for (const resolution of resolutions) expect(resolve(name, { resolution }).resolution).toBe(resolution);
  });

  it.each([
    [PRO, '2k', '480p, 720p, 1080p'],
    [V2, '2k', '480p, 720p, 1080p'],
    [V2, '4k', '480p, 720p, 1080p'],
    [V2_FAST, '1080p', '480p, 720p'],
  ])('%s refuses %s (Ark does not make it), naming %s', (name, resolution, supported) => {
    rejects(name, { resolution }, `resolution "${resolution}" is not supported by ${name}: use one of ${supported}`);
  });

  it.each(['720P', '360p', '', 720])("a resolution that no model makes (%j) names the model's", (resolution) => {
    rejects(
      V2_FAST,
      { resolution },
      `resolution ${JSON.stringify(resolution)} is not supported by ${V2_FAST}: use one of 480p, 720p`,
    );
  });

  it.each(['480p', '1080p', '4k'])('the per_call model allows only 720p (%s → 400)', (resolution) => {
    rejects(
      LITE,
      { ...ONE_IMAGE, resolution },
      `resolution "${resolution}" is not supported by ${LITE}: use one of 720p`,
    );
  });

  it('a resolution without a multiplier at all is unsupported', () => {
    const model = buildModel({ pricing: { resolution_multipliers: { '480p': '0.5', '720p': '1' } } });
    rejects(model, { resolution: '1080p' }, 'resolution "1080p" is not supported by test-model: use one of 480p, 720p');
  });

  it('1.0 lite i2v makes 1080p from frames but not from reference images (doc 1520757)', () => {
    const model = buildModel({
      billing_mode: 'per_second',
      upstream: { provider: 'ark', model: 'seedance-1-0-lite-i2v' },
      pricing: { resolution_multipliers: { '480p': '0.5', '720p': '1', '1080p': '2' }, audio_extra: '0' },
    });
    expect(resolve(model, { image_urls: [IMAGE], resolution: '1080p' }).resolution).toBe('1080p');
    rejects(
      model,
      { image_urls: [IMAGE], image_mode: 'reference', resolution: '1080p' },
      'resolution "1080p" is not supported by test-model with reference images: use one of 480p, 720p',
    );
  });

  it('a catalog record cannot price a resolution its upstream model does not make', () => {
    expect(() => buildModel({ pricing: { resolution_multipliers: { '720p': '1', '4k': '3' } } })).toThrow(
      /seedance-1-5-pro does not make 4k/,
    );
  });
});

describe('ratio', () => {
  it('defaults to 16:9', () => {
    expect(resolve(PRO).ratio).toBe('16:9');
  });

  it.each(['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'])('the catalog models accept %s', (ratio) => {
    for (const name of [PRO, V2, V2_FAST, LITE_T2V]) expect(resolve(name, { ratio }).ratio).toBe(ratio);
    expect(resolve(LITE, { ...ONE_IMAGE, ratio }).ratio).toBe(ratio);
  });
});

describe('images, videos and audios per model', () => {
  it('an image-to-video model without an image → 400', () => {
    rejects(LITE, {}, 'seedance-1.0-lite-i2v is an image-to-video model: send at least one image in image_urls');
    rejects(LITE, FORM_B, 'send at least one image in imageUrls');
  });

  it('a text-to-video model refuses images', () => {
    rejects(LITE_T2V, ONE_IMAGE, 'seedance-1.0-lite does not accept images (text to video only)');
  });

  it("one image is the first frame by default (the model's first mode)", () => {
    expect(resolve(PRO, ONE_IMAGE).imageMode).toBe('first_frame');
    expect(resolve(V2, ONE_IMAGE).imageMode).toBe('first_frame');
    expect(resolve(PRO).imageMode).toBeUndefined();
  });

  it('first_last_frame takes exactly two images', () => {
    expect(resolve(PRO, { image_urls: images(2), image_mode: 'first_last_frame' }).imageMode).toBe('first_last_frame');
    expect(resolve(PRO, { imageUrls: images(2), imageMode: 'first_last_frame' }).imageMode).toBe('first_last_frame');
    rejects(
      PRO,
      { image_urls: images(1), image_mode: 'first_last_frame' },
      'takes 2 images in image_mode first_last_frame (got 1)',
    );
    rejects(
      PRO,
      { image_urls: images(3), image_mode: 'first_last_frame' },
      'takes 2 images in image_mode first_last_frame (got 3)',
    );
  });

  it('first_frame takes one image and names the modes that take more', () => {
    rejects(
      V2,
      { image_urls: images(2) },
      'seedance-2.0 takes 1 image in image_mode first_frame (got 2); for more, send image_mode first_last_frame or reference',
    );
  });

  it('1.5 pro takes no reference images, videos or audios', () => {
    rejects(
      PRO,
      { ...ONE_IMAGE, image_mode: 'reference' },
      'seedance-1.5-pro does not take image_mode reference: use first_frame, first_last_frame',
    );
    rejects(PRO, { video_urls: [VIDEO] }, 'seedance-1.5-pro does not accept video references (video_urls)');
    rejects(PRO, { audioUrls: [AUDIO] }, 'seedance-1.5-pro does not accept audio references (audioUrls)');
  });

  it('2.0 takes 1 to 9 reference images with up to 3 videos and 3 audios', () => {
    const resolved = resolve(V2, {
      image_urls: images(9),
      image_mode: 'reference',
      video_urls: [VIDEO],
      audio_urls: [AUDIO],
    });
    expect(resolved.imageMode).toBe('reference');
    expect(resolve(V2, { video_urls: [VIDEO, VIDEO, VIDEO] }).videoUrls).toHaveLength(3);
    rejects(V2, { video_urls: Array(4).fill(VIDEO) }, /video_urls: must hold at most 3 URLs/);
    rejects(
      V2,
      {
        image_urls: images(7),
        image_mode: 'reference',
        video_urls: [VIDEO, VIDEO, VIDEO],
        audio_urls: [AUDIO, AUDIO, AUDIO],
      },
      'takes at most 12 reference images, videos and audios in all',
    );
  });

  it('2.0: reference videos and audios only beside reference images, never with frames', () => {
    rejects(
      V2,
      { ...ONE_IMAGE, video_urls: [VIDEO] },
      'seedance-2.0 takes reference videos and audios only with image_mode reference (got first_frame)',
    );
  });

  it('2.0: a reference audio needs an image or a video beside it', () => {
    rejects(V2, { audio_urls: [AUDIO] }, 'seedance-2.0 needs an image or a video beside reference audio');
    expect(resolve(V2, { audio_urls: [AUDIO], video_urls: [VIDEO] }).audioUrls).toEqual([AUDIO]);
  });

  it('1.0 lite i2v takes 1 to 4 reference images', () => {
    expect(resolve(LITE, { image_urls: images(4), image_mode: 'reference' }).imageMode).toBe('reference');
    rejects(
      LITE,
      { image_urls: images(5), image_mode: 'reference' },
      'seedance-1.0-lite-i2v takes 1 to 4 reference images (got 5)',
    );
    rejects(LITE, { ...ONE_IMAGE, video_urls: [VIDEO] }, 'does not accept video references');
  });

  it('image_mode without images → 400', () => {
    rejects(V2, { image_mode: 'first_frame' }, 'image_mode first_frame needs images in image_urls');
    rejects(V2, { image_mode: 'reference' }, 'image_mode reference needs images in image_urls');
    // Videos alone are references: naming that mode is fine.
    expect(resolve(V2, { image_mode: 'reference', video_urls: [VIDEO] }).videoUrls).toEqual([VIDEO]);
  });

  it('empty lists are not references', () => {
    expect(resolve(LITE, { ...ONE_IMAGE, video_urls: [], audio_urls: [] }).videoUrls).toEqual([]);
    rejects(LITE, { image_urls: [] }, 'is an image-to-video model');
  });
});

describe('generate_audio', () => {
  it.each([LITE_T2V])('true on a model without audio (%s) → 400', (name) => {
    rejects(name, { generate_audio: true }, `model ${name} does not generate audio`);
    rejects(name, { generateAudio: true }, `model ${name} does not generate audio`);
  });

  it('false or absent on a model without audio → no audio', () => {
    expect(resolve(LITE_T2V, { generate_audio: false }).generateAudio).toBe(false);
    expect(resolve(LITE, ONE_IMAGE).generateAudio).toBe(false);
  });

  it.each([PRO, V2, V2_FAST])('defaults to on for a model with audio (%s), and may be turned off', (name) => {
    expect(resolve(name).generateAudio).toBe(true);
    expect(resolve(name, { generate_audio: false }).generateAudio).toBe(false);
    expect(resolve(name, { generateAudio: true }).generateAudio).toBe(true);
  });
});

describe('the model itself', () => {
  it('an inactive model → 400', () => {
    rejects(buildModel({ status: 'inactive' }), {}, 'model test-model is not active');
  });

  it('carries the model id and name, the prompt, seed, webhook and image mode through', () => {
    const resolved = resolve(PRO, {
      prompt: 'A fox',
      seed: 99,
      webhook_url: 'https://hooks.example.com/a',
      duration: 5,
      resolution: '1080p',
      ratio: '9:16',
      image_urls: [IMAGE],
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
      imageMode: 'first_frame',
      imageUrls: [IMAGE],
      videoUrls: [],
      audioUrls: [],
      webhookUrl: 'https://hooks.example.com/a',
      // 0.6 × 5 × 2.25 + 1.2 = 7.95 yuan
      costUnits: 79_500,
      costParts: { baseUnits: 30_000, resolutionUnits: 37_500, audioUnits: 12_000, surchargeUnits: 0 },
    });
  });

  it('leaves seed, webhookUrl and imageMode out when not sent', () => {
    const resolved = resolve(PRO);
    expect('seed' in resolved).toBe(false);
    expect('webhookUrl' in resolved).toBe(false);
    expect('imageMode' in resolved).toBe(false);
  });

  it.each([
    // Form A default 12 s 720p with audio: 0.6 × 12 + 1.2 = 8.4 yuan
    [PRO, {}, 84_000],
    // Form B default 5 s 720p with audio: 0.6 × 5 + 1.2 = 4.2 yuan
    [PRO, FORM_B, 42_000],
    // Form A default 15 s 720p: 1.4 × 15 = 21 yuan
    [V2, {}, 210_000],
    // 5 s 720p with one reference video: 1.4 × 5 + 18.5 = 25.5 yuan
    [V2, { duration: 5, video_urls: [VIDEO] }, 255_000],
    // per_call: 2.5 × 1.2 = 3 yuan
    [LITE, { ...ONE_IMAGE, duration: 5 }, 30_000],
  ])('prices the resolved request (%s %j → %s units)', (name, fields, units) => {
    expect(resolve(name, fields).costUnits).toBe(units);
  });
});
