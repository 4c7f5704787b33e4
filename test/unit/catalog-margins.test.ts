/**
 * Prices never fall below Ark's cost (docs/money-and-ledger.md, "Margins"): every option set the gateway accepts for each
 * seeded model (lib/ship/seed/model-catalog.json), on each Ark platform, against Ark's per-token prices
 * (lib/ship/seed/upstream-prices.json). Ark bills width × height × frames / 1024 tokens, frames = 24 × (output
 * + input video seconds) + 1; a request with reference videos counts Ark's 15 s maximum of input video.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ARK_PLATFORMS } from '../../functions/providers/ark/contract.js';
import { platformsOf } from '../../functions/providers/registry.js';
import type { ProviderName } from '../../functions/providers/registry.js';
import type { Ratio, Resolution } from '../../functions/core/generation-options.js';
import { catalogVideoModel } from '../../functions/providers/registry.js';
import type { VideoModel } from '../../functions/core/video-model.js';
import { optionSets } from '../../lib/ship/admin/margins.js';
import type { OptionSet } from '../../lib/ship/admin/margins.js';
import { readUpstreamPrices, upstreamCostUnits } from '../../lib/ship/admin/upstream-cost.js';
import type { CostedRequest, UpstreamPrices } from '../../lib/ship/admin/upstream-cost.js';
import { catalogRecord, catalogRecords, LITE, LITE_T2V, PRO, V2, V2_FAST } from './support.js';

const PRICES = readUpstreamPrices();
const ALL_RATIOS: readonly Ratio[] = ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'];
/** Sweeping 2.0's 12,672 option sets takes a couple of seconds. */
// Generous: it only ends a sweep that never ends, on a machine other work shares (docs/testing.md).
const SWEEP_MS = 240_000;

const describeSet = (set: OptionSet) =>
  `${set.model} ${set.platform} ${set.resolution} ${set.ratio} ${set.duration}s audio=${set.generateAudio} ` +
  `videos=${set.videos} audios=${set.audios}: price ${set.priceUnits} < cost ${set.costUnits}`;

const belowCost = (sets: readonly OptionSet[]) => sets.filter((set) => set.priceUnits < set.costUnits);

/** A copy of a seeded model under another name, with some of its prices replaced. */
function repriced(name: string, pricing: Record<string, string>): VideoModel {
  const record = catalogRecord(name);
  return catalogVideoModel({
    ...record,
    name: `${name}-repriced`,
    pricing: { ...(record.pricing as Record<string, unknown>), ...pricing },
  });
}

function costed(overrides: Partial<CostedRequest> = {}): CostedRequest {
  return {
    upstreamModel: 'seedance-2-0',
    platform: 'volcengine',
    resolution: '720p',
    ratio: '16:9',
    durationSeconds: 5,
    generateAudio: false,
    videoReferenceCount: 0,
    ...overrides,
  };
}

