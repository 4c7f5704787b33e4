/**
 * The console's cost calculator (lib/ship/console/src/pricing.ts) must quote exactly what the service charges: it
 * rebuilds `costUnits`'s inputs from the API's model view (GET /api/v1/models), so every catalog model and any
 * priced request is checked against `costUnits` on the model itself.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unitsToYuan } from '../../functions/core/money.js';
import { costUnits } from '../../functions/core/pricing.js';
import { supportedResolutions } from '../../functions/core/video-model.js';
import type { VideoModel } from '../../functions/core/video-model.js';
import { toModelView } from '../../functions/core/use-cases/list-models.js';
import { estimateYuan } from '../../lib/ship/console/src/pricing.js';
import { buildModel, catalogModel, catalogRecords, PRO } from './support.js';

function charged(model: VideoModel, input: Parameters<typeof estimateYuan>[1]): number {
  const fixed = model.record.fixed_duration;
  return unitsToYuan(
    costUnits(model, {
      resolution: input.resolution as never,
      durationSeconds: fixed ?? input.durationSeconds,
      generateAudio: model.upstream.audio && input.generateAudio,
      videoReferenceCount: input.videoReferenceCount,
      audioReferenceCount: input.audioReferenceCount,
    }),
  );
}

describe('the console calculator quotes what the service charges', () => {
  it.each(catalogRecords().map((record) => record.name as string))('%s: every priced request', (name) => {
    const model = catalogModel(name);
    const view = toModelView(model);
    const { min, max } = view.capabilities.duration;
    let checked = 0;
    for (const resolution of supportedResolutions(model)) {
      for (let durationSeconds = min; durationSeconds <= max; durationSeconds++) {
        for (const generateAudio of [true, false]) {
          for (let videos = 0; videos <= view.capabilities.max_videos; videos++) {
            for (let audios = 0; audios <= view.capabilities.max_audios; audios++) {
              const input = {
                resolution,
                durationSeconds,
                generateAudio,
                videoReferenceCount: videos,
                audioReferenceCount: audios,
              };
              expect(estimateYuan(view, input)).toBe(charged(model, input));
              checked++;
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('any exact pricing survives the trip through the API view (yuan and multipliers as JSON numbers)', () => {
    const yuan = fc
      .tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 9_999 }))
      .map(([whole, fraction]) => `${whole}.${String(fraction).padStart(4, '0')}`);
    const multiplier = fc
      .tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 999_999 }))
      .map(([whole, fraction]) => `${whole}.${String(fraction).padStart(6, '0')}`);
    fc.assert(
      fc.property(
        yuan,
        yuan,
        multiplier,
        fc.integer({ min: 5, max: 12 }),
        fc.boolean(),
        (perSecond, audio, m, d, a) => {
          const model = buildModel({
            pricing: {
              price_per_second: perSecond,
              audio_extra: audio,
              resolution_multipliers: { '480p': '0.5', '720p': m, '1080p': '2.25', '2k': '0', '4k': '0' },
            },
          });
          const input = {
            resolution: '720p',
            durationSeconds: d,
            generateAudio: a,
            videoReferenceCount: 0,
            audioReferenceCount: 0,
          };
          expect(estimateYuan(toModelView(model), input)).toBe(charged(model, input));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses what the service would refuse: an unpriced resolution or a duration out of range', () => {
    const view = toModelView(catalogModel(PRO));
    const base = { generateAudio: true, videoReferenceCount: 0, audioReferenceCount: 0 };
    expect(estimateYuan(view, { ...base, resolution: '4k', durationSeconds: 5 })).toBeNull();
    expect(estimateYuan(view, { ...base, resolution: '720p', durationSeconds: view.max_duration + 1 })).toBeNull();
    expect(estimateYuan(view, { ...base, resolution: '720p', durationSeconds: 5.5 })).toBeNull();
  });
});
