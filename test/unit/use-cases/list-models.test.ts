/** listModels: the catalog as the models endpoint shows it. */
import { describe, expect, it } from 'vitest';
import { listModels } from '../../../functions/core/use-cases/list-models.js';
import { toVideoModel } from '../../../functions/core/video-model.js';
import { InMemoryCatalog } from '../fakes.js';
import { catalogRecords, LITE, PRO, ULTRA } from '../support.js';

describe('listModels', () => {
  it('every catalog model, sorted by name, with pricing in yuan', async () => {
    const views = await listModels(new InMemoryCatalog(catalogRecords().map((record) => toVideoModel(record))));
    expect(views.map((view) => view.name)).toEqual([LITE, PRO, ULTRA]);
    const [lite, pro, ultra] = views;
    expect(pro?.pricing).toEqual({
      price_per_call: 0,
      price_per_second: 0.6,
      resolution_multipliers: { '480p': 0.5, '720p': 1, '1080p': 2.25, '2k': 0, '4k': 0 },
      audio_extra: 1.2,
      material_surcharge: 0.3,
      quality_multiplier: 1,
      currency: 'CNY',
    });
    expect(pro).toMatchObject({ billing_mode: 'per_second', status: 'active', max_duration: 12, fixed_duration: null });
    expect(pro?.supported_resolutions).toEqual(['480p', '720p', '1080p']);
    expect(ultra?.supported_resolutions).toEqual(['720p', '1080p', '2k', '4k']);
    expect(lite).toMatchObject({
      billing_mode: 'per_call',
      fixed_duration: 5,
      default_resolution: '720p',
      supported_resolutions: ['720p'],
      reference_kinds: ['image'],
    });
    expect(lite?.pricing.price_per_call).toBe(2.5);
    expect(lite?.pricing.quality_multiplier).toBe(1.2);
  });
});
