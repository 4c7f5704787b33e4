/**
 * The cost formula (docs/money-and-ledger.md, "Minor units", "Pricing") in integer units of 0.0001 CNY:
 *   per_second: price_per_second × duration × multiplier[resolution] (rounded half up once)
 *               + audio_extra (when audio is generated) + material_surcharge × (reference videos + audios)
 *   per_call:   price_per_call × quality_multiplier (rounded half up once)
 */
import { describe, expect, it } from 'vitest';
import { RESOLUTIONS } from '../../functions/core/generation-options.js';
import type { Resolution } from '../../functions/core/generation-options.js';
import { costParts, costUnits, sumOfParts, UnpricedResolutionError } from '../../functions/core/pricing.js';
import type { PricedRequest } from '../../functions/core/pricing.js';
import { supportedResolutions } from '../../functions/core/video-model.js';
import { catalogVideoModel } from '../../functions/providers/registry.js';
import type { VideoModel } from '../../functions/core/video-model.js';
import {
  buildModel,
  catalogModel,
  catalogRecord,
  catalogRecords,
  LITE,
  LITE_T2V,
  PRO,
  V2,
  V2_FAST,
} from './support.js';

function priced(overrides: Partial<PricedRequest> = {}): PricedRequest {
  return {
    resolution: '720p',
    durationSeconds: 5,
    generateAudio: false,
    videoReferenceCount: 0,
    audioReferenceCount: 0,
    ...overrides,
  };
}

describe('seedance-1.5-pro (per_second 0.6/s, 480p ×0.5, 720p ×1, 1080p ×2.25, audio 1.2)', () => {
  const model = catalogModel(PRO);

  it.each([
    ['5 s 720p with audio: 0.6×5×1 + 1.2 = 4.2', priced({ generateAudio: true }), 42_000],
    ['5 s 720p without audio: 0.6×5×1 = 3', priced(), 30_000],
    ['5 s 1080p with audio: 0.6×5×2.25 + 1.2 = 7.95', priced({ resolution: '1080p', generateAudio: true }), 79_500],
    ['5 s 480p with audio: 0.6×5×0.5 + 1.2 = 2.7', priced({ resolution: '480p', generateAudio: true }), 27_000],
    ['12 s 1080p without audio: 0.6×12×2.25 = 16.2', priced({ resolution: '1080p', durationSeconds: 12 }), 162_000],
    ['7 s 480p without audio: 0.6×7×0.5 = 2.1', priced({ resolution: '480p', durationSeconds: 7 }), 21_000],
  ])('%s yuan', (_label, request, units) => {
    expect(costUnits(model, request)).toBe(units);
  });

  it.each(['2k', '4k'] as const)('%s has no price (Ark does not make it)', (resolution) => {
    expect(() => costUnits(model, priced({ resolution }))).toThrow(UnpricedResolutionError);
  });
});

describe('seedance-2.0 (per_second 1.4/s, 480p ×0.5, 720p ×1, 1080p ×2.2, no audio extra, material 18.5)', () => {
  const model = catalogModel(V2);

  it.each([
    ['5 s 720p: 1.4×5×1 = 7', priced(), 70_000],
    ['7 s 1080p: 1.4×7×2.2 = 21.56', priced({ resolution: '1080p', durationSeconds: 7 }), 215_600],
    ['15 s 480p: 1.4×15×0.5 = 10.5', priced({ resolution: '480p', durationSeconds: 15 }), 105_000],
    ['5 s 720p with audio, audio_extra 0: still 7', priced({ generateAudio: true }), 70_000],
    ['5 s 720p with one reference video: 7 + 18.5 = 25.5', priced({ videoReferenceCount: 1 }), 255_000],
    ['5 s 720p with one reference audio: 7 + 18.5 = 25.5', priced({ audioReferenceCount: 1 }), 255_000],
    [
      '15 s 1080p with 3 reference videos and 3 audios: 1.4×15×2.2 + 6×18.5 = 46.2 + 111 = 157.2',
      priced({ resolution: '1080p', durationSeconds: 15, videoReferenceCount: 3, audioReferenceCount: 3 }),
      1_572_000,
    ],
  ])('%s yuan', (_label, request, units) => {
    expect(costUnits(model, request)).toBe(units);
  });

  it.each(['2k', '4k'] as const)('%s has no price (Ark does not make it)', (resolution) => {
    expect(() => costUnits(model, priced({ resolution }))).toThrow(`seedance-2.0 has no price for ${resolution}`);
  });
});

