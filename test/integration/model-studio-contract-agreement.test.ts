/**
 * Two readings of Model Studio's documentation must agree (docs/providers/model-studio.md): every submit the gateway
 * accepts for a seeded Wan model goes through the real adapter to the simulator (its own rule table) and is
 * accepted there, in both regions. fast-check draws the submits; refused ones are counted, not sent.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../functions/core/api-error.js';
import { RATIOS, RESOLUTIONS } from '../../functions/core/generation-options.js';
import { parseGenerationBody } from '../../functions/core/generation-request.js';
import { IMAGE_MODES } from '../../functions/core/provider-contract.js';
import { resolveGeneration } from '../../functions/core/resolve-generation.js';
import { MODEL_STUDIO_BASE_URLS } from '../../functions/providers/model-studio/contract.js';
import type { ModelStudioRegion } from '../../functions/providers/model-studio/contract.js';
import { ModelStudioVideoProvider } from '../../functions/providers/model-studio/video-provider.js';
import { startModelStudioSimulator } from '../../lib/dev/simulators/model-studio/simulator.js';
import type { ModelStudioSimulator } from '../../lib/dev/simulators/model-studio/simulator.js';
import { catalogModel, catalogRecords } from '../unit/support.js';
import { mediaServer } from '../support/media-server.js';

const API_KEY = 'agreement-key';
const REGIONS = Object.keys(MODEL_STUDIO_BASE_URLS) as ModelStudioRegion[];
const MODELS = catalogRecords()
  .filter((record) => (record.upstream as { provider: string }).provider === 'model-studio')
  .map((record) => String(record.name));
/** Real files the simulator can download (it fetches every reference); set before the first test. */
let media = '';
const FILES: Readonly<Record<string, string>> = { image: 'png', video: 'mp4', audio: 'mp3' };
const url = (kind: string) => (index: number) => `${media}/${FILES[kind]}?n=${index}`;

const leftOut = (weight: number) => ({ arbitrary: fc.constant(undefined), weight });
const often = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof(leftOut(1), { arbitrary, weight: 1 });
const rarely = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof(leftOut(3), { arbitrary, weight: 1 });
const submit = fc.record({
  resolution: often(fc.constantFrom(...RESOLUTIONS)),
  ratio: often(fc.constantFrom(...RATIOS)),
  duration: often(fc.integer({ min: 5, max: 30 })),
  generate_audio: rarely(fc.boolean()),
  image_mode: often(fc.constantFrom(...IMAGE_MODES)),
  images: often(fc.constantFrom(1, 1, 1, 2, 2, 3, 4, 5, 9)),
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

it('the catalog sells Wan models', () => expect(MODELS.length).toBeGreaterThan(0));

describe.each(REGIONS)('every submit the gateway accepts, Model Studio (%s) accepts', (region) => {
  let simulator: ModelStudioSimulator;
  let provider: ModelStudioVideoProvider;

  beforeAll(async () => {
    media = await mediaServer();
    simulator = await startModelStudioSimulator({ region, apiKeys: [API_KEY], queuedMs: 0, runningMs: 0 });
    provider = new ModelStudioVideoProvider({ region, baseUrl: simulator.baseUrl, apiKey: API_KEY });
  });
  afterAll(() => simulator.close());

  it.each(MODELS)('%s', async (name) => {
    const model = catalogModel(name);
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(submit, async (drawn) => {
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
          expiresAfterSeconds: 3600,
          account: 'default',
        });
        expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
      }),
      { numRuns: 2000 },
    );
    expect(accepted).toBeGreaterThan(30);
  });
});