describe("upstreamCostUnits: Ark's cost in units of 0.0001 CNY, rounded up", () => {
  it.each<[string, Partial<CostedRequest>, number]>([
    // 1280×720×121/1024 = 108,900 tokens (the official example's 5 s 720p) × 46 CNY/M = 5.0094 CNY
    ['2.0 720p 16:9 5 s on volcengine', {}, 50_094],
    // 2.0 has one rate with or without sound
    ['2.0 720p 16:9 5 s with sound', { generateAudio: true }, 50_094],
    // 108,900 tokens × 7.0 USD/M × 7.3 CNY/USD = 5.56479 CNY
    ['2.0 720p 16:9 5 s on byteplus', { platform: 'byteplus' }, 55_648],
    // 1920×1080×121/1024 = 245,025 tokens × 51 CNY/M = 12.496275 CNY
    ['2.0 1080p 16:9 5 s (the 1080p rate)', { resolution: '1080p' }, 124_963],
    // a reference video counts 15 s more: 24 × 20 + 1 = 481 frames, 432,900 tokens × 28 CNY/M = 12.1212 CNY
    ['2.0 720p 5 s with a reference video', { videoReferenceCount: 1 }, 121_212],
    // three videos cost as one: Ark's 15 s maximum is for all of them together
    ['2.0 720p 5 s with three reference videos', { videoReferenceCount: 3 }, 121_212],
    // 974,025 tokens × 31 CNY/M = 30.194775 CNY
    ['2.0 1080p 5 s with a reference video', { resolution: '1080p', videoReferenceCount: 1 }, 301_948],
    // 1112×834×121/1024 = 109,586.3 → 109,587 tokens × 46 = 5.041002 CNY → 50,410.02 units, rounded up
    ['2.0 720p 4:3 5 s (tokens and units both rounded up)', { ratio: '4:3' }, 50_411],
    // 1280×720×(24×15+1)/1024 = 324,900 tokens × 46 CNY/M = 14.9454 CNY
    ['2.0 720p 16:9 15 s', { durationSeconds: 15 }, 149_454],
    // 108,900 tokens × 37 CNY/M = 4.0293 CNY
    ['2.0 fast 720p 16:9 5 s', { upstreamModel: 'seedance-2-0-fast' }, 40_293],
    // 108,900 tokens × 18 CNY/M (the rate with sound) = 1.9602 CNY
    ['1.5 pro 720p 5 s with sound', { upstreamModel: 'seedance-1-5-pro', generateAudio: true }, 19_602],
    // 108,900 tokens × 9 CNY/M = 0.9801 CNY
    ['1.5 pro 720p 5 s without sound', { upstreamModel: 'seedance-1-5-pro' }, 9_801],
    // the 1.0 models' own sizes: 1248×704×121/1024 = 103,818 tokens × 10 CNY/M = 1.03818 CNY
    ['1.0 lite t2v 720p 16:9 5 s', { upstreamModel: 'seedance-1-0-lite-t2v' }, 10_382],
    // 1504×640×121/1024 = 113,740 tokens × 2.5 USD/M × 7.3 = 2.0757550 CNY
    [
      '1.0 lite i2v 720p 21:9 5 s on byteplus',
      { upstreamModel: 'seedance-1-0-lite-i2v', ratio: '21:9', platform: 'byteplus' },
      20_758,
    ],
  ])('%s → %s units', (_label, overrides, units) => {
    expect(upstreamCostUnits(PRICES, costed(overrides))).toBe(units);
  });

  it('is undefined for a model or a platform without a price', () => {
    expect(upstreamCostUnits(PRICES, costed({ upstreamModel: 'seedance-9-0' }))).toBeUndefined();
    const volcengineOnly: UpstreamPrices = {
      ...PRICES,
      models: { 'seedance-2-0': { volcengine: PRICES.models['seedance-2-0']!.volcengine! } },
    };
    expect(upstreamCostUnits(volcengineOnly, costed())).toBe(50_094);
    expect(upstreamCostUnits(volcengineOnly, costed({ platform: 'byteplus' }))).toBeUndefined();
  });

  it('throws for a resolution Ark has no output size for', () => {
    expect(() => upstreamCostUnits(PRICES, costed({ resolution: '2k' }))).toThrow(/no output size .* 2k/);
  });

  describe('which rate applies', () => {
    const rates = { default: 10, with_video_input: 30, '1080p': 40, '1080p_with_video_input': 50 };
    const table: UpstreamPrices = {
      updated: 'test',
      cny_per_usd: 7,
      models: {
        'seedance-2-0': {
          volcengine: { currency: 'CNY', per_million_tokens: rates, source: 'test', confirmed: true },
          byteplus: { currency: 'USD', per_million_tokens: { default: 1 }, source: 'test', confirmed: true },
        },
        'seedance-1-5-pro': {
          volcengine: {
            currency: 'CNY',
            per_million_tokens: { default: 10, with_audio: 20 },
            source: 'test',
            confirmed: true,
          },
        },
      },
    };

    it.each<[string, Partial<CostedRequest>, number]>([
      ['default: 108,900 tokens × 10', {}, 10_890],
      ['with sound: × 20', { upstreamModel: 'seedance-1-5-pro', generateAudio: true }, 21_780],
      ['without sound: × 10', { upstreamModel: 'seedance-1-5-pro', generateAudio: false }, 10_890],
      [
        'with a reference video: 432,900 tokens × 30, sound or not',
        { videoReferenceCount: 2, generateAudio: true },
        129_870,
      ],
      ['1080p: 245,025 tokens × 40', { resolution: '1080p' }, 98_010],
      ['1080p with a reference video: 974,025 tokens × 50', { resolution: '1080p', videoReferenceCount: 1 }, 487_013],
      ['a USD price at the table’s rate: 108,900 tokens × 1 × 7', { platform: 'byteplus' }, 7_623],
      [
        'a USD table without the special rates falls back to its default',
        { platform: 'byteplus', resolution: '1080p', videoReferenceCount: 1 },
        68_182,
      ],
    ])('%s → %s units', (_label, overrides, units) => {
      expect(upstreamCostUnits(table, costed(overrides))).toBe(units);
    });

    it('refuses a table that prices one model by both resolution and sound', () => {
      const both = {
        ...table,
        models: {
          'seedance-2-0': {
            volcengine: {
              currency: 'CNY' as const,
              per_million_tokens: { ...rates, with_audio: 20 },
              source: 'test',
              confirmed: true,
            },
          },
        },
      };
      expect(() => upstreamCostUnits(both, costed({}))).toThrow(/1080p rate beside an audio rate/);
    });
  });
});

