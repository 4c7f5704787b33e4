/** listModels: the catalog as the models endpoint shows it, with what each model accepts (docs/api-contract.md, "References"). */
import { describe, expect, it } from 'vitest';
import { ARK_MODELS } from '../../../functions/providers/ark/contract.js';
import type { UpstreamModel } from '../../../functions/providers/ark/contract.js';
import { listModels } from '../../../functions/core/use-cases/list-models.js';
import { toVideoModel } from '../../../functions/core/video-model.js';
import { InMemoryCatalog } from '../fakes.js';
import { buildModel, catalogRecords, LITE, LITE_T2V, PRO, V2, V2_FAST } from '../support.js';

const ALL_RATIOS = ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'];
const ALL_MODES = ['first_frame', 'first_last_frame', 'reference'];

async function views() {
  return listModels(new InMemoryCatalog(catalogRecords().map((record) => toVideoModel(record))));
}

async function view(name: string) {
  const found = (await views()).find((model) => model.name === name);
  if (!found) throw new Error(`no model ${name} in GET /models`);
  return found;
}

describe('listModels', () => {
  it('every catalog model, sorted by name', async () => {
    expect((await views()).map((model) => model.name)).toEqual([LITE_T2V, LITE, PRO, V2, V2_FAST]);
  });

  it('pricing in yuan, every resolution listed (0: not sold)', async () => {
    const pro = await view(PRO);
    expect(pro.pricing).toEqual({
      price_per_call: 0,
      price_per_second: 0.6,
      resolution_multipliers: { '480p': 0.5, '720p': 1, '1080p': 2.25, '2k': 0, '4k': 0 },
      audio_extra: 1.2,
      material_surcharge: 0,
      quality_multiplier: 1,
      currency: 'CNY',
    });
    expect(pro).toMatchObject({ billing_mode: 'per_second', status: 'active', max_duration: 12, fixed_duration: null });
    expect((await view(V2)).pricing).toMatchObject({
      price_per_second: 1.4,
      resolution_multipliers: { '480p': 0.5, '720p': 1, '1080p': 2.2, '2k': 0, '4k': 0 },
      material_surcharge: 18.5,
    });
    expect((await view(V2_FAST)).pricing).toMatchObject({ price_per_second: 1.1, material_surcharge: 5.5 });
  });

  it('the per_call model: its price, quality multiplier, fixed duration and one resolution', async () => {
    const lite = await view(LITE);
    expect(lite).toMatchObject({
      billing_mode: 'per_call',
      max_duration: 5,
      fixed_duration: 5,
      default_resolution: '720p',
      supported_resolutions: ['720p'],
      reference_kinds: ['image'],
      supports_audio: false,
    });
    expect(lite.pricing.price_per_call).toBe(2.5);
    expect(lite.pricing.quality_multiplier).toBe(1.2);
  });

  it.each([
    [LITE_T2V, ['480p', '720p', '1080p'], [], false],
    [LITE, ['720p'], ['image'], false],
    [PRO, ['480p', '720p', '1080p'], ['image'], true],
    [V2, ['480p', '720p', '1080p'], ['image', 'video', 'audio'], true],
    [V2_FAST, ['480p', '720p'], ['image', 'video', 'audio'], true],
  ])('%s: supported_resolutions %j, reference_kinds %j, supports_audio %s', async (name, resolutions, kinds, audio) => {
    expect(await view(name)).toMatchObject({
      supported_resolutions: resolutions,
      ratios: ALL_RATIOS,
      reference_kinds: kinds,
      supports_audio: audio,
    });
  });
});

