/**
 * The MP4 label's rewrite, property-tested over generated layouts (docs/compliance.md, "The implicit label"): the
 * result parses, its label reads back, mdat and every chunk's samples are where its offsets say, streaming in any
 * chunk sizes gives the whole-buffer result while holding no more than moov and a box header.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AigcLabel,
  aigcLabel,
  labelMp4,
  labelMp4Stream,
  type Mp4LabelError,
  Mp4Labeller,
  readAigcLabel,
  readAigcLabelFromStream,
} from '../../../functions/core/mp4-label/index.js';
import { buildMp4, chunkOffsets, join, type Layout, layouts, walk } from './mp4-layouts.js';

const ours = aigcLabel({
  Label: '1',
  ContentProducer: 'OUR-CODE',
  ProduceID: 'task_01',
  ContentPropagator: 'OUR-CODE',
  PropagateID: 'video_01',
});

/** The upstream's producer elements survive when its file carries a label with a producer. */
function expectedLabel(layout: Layout): AigcLabel {
  const existing =
    layout.metadata.kind === 'mdta' && layout.metadata.aigc ? JSON.parse(layout.metadata.aigc) : undefined;
  if (!existing?.ContentProducer) return ours;
  return { ...ours, ContentProducer: existing.ContentProducer, ProduceID: existing.ProduceID ?? '', ReservedCode1: '' };
}

/** Splits `bytes` at the given cut points (any, sorted here). */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  return [0, ...points].map((from, index) => bytes.slice(from, points[index] ?? bytes.length));
}

const mdatPayload = (bytes: Uint8Array) => {
  const mdat = walk(bytes).find((found) => found.type === 'mdat')!;
  return bytes.subarray(mdat.payload, mdat.end);
};
const moovSize = (bytes: Uint8Array) => {
  const moov = walk(bytes).find((found) => found.type === 'moov')!;
  return moov.end - moov.start;
};

describe('the MP4 label rewrite', () => {
  it('labels any layout: it parses, reads back, and every sample stays where its offsets point', () => {
    fc.assert(
      fc.property(layouts, (layout) => {
        const input = buildMp4(layout);
        const { bytes, label } = labelMp4(input, ours);
        expect(walk(bytes).map((found) => found.type)).toEqual(walk(input).map((found) => found.type));
        expect(label).toEqual(expectedLabel(layout));
        expect(readAigcLabel(bytes)).toEqual(label);
        expect(mdatPayload(bytes)).toEqual(mdatPayload(input));
        const before = chunkOffsets(input);
        const after = chunkOffsets(bytes);
        layout.tracks.forEach(({ chunks }, track) =>
          chunks.forEach((chunk, index) => {
            expect(input.subarray(before[track]![index]!, before[track]![index]! + chunk.length)).toEqual(chunk);
            expect(bytes.subarray(after[track]![index]!, after[track]![index]! + chunk.length)).toEqual(chunk);
          }),
        );
        if (!layout.moovFirst) expect(after).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });

  it('labels the same in any chunk sizes as whole, holding at most moov and a box header', () => {
    fc.assert(
      fc.property(layouts, fc.array(fc.nat(), { maxLength: 40 }), (layout, cuts) => {
        const input = buildMp4(layout);
        const labeller = new Mp4Labeller(ours);
        const out: Uint8Array[] = [];
        for (const chunk of split(input, cuts)) {
          out.push(...labeller.push(chunk));
          expect(labeller.held).toBeLessThanOrEqual(moovSize(input) + 16);
        }
        out.push(...labeller.end());
        expect(join(out)).toEqual(labelMp4(input, ours).bytes);
      }),
      { numRuns: 300 },
    );
  });

  it('relabelling keeps one AIGC entry: the same bytes again', () => {
    fc.assert(
      fc.property(layouts, (layout) => {
        const once = labelMp4(buildMp4(layout), ours).bytes;
        expect(labelMp4(once, ours).bytes).toEqual(once);
      }),
      { numRuns: 100 },
    );
  });

  it('reads the label from a stream, holding only moov', async () => {
    const layout = fc.sample(layouts, { numRuns: 1, seed: 7 })[0]!;
    const labelled = labelMp4(buildMp4(layout), ours).bytes;
    async function* chunks() {
      yield* split(labelled, [5, 50, 51, 300]);
    }
    expect(await readAigcLabelFromStream(chunks())).toEqual(readAigcLabel(labelled));
  });
});

describe('a file it cannot label', () => {
  const layout: Layout = {
    tracks: [{ chunks: [new Uint8Array(64).fill(7)], co64: false }],
    moovFirst: true,
    largeMdat: false,
    largeMoov: false,
    padding: [0, 0, 0],
    metadata: { kind: 'none' },
  };
  const input = buildMp4(layout);
  async function collect(source: Uint8Array, options: Parameters<typeof labelMp4Stream>[2]) {
    async function* chunks() {
      yield* split(source, [3, 20, 100]);
    }
    const out: Uint8Array[] = [];
    for await (const chunk of labelMp4Stream(chunks(), ours, options)) out.push(chunk);
    return join(out);
  }

  it('refuses a moov past the limit, or passes the file through byte for byte and says why', async () => {
    await expect(collect(input, { maxMoovBytes: 64 })).rejects.toMatchObject({ failure: 'moov-too-large' });
    const told: Mp4LabelError[] = [];
    const out = await collect(input, {
      maxMoovBytes: 64,
      unlabellable: 'pass-through',
      onUnlabelled: (error) => told.push(error),
    });
    expect(out).toEqual(input);
    expect(told.map((error) => error.failure)).toEqual(['moov-too-large']);
  });

  it('refuses what is not an MP4, a file cut short, and one without moov', async () => {
    const html = new TextEncoder().encode('<!DOCTYPE html><html></html>');
    await expect(collect(html, {})).rejects.toMatchObject({ failure: 'not-mp4' });
    await expect(collect(input.subarray(0, input.length - 10), {})).rejects.toMatchObject({ failure: 'truncated' });
    const noMoov = join(
      walk(input)
        .filter((found) => found.type !== 'moov')
        .map((found) => input.subarray(found.start, found.end)),
    );
    await expect(collect(noMoov, {})).rejects.toMatchObject({ failure: 'no-moov' });
    for (const source of [html, noMoov]) {
      expect(await collect(source, { unlabellable: 'pass-through' })).toEqual(source);
    }
    // Cut inside mdat after a fast-start moov: labelled by then, the stream still says it ended short.
    const told: string[] = [];
    const cut = input.subarray(0, input.length - 10);
    const out = await collect(cut, { unlabellable: 'pass-through', onUnlabelled: (error) => told.push(error.failure) });
    expect(told).toEqual(['truncated']);
    expect(out.length - cut.length).toBe(labelMp4(input, ours).bytes.length - input.length);
  });

  it('refuses a Label value the standard does not define', () => {
    expect(() => aigcLabel({ Label: '4', ContentProducer: 'x' })).toThrow(RangeError);
  });
});