describe('every seeded option set is priced at or above Ark’s cost (docs/money-and-ledger.md, "Margins")', () => {
  const models = catalogRecords().map((record) => catalogVideoModel(record));
  const sets = new Map<string, OptionSet[]>();

  beforeAll(() => {
    for (const model of models) sets.set(model.record.name, optionSets(model, PRICES));
  }, SWEEP_MS);

  it('no option set of any model is below cost, on either platform', () => {
    const below = [...sets.values()].flatMap(belowCost).map(describeSet);
    expect(below).toEqual([]);
  });

  it('every set is costed from the platform price of its own upstream model', () => {
    for (const model of models) {
      for (const set of sets.get(model.record.name) ?? []) {
        const cost = upstreamCostUnits(PRICES, {
          upstreamModel: model.record.upstream.model,
          platform: set.platform,
          resolution: set.resolution,
          ratio: set.ratio,
          durationSeconds: set.duration,
          generateAudio: set.generateAudio,
          videoReferenceCount: set.videos,
        });
        if (cost !== set.costUnits) expect.fail(`${describeSet(set)}: expected cost ${cost}`);
      }
    }
  });

  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const HD: Resolution[] = ['480p', '720p', '1080p'];
  it.each<[string, { resolutions: Resolution[]; durations: number[]; audio: boolean[]; references: number }]>([
    [LITE_T2V, { resolutions: HD, durations: range(5, 12), audio: [false], references: 0 }],
    [LITE, { resolutions: ['720p'], durations: [5], audio: [false], references: 0 }],
    [PRO, { resolutions: HD, durations: range(5, 12), audio: [false, true], references: 0 }],
    [V2, { resolutions: HD, durations: range(5, 15), audio: [false, true], references: 3 }],
    [V2_FAST, { resolutions: ['480p', '720p'], durations: range(5, 15), audio: [false, true], references: 3 }],
  ])('%s: the sets cover both platforms and every option it accepts, once each', (name, accepts) => {
    const found = sets.get(name) ?? [];
    const key = (set: Omit<OptionSet, 'model' | 'priceUnits' | 'costUnits'>) =>
      [set.platform, set.resolution, set.ratio, set.duration, set.generateAudio, set.videos, set.audios].join('|');
    const expected: string[] = [];
    for (const platform of ARK_PLATFORMS)
      for (const resolution of accepts.resolutions)
        for (const ratio of ALL_RATIOS)
          for (const duration of accepts.durations)
            for (const generateAudio of accepts.audio)
              for (const videos of range(0, accepts.references))
                for (const audios of range(0, accepts.references))
                  expected.push(key({ platform, resolution, ratio, duration, generateAudio, videos, audios }));
    expect(found.every((set) => set.model === name)).toBe(true);
    expect(found.map(key).sort()).toEqual(expected.sort());
  });

  it("the sets cover every model of the catalog, on each of its provider's platforms", () => {
    expect([...sets.keys()].sort()).toEqual(
      catalogRecords()
        .map((record) => String(record.name))
        .sort(),
    );
    for (const model of models) {
      const found = sets.get(model.record.name) ?? [];
      const platforms = platformsOf(model.record.upstream.provider as ProviderName);
      expect(new Set(found.map((set) => set.platform)), model.record.name).toEqual(new Set(platforms));
    }
  });

  it("a Wan set is costed per second at its region's price, a reference video as 5 s more", () => {
    const t2v = sets.get('wan2.7-t2v') ?? [];
    const hd = t2v.find((set) => set.platform === 'singapore' && set.resolution === '1080p' && set.duration === 10);
    // 1.100886 CNY/s × 10 s = 11.00886 CNY, rounded up to units of 0.0001; our price 0.9 × 1.5 × 10 = 13.5.
    expect(hd).toMatchObject({ costUnits: 110_089, priceUnits: 135_000 });
    const r2v = sets.get('wan2.7-r2v') ?? [];
    const withVideo = r2v.find(
      (set) => set.platform === 'beijing' && set.resolution === '720p' && set.duration === 5 && set.videos === 1,
    );
    // (5 + 5) s × 0.6 = 6 CNY; 0.9 × 5 + 6.7 = 11.2.
    expect(withVideo).toMatchObject({ costUnits: 60_000, priceUnits: 112_000 });
  });

  it("each set's price is what the gateway charges for it", () => {
    const v2 = sets.get(V2) ?? [];
    const find = (match: Partial<OptionSet>) =>
      v2.filter((set) => Object.entries(match).every(([field, value]) => set[field as keyof OptionSet] === value));
    // 1.4 × 5 = 7 yuan; with one reference video 7 + 18.5 = 25.5; at 1080p for 15 s 1.4 × 15 × 2.2 = 46.2
    const plain = { platform: 'volcengine', resolution: '720p', ratio: '16:9', duration: 5, audios: 0 } as const;
    expect(find({ ...plain, videos: 0 }).map((set) => set.priceUnits)).toEqual([70_000, 70_000]);
    expect(find({ ...plain, videos: 0, generateAudio: false })[0]?.costUnits).toBe(50_094);
    expect(find({ ...plain, videos: 1 }).map((set) => set.priceUnits)).toEqual([255_000, 255_000]);
    const hd = find({ resolution: '1080p', duration: 15, videos: 0, audios: 0 });
    expect(new Set(hd.map((set) => set.priceUnits))).toEqual(new Set([462_000]));
  });
});