describe('capabilities: what each model accepts, from its upstream contract', () => {
  const noReferences = { reference_images: null, max_videos: 0, max_audios: 0, max_reference_items: 0 };

  it.each([
    [
      LITE_T2V,
      {
        text_to_video: true,
        image_modes: [],
        default_image_mode: null,
        ...noReferences,
        audio_needs_image_or_video: false,
        duration: { min: 5, max: 12, fixed: false },
        resolutions: ['480p', '720p', '1080p'],
        reference_resolutions: null,
        ratios: ALL_RATIOS,
        generate_audio: false,
      },
    ],
    [
      LITE,
      {
        text_to_video: false,
        image_modes: ALL_MODES,
        default_image_mode: 'first_frame',
        reference_images: { min: 1, max: 4 },
        max_videos: 0,
        max_audios: 0,
        max_reference_items: 4,
        audio_needs_image_or_video: false,
        duration: { min: 5, max: 5, fixed: true },
        resolutions: ['720p'],
        reference_resolutions: ['720p'],
        ratios: ALL_RATIOS,
        generate_audio: false,
      },
    ],
    [
      PRO,
      {
        text_to_video: true,
        image_modes: ['first_frame', 'first_last_frame'],
        default_image_mode: 'first_frame',
        ...noReferences,
        audio_needs_image_or_video: false,
        duration: { min: 5, max: 12, fixed: false },
        resolutions: ['480p', '720p', '1080p'],
        reference_resolutions: null,
        ratios: ALL_RATIOS,
        generate_audio: true,
      },
    ],
    [
      V2,
      {
        text_to_video: true,
        image_modes: ALL_MODES,
        default_image_mode: 'first_frame',
        reference_images: { min: 0, max: 9 },
        max_videos: 3,
        max_audios: 3,
        max_reference_items: 12,
        audio_needs_image_or_video: true,
        duration: { min: 5, max: 15, fixed: false },
        resolutions: ['480p', '720p', '1080p'],
        reference_resolutions: ['480p', '720p', '1080p'],
        ratios: ALL_RATIOS,
        generate_audio: true,
      },
    ],
    [
      V2_FAST,
      {
        text_to_video: true,
        image_modes: ALL_MODES,
        default_image_mode: 'first_frame',
        reference_images: { min: 0, max: 9 },
        max_videos: 3,
        max_audios: 3,
        max_reference_items: 12,
        audio_needs_image_or_video: true,
        duration: { min: 5, max: 15, fixed: false },
        resolutions: ['480p', '720p'],
        reference_resolutions: ['480p', '720p'],
        ratios: ALL_RATIOS,
        generate_audio: true,
      },
    ],
  ])('%s', async (name, capabilities) => {
    expect((await view(name)).capabilities).toEqual(capabilities);
  });

  it.each(catalogRecords().map((record) => [record.name as string, record] as const))(
    '%s: its capabilities never promise more than its upstream model takes',
    async (name, record) => {
      const upstream: UpstreamModel = ARK_MODELS[(record.upstream as { model: keyof typeof ARK_MODELS }).model];
      const { capabilities, max_duration: maxDuration } = await view(name);
      expect(capabilities.text_to_video).toBe(upstream.textOnly);
      expect(capabilities.image_modes).toEqual(upstream.imageModes);
      expect(capabilities.max_videos).toBe(upstream.maxVideos);
      expect(capabilities.max_audios).toBe(upstream.maxAudios);
      expect(capabilities.max_reference_items).toBe(upstream.maxReferenceItems);
      expect(capabilities.generate_audio).toBe(upstream.audio);
      expect(capabilities.ratios).toEqual(upstream.ratios);
      for (const resolution of capabilities.resolutions) expect(upstream.resolutions).toContain(resolution);
      for (const resolution of capabilities.reference_resolutions ?? []) {
        expect(upstream.referenceResolutions ?? upstream.resolutions).toContain(resolution);
      }
      expect(capabilities.duration.min).toBeGreaterThanOrEqual(upstream.durationSeconds.min);
      expect(capabilities.duration.max).toBeLessThanOrEqual(Math.min(upstream.durationSeconds.max, maxDuration));
      expect(capabilities.duration.min).toBeLessThanOrEqual(capabilities.duration.max);
    },
  );

  it('the duration starts at the API minimum of 5 s where the upstream allows less', async () => {
    // seedance-1.0-lite-t2v is documented from 2 s; the API takes 5 to 30 s (docs/api-contract.md, "Defaults and bounds").
    expect(ARK_MODELS['seedance-1-0-lite-t2v'].durationSeconds.min).toBe(2);
    expect((await view(LITE_T2V)).capabilities.duration.min).toBe(5);
  });

  it('a record narrowing its upstream (max_duration, unpriced resolutions) narrows its capabilities', async () => {
    const narrowed = buildModel({
      max_duration: 8,
      pricing: { resolution_multipliers: { '480p': '0', '720p': '1', '1080p': '0' } },
    });
    const [shown] = await listModels(new InMemoryCatalog([narrowed]));
    expect(shown?.capabilities.duration).toEqual({ min: 5, max: 8, fixed: false });
    expect(shown?.capabilities.resolutions).toEqual(['720p']);
    expect(shown?.supported_resolutions).toEqual(['720p']);
  });
});