describe('seedance-2.0-fast (per_second 1.1/s, 480p ×0.5, 720p ×1, material 5.5; no 1080p)', () => {
  const model = catalogModel(V2_FAST);

  it.each([
    ['5 s 720p: 1.1×5×1 = 5.5', priced(), 55_000],
    ['15 s 480p: 1.1×15×0.5 = 8.25', priced({ resolution: '480p', durationSeconds: 15 }), 82_500],
    [
      '10 s 720p with audio, 2 reference videos and 1 audio: 11 + 3×5.5 = 27.5',
      priced({ durationSeconds: 10, generateAudio: true, videoReferenceCount: 2, audioReferenceCount: 1 }),
      275_000,
    ],
  ])('%s yuan', (_label, request, units) => {
    expect(costUnits(model, request)).toBe(units);
  });

  it('1080p has no price (the fast model makes at most 720p)', () => {
    expect(() => costUnits(model, priced({ resolution: '1080p' }))).toThrow('seedance-2.0-fast has no price for 1080p');
  });
});

describe('seedance-1.0-lite (per_second 0.5/s, 480p ×0.5, 720p ×1, 1080p ×2; no audio, no references)', () => {
  const model = catalogModel(LITE_T2V);

  it.each([
    ['5 s 720p: 0.5×5×1 = 2.5', priced(), 25_000],
    ['12 s 1080p: 0.5×12×2 = 12', priced({ resolution: '1080p', durationSeconds: 12 }), 120_000],
    ['7 s 480p: 0.5×7×0.5 = 1.75', priced({ resolution: '480p', durationSeconds: 7 }), 17_500],
  ])('%s yuan', (_label, request, units) => {
    expect(costUnits(model, request)).toBe(units);
  });
});

describe('seedance-1.0-lite-i2v (per_call 2.5 × quality 1.2 = 3 yuan)', () => {
  const model = catalogModel(LITE);

  it.each([5, 6, 10, 15, 30])('%s s costs 3 yuan: the duration does not change the cost', (durationSeconds) => {
    expect(costUnits(model, priced({ durationSeconds }))).toBe(30_000);
  });

  it.each(RESOLUTIONS)('%s costs 3 yuan: no resolution multiplier in per_call', (resolution) => {
    expect(costUnits(model, priced({ resolution }))).toBe(30_000);
  });

  it('audio and references add nothing in per_call, even with a material surcharge configured', () => {
    const withSurcharge = catalogVideoModel({
      ...catalogRecord(LITE),
      pricing: { ...(catalogRecord(LITE).pricing as object), material_surcharge: '1', audio_extra: '2' },
    });
    const request = priced({ generateAudio: true, videoReferenceCount: 3, audioReferenceCount: 3 });
    expect(costUnits(withSurcharge, request)).toBe(30_000);
  });
});

