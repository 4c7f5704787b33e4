/**
 * Two readings of Ark's documentation must agree (docs/providers/ark.md): every submit the gateway accepts, for
 * every seeded model, goes through the real adapter to the simulator (which keeps its own rule table) and
 * is accepted there, on both platforms. fast-check draws the submits; refused ones are counted, not sent.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArkVideoProvider } from '../../functions/providers/ark/video-provider.js';
import { ARK_PLATFORMS } from '../../functions/providers/ark/contract.js';
import { IMAGE_MODES } from '../../functions/core/provider-contract.js';
import type { ArkPlatform } from '../../functions/providers/ark/contract.js';
import { InvalidRequestError } from '../../functions/core/api-error.js';
import { RATIOS, RESOLUTIONS } from '../../functions/core/generation-options.js';
import { parseGenerationBody } from '../../functions/core/generation-request.js';
import { resolveGeneration } from '../../functions/core/resolve-generation.js';
import { startUpstreamSimulator } from '../../lib/dev/simulators/ark/simulator.js';
import type { UpstreamSimulator } from '../../lib/dev/simulators/ark/simulator.js';
import { catalogModel, catalogRecords } from '../unit/support.js';
import { mediaServer } from '../support/media-server.js';

const API_KEY = 'agreement-key';
const MODELS = catalogRecords()
  .filter((record) => (record.upstream as { provider: string }).provider === 'ark')
  .map((record) => String(record.name));
/** Real files the simulator can download (it fetches every reference); set before the first test. */
let media = '';
const FILES: Readonly<Record<string, string>> = { image: 'png', video: 'mp4', audio: 'mp3' };
const url = (kind: string) => (index: number) => `${media}/${FILES[kind]}?n=${index}`;

/** Options drawn from around (and beyond) what the API allows; each one often left out, references rarer. */
const leftOut = (weight: number) => ({ arbitrary: fc.constant(undefined), weight });
const often = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof(leftOut(1), { arbitrary, weight: 1 });
const rarely = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof(leftOut(3), { arbitrary, weight: 1 });
const submit = fc.record({
  resolution: often(fc.constantFrom(...RESOLUTIONS)),
  ratio: often(fc.constantFrom(...RATIOS)),
  duration: often(fc.integer({ min: 5, max: 30 })),
  generate_audio: rarely(fc.boolean()),
  image_mode: often(fc.constantFrom(...IMAGE_MODES)),
  images: often(fc.constantFrom(1, 1, 1, 2, 2, 3, 4, 9)),
  videos: rarely(fc.integer({ min: 1, max: 3 })),
  audios: rarely(fc.integer({ min: 1, max: 3 })),
  seed: rarely(fc.integer({ min: -1, max: 4_294_967_295 })),
});

function body(model: string, drawn: typeof submit extends fc.Arbitrary<infer T> ? T : never) {
  const { images, videos, audios, ...options } = drawn;
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  return {
    model,
    prompt: 'A lighthouse at dusk',
    ...given,
    ...(images ? { image_urls: Array.from({ length: images }, (_, i) => url('image')(i)) } : {}),
    ...(videos ? { video_urls: Array.from({ length: videos }, (_, i) => url('video')(i)) } : {}),
    ...(audios ? { audio_urls: Array.from({ length: audios }, (_, i) => url('audio')(i)) } : {}),
  };
}

describe.each(ARK_PLATFORMS)('every submit the gateway accepts, Ark (%s) accepts', (platform: ArkPlatform) => {
  let simulator: UpstreamSimulator;
  let provider: ArkVideoProvider;

  beforeAll(async () => {
    media = await mediaServer();
    // Jobs finish at once, so the 120-unfinished-jobs cap never comes into play here.
    simulator = await startUpstreamSimulator({ platform, apiKey: API_KEY, queuedMs: 0, runningMs: 0 });
    provider = new ArkVideoProvider({ platform, baseUrl: simulator.baseUrl, apiKey: API_KEY });
  });
  afterAll(() => simulator.close());

  it.each(MODELS)('%s', async (name) => {
    const model = catalogModel(name);
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(submit, fc.integer({ min: 3600, max: 259_200 }), async (drawn, expiresAfterSeconds) => {
        let generation;
        try {
          generation = resolveGeneration(parseGenerationBody(body(name, drawn)), model);
        } catch (error) {
          if (error instanceof InvalidRequestError) return;
          throw error;
        }
        accepted += 1;
        const { modelId: _id, modelName: _name, webhookUrl: _hook, costUnits: _cost, ...request } = generation;
        const { jobId } = await provider.createJob({
          ...request,
          upstreamModel: model.record.upstream.model,
          expiresAfterSeconds,
          account: 'default',
        });
        expect(jobId).toMatch(/^cgt-/);
      }),
      { numRuns: 1000 },
    );
    // The property says nothing if the gateway refused nearly everything drawn.
    expect(accepted).toBeGreaterThan(30);
  });
});