describe('the check can fail', () => {
  it(
    'seedance-2.0 at 0.5 yuan/s instead of 1.4 is below cost',
    () => {
      const sets = optionSets(repriced(V2, { price_per_second: '0.5' }), PRICES);
      const below = belowCost(sets);
      expect(below.length).toBeGreaterThan(0);
      // 0.5 × 5 = 2.5 yuan against Ark's 5.0094 on volcengine
      expect(below).toContainEqual({
        model: 'seedance-2.0-repriced',
        platform: 'volcengine',
        resolution: '720p',
        ratio: '16:9',
        duration: 5,
        generateAudio: true,
        videos: 0,
        audios: 0,
        priceUnits: 25_000,
        costUnits: 50_094,
      });
    },
    SWEEP_MS,
  );

  it(
    'seedance-2.0 without its per-video surcharge is below cost, and only where reference videos are sent',
    () => {
      const below = belowCost(optionSets(repriced(V2, { material_surcharge: '0' }), PRICES));
      expect(below.length).toBeGreaterThan(0);
      expect(below.filter((set) => set.videos === 0).map(describeSet)).toEqual([]);
    },
    SWEEP_MS,
  );

  it('the per_call model: at 1.5 yuan a call it is below cost on byteplus at 21:9, at 2 it is not', () => {
    // Ark's dearest case: 1504×640×121/1024 = 113,740 tokens × 2.5 USD/M × 7.3 = 2.0758 CNY. With the quality
    // multiplier 1.2, 2 yuan a call sells at 2.4 (above) and 1.5 yuan at 1.8 (below).
    expect(belowCost(optionSets(repriced(LITE, { price_per_call: '2' }), PRICES))).toEqual([]);
    const below = belowCost(optionSets(repriced(LITE, { price_per_call: '1.5' }), PRICES));
    expect(below).toContainEqual(
      expect.objectContaining({ platform: 'byteplus', ratio: '21:9', priceUnits: 18_000, costUnits: 20_758 }),
    );
  });
});