describe('rounding half up to 0.0001 yuan, once per product', () => {
  const perSecond = (pricePerSecond: string, multiplier: string) =>
    buildModel({
      pricing: {
        price_per_second: pricePerSecond,
        resolution_multipliers: { '720p': multiplier },
        audio_extra: '0',
        material_surcharge: '0',
      },
    });

  it.each([
    // price units × seconds × multiplier = exact product → rounded
    ['0.0001', 5, '0.5', 3], // 2.5 → 3 (half up, not half even)
    ['0.0001', 7, '0.5', 4], // 3.5 → 4
    ['0.0001', 5, '0.1', 1], // 0.5 → 1
    ['0.0001', 5, '0.099999', 0], // 0.499995 → 0
    ['0.0001', 6, '0.5', 3], // 3 exactly: rounded once for the product, not per second (6 × 1)
    ['0.0001', 5, '1.33333', 7], // 6.66665 → 7
    ['0.0001', 7, '1.33333', 9], // 9.33331 → 9
    ['0.0003', 5, '1.33333', 20], // 19.99995 → 20
    ['0.6', 5, '1.33333', 40_000], // 39999.9 → 40000
    ['0.001', 5, '1.15', 58], // 57.5 → 58 (50 × 1.15 in floats is 57.49999999999999)
    ['0.0007', 13, '0.000001', 0], // 0.000091 → 0
    ['9999.9999', 30, '999.999999', 2_999_999_967_000], // 2999999967000.00003 → 2999999967000
  ])('%s yuan/s × %s s × %s → %s units', (price, seconds, multiplier, units) => {
    expect(costUnits(perSecond(price, multiplier), priced({ durationSeconds: seconds }))).toBe(units);
  });

  it('the float formula would be wrong where the exact one is right', () => {
    expect(Math.round(50 * 1.15)).toBe(57);
    expect(costUnits(perSecond('0.001', '1.15'), priced())).toBe(58);
  });

  it('audio extra and material surcharge are added as whole units after rounding', () => {
    const model = buildModel({
      pricing: {
        price_per_second: '0.0001',
        resolution_multipliers: { '720p': '0.5' },
        audio_extra: '0.0001',
        material_surcharge: '0.0001',
      },
    });
    // round(2.5) = 3, + 1 audio + 2 × 1 material
    expect(costUnits(model, priced({ generateAudio: true, videoReferenceCount: 1, audioReferenceCount: 1 }))).toBe(6);
  });

  it.each([
    ['0.0005', '1.5', 8], // 7.5 → 8
    ['0.0003', '0.5', 2], // 1.5 → 2
    ['0.0001', '0.499999', 0], // 0.499999 → 0
    ['2.5', '1.33333', 33_333], // 33333.25 → 33333
    ['2.5', '1.00002', 25_001], // 25000.5 → 25001
  ])('per_call %s yuan × quality %s → %s units', (price, quality, units) => {
    const model = catalogVideoModel({
      ...catalogRecord(LITE),
      pricing: { ...(catalogRecord(LITE).pricing as object), price_per_call: price, quality_multiplier: quality },
    });
    expect(costUnits(model, priced())).toBe(units);
  });
});

describe('a resolution without a price', () => {
  it('a per_second model with no multiplier for the resolution throws UnpricedResolutionError', () => {
    const model = buildModel({ pricing: { resolution_multipliers: { '720p': '1' } } });
    expect(() => costUnits(model, priced({ resolution: '1080p' }))).toThrow(UnpricedResolutionError);
    expect(() => costUnits(model, priced({ resolution: '1080p' }))).toThrow('test-model has no price for 1080p');
  });
});

/* ------------------------------------------------------------------------------------------------ */
/* Property: the cost equals an independent BigInt computation from the catalog's decimal strings.   */
/* ------------------------------------------------------------------------------------------------ */

interface RawPricing {
  price_per_call: string;
  price_per_second: string;
  resolution_multipliers: Partial<Record<Resolution, string>>;
  audio_extra: string;
  material_surcharge: string;
  quality_multiplier: string;
}

function yuanToBigUnits(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * 10_000n + BigInt(fraction.padEnd(4, '0'));
}

/** value × decimal text, rounded half up, all in BigInt. */
function timesDecimal(value: bigint, decimal: string): bigint {
  const [whole = '0', fraction = ''] = decimal.split('.');
  const scaled = BigInt(`${whole}${fraction}`);
  const denominator = 10n ** BigInt(fraction.length);
  const product = value * scaled;
  const quotient = product / denominator;
  return (product % denominator) * 2n >= denominator ? quotient + 1n : quotient;
}

function referenceCost(mode: string, pricing: RawPricing, request: PricedRequest): bigint {
  if (mode === 'per_call') return timesDecimal(yuanToBigUnits(pricing.price_per_call), pricing.quality_multiplier);
  const multiplier = pricing.resolution_multipliers[request.resolution] as string;
  const base = timesDecimal(yuanToBigUnits(pricing.price_per_second) * BigInt(request.durationSeconds), multiplier);
  const audio = request.generateAudio ? yuanToBigUnits(pricing.audio_extra) : 0n;
  const references = BigInt(request.videoReferenceCount + request.audioReferenceCount);
  return base + audio + yuanToBigUnits(pricing.material_surcharge) * references;
}

const EVERY_DURATION = Array.from({ length: 26 }, (_, i) => 5 + i);

/** Every priced request a model allows: each duration given, supported resolution, audio on/off, 0..3 refs. */
function* requestsFor(model: VideoModel, durations: readonly number[] = EVERY_DURATION): Generator<PricedRequest> {
  for (const durationSeconds of durations) {
    for (const resolution of supportedResolutions(model)) {
      for (const generateAudio of [false, true]) {
        for (let videos = 0; videos <= 3; videos += 1) {
          for (const audios of [0, 3]) {
            yield {
              resolution,
              durationSeconds,
              generateAudio,
              videoReferenceCount: videos,
              audioReferenceCount: audios,
            };
          }
        }
      }
    }
  }
}

/** A small deterministic PRNG (mulberry32), so the sweep is the same on every run. */
function randomSource(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * below);
  };
}

function randomDecimal(next: (below: number) => number, maxWhole: number, maxDigits: number): string {
  const digits = next(maxDigits + 1);
  const fraction = digits === 0 ? '' : `.${String(next(10 ** digits)).padStart(digits, '0')}`;
  return `${next(maxWhole + 1)}${fraction}`;
}

describe('property: cost never uses floats (BigInt reference over many requests)', () => {
  it.each(catalogRecords().map((record) => [record.name as string, record] as const))(
    'catalog model %s: every duration, resolution, audio and reference count',
    (_name, record) => {
      const model = catalogVideoModel(record);
      let checked = 0;
      for (const request of requestsFor(model)) {
        const units = costUnits(model, request);
        expect(Number.isSafeInteger(units)).toBe(true);
        expect(BigInt(units)).toBe(referenceCost(model.record.billing_mode, record.pricing as RawPricing, request));
        checked += 1;
      }
      expect(checked).toBeGreaterThan(100);
    },
  );

  it('150 random models with awkward prices and multipliers', () => {
    const MADE = ['480p', '720p', '1080p'] as const;
    const next = randomSource(20_261_121);
    let mismatches = 0;
    let checked = 0;
    for (let i = 0; i < 150; i += 1) {
      const perCall = i % 5 === 0;
      const pricing: RawPricing = {
        price_per_call: randomDecimal(next, 999, 4),
        price_per_second: randomDecimal(next, 99, 4),
        // Every resolution the upstream models make (a record may not price one they do not).
        resolution_multipliers: Object.fromEntries(
          MADE.map((resolution) => [resolution, `${1 + next(9)}.${String(next(1_000_000)).padStart(6, '0')}`]),
        ),
        audio_extra: randomDecimal(next, 9, 4),
        material_surcharge: randomDecimal(next, 9, 4),
        quality_multiplier: randomDecimal(next, 9, 6),
      };
      // The durations are priced whatever the model allows: the formula takes any.
      const record = { ...catalogRecord(perCall ? LITE : PRO), name: `random-${i}`, pricing };
      const model = catalogVideoModel(record);
      for (const request of requestsFor(model, [5, 7, 11, 13, 29, 30])) {
        const expected = referenceCost(model.record.billing_mode, pricing, request);
        if (BigInt(costUnits(model, request)) !== expected) mismatches += 1;
        checked += 1;
      }
    }
    expect(mismatches).toBe(0);
    // 120 per_second models × 6 durations × 3 resolutions × 16, and 30 per_call ones × 6 × 1 × 16.
    expect(checked).toBe(120 * 6 * 3 * 16 + 30 * 6 * 16);
  });
});

describe("the cost's parts", () => {
  it('add up to the cost exactly, for every catalog model, resolution, duration, audio and reference count', () => {
    for (const record of catalogRecords()) {
      const model = catalogVideoModel(record);
      for (const resolution of supportedResolutions(model, undefined)) {
        for (const durationSeconds of [5, 7, 12]) {
          for (const generateAudio of model.upstream.audio ? [false, true] : [false]) {
            const request = priced({
              resolution,
              durationSeconds,
              generateAudio,
              videoReferenceCount: 1,
              audioReferenceCount: 1,
            });
            expect(sumOfParts(costParts(model, request)), String(record.name)).toBe(costUnits(model, request));
          }
        }
      }
    }
  });

  it('seedance-1.5-pro, 5 s at 1080p with sound: base 3, resolution 3.75, audio 1.2', () => {
    const parts = costParts(catalogModel(PRO), priced({ resolution: '1080p', generateAudio: true }));
    expect(parts).toEqual({ baseUnits: 30_000, resolutionUnits: 37_500, audioUnits: 12_000, surchargeUnits: 0 });
  });

  it('480p is a negative resolution part; a per_call model has its quality multiplier there', () => {
    expect(costParts(catalogModel(PRO), priced({ resolution: '480p' })).resolutionUnits).toBe(-15_000);
    expect(costParts(catalogModel(LITE), priced())).toEqual({
      baseUnits: 25_000,
      resolutionUnits: 5_000,
      audioUnits: 0,
      surchargeUnits: 0,
    });
  });
});
