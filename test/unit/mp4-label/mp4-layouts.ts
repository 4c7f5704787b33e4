/**
 * Synthetic MP4 files for the label's property tests, built and read here independently of the module under
 * test: ftyp, moov with 1–3 tracks (stco or co64), free/skip boxes, mdat with 8- or 16-byte headers, moov before
 * or after mdat, with no metadata, iTunes (mdir) metadata, or QuickTime keys (mdta) with or without AIGC.
 */
import fc from 'fast-check';

const latin1 = (type: string) => Uint8Array.from(type, (char) => char.charCodeAt(0));
const u32 = (value: number) => {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value);
  return bytes;
};
const u64 = (value: number) => {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(value));
  return bytes;
};
export const join = (parts: readonly Uint8Array[]) => Uint8Array.from(parts.flatMap((part) => [...part]));
const box = (type: string | Uint8Array, parts: Uint8Array[], large = false) => {
  const payload = parts.reduce((sum, part) => sum + part.length, 0);
  const name = typeof type === 'string' ? latin1(type) : type;
  return large ? join([u32(1), name, u64(payload + 16), ...parts]) : join([u32(payload + 8), name, ...parts]);
};
const utf8 = (text: string) => new TextEncoder().encode(text);

export type Metadata =
  | { kind: 'none' }
  | { kind: 'udta-empty' }
  | { kind: 'mdir' }
  | { kind: 'mdta'; where: 'udta' | 'moov'; otherKeys: string[]; aigc?: string };

export interface Layout {
  /** Per track: its chunks' sample bytes, and whether it uses co64. */
  tracks: { chunks: Uint8Array[]; co64: boolean }[];
  moovFirst: boolean;
  largeMdat: boolean;
  largeMoov: boolean;
  /** free/skip boxes before and after the first of moov and mdat, and at the end. */
  padding: [number, number, number];
  metadata: Metadata;
}

function metadataBoxes(metadata: Metadata): { udta: Uint8Array[]; moov: Uint8Array[] } {
  const hdlr = (handler: string) => box('hdlr', [new Uint8Array(8), latin1(handler), new Uint8Array(12), utf8('\0')]);
  const data = (value: string) => box('data', [u32(1), u32(0), utf8(value)]);
  if (metadata.kind === 'none') return { udta: [], moov: [] };
  if (metadata.kind === 'udta-empty') return { udta: [box('udta', [])], moov: [] };
  if (metadata.kind === 'mdir') {
    const ilst = box('ilst', [box(join([Uint8Array.of(0xa9), latin1('too')]), [data('Lavf59.27.100')])]);
    return { udta: [box('udta', [box('meta', [new Uint8Array(4), hdlr('mdir'), ilst])])], moov: [] };
  }
  const entries = [
    ...metadata.otherKeys.map((key) => [key, `value of ${key}`]),
    ...(metadata.aigc ? [['AIGC', metadata.aigc]] : []),
  ];
  const keys = box('keys', [
    new Uint8Array(4),
    u32(entries.length),
    ...entries.map(([key]) => join([u32(utf8(key!).length + 8), latin1('mdta'), utf8(key!)])),
  ]);
  const ilst = box(
    'ilst',
    entries.map(([, value], index) => box(u32(index + 1), [data(value!)])),
  );
  if (metadata.where === 'moov') return { udta: [], moov: [box('meta', [hdlr('mdta'), keys, ilst])] };
  return { udta: [box('udta', [box('meta', [new Uint8Array(4), hdlr('mdta'), keys, ilst])])], moov: [] };
}

function moovBox(layout: Layout, offsets: number[][]): Uint8Array {
  const { udta, moov } = metadataBoxes(layout.metadata);
  const traks = layout.tracks.map(({ co64 }, track) => {
    const entries = offsets[track]!.map((offset) => (co64 ? u64(offset) : u32(offset)));
    const table = box(co64 ? 'co64' : 'stco', [new Uint8Array(4), u32(entries.length), ...entries]);
    const stbl = box('stbl', [box('stsd', [new Uint8Array(8)]), table]);
    const mdia = box('mdia', [box('mdhd', [new Uint8Array(24)]), box('minf', [stbl])]);
    return box('trak', [box('tkhd', [new Uint8Array(84)]), mdia]);
  });
  return box('moov', [box('mvhd', [new Uint8Array(100)]), ...traks, ...moov, ...udta], layout.largeMoov);
}

/** The file, and where each chunk's bytes sit in it. */
export function buildMp4(layout: Layout): Uint8Array {
  const samples = layout.tracks.flatMap(({ chunks }) => chunks);
  const mdat = box('mdat', samples, layout.largeMdat);
  const mdatHeader = layout.largeMdat ? 16 : 8;
  const pad = (count: number, seed: number) =>
    Array.from({ length: count }, (_, index) =>
      box((seed + index) % 2 ? 'free' : 'skip', [new Uint8Array((seed + index) % 5)]),
    );
  const ftyp = box('ftyp', [latin1('isom'), u32(512), latin1('isomiso2avc1mp41')]);
  const assemble = (offsets: number[][]) => {
    const moov = moovBox(layout, offsets);
    const [first, second] = layout.moovFirst ? [moov, mdat] : [mdat, moov];
    return [
      ftyp,
      ...pad(layout.padding[0], 0),
      first,
      ...pad(layout.padding[1], 1),
      second,
      ...pad(layout.padding[2], 2),
    ];
  };
  // Sizes do not depend on the offsets' values: lay out once with zeros, then with the real ones.
  const draft = assemble(layout.tracks.map(({ chunks }) => chunks.map(() => 0)));
  const mdatAt = draft.slice(0, draft.indexOf(mdat)).reduce((sum, part) => sum + part.length, 0) + mdatHeader;
  let at = mdatAt;
  const offsets = layout.tracks.map(({ chunks }) =>
    chunks.map((chunk) => {
      const offset = at;
      at += chunk.length;
      return offset;
    }),
  );
  return join(assemble(offsets));
}

export const layouts: fc.Arbitrary<Layout> = fc.record({
  tracks: fc.array(
    fc.record({
      chunks: fc.array(fc.uint8Array({ minLength: 1, maxLength: 24 }), { minLength: 1, maxLength: 4 }),
      co64: fc.boolean(),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  moovFirst: fc.boolean(),
  largeMdat: fc.boolean(),
  largeMoov: fc.boolean(),
  padding: fc.tuple(fc.nat(2), fc.nat(2), fc.nat(2)),
  metadata: fc.oneof(
    fc.constant<Metadata>({ kind: 'none' }),
    fc.constant<Metadata>({ kind: 'udta-empty' }),
    fc.constant<Metadata>({ kind: 'mdir' }),
    fc.record({
      kind: fc.constant('mdta' as const),
      where: fc.constantFrom('udta' as const, 'moov' as const),
      otherKeys: fc.uniqueArray(fc.constantFrom('major_brand', 'encoder', 'com.apple.quicktime.make'), {
        maxLength: 3,
      }),
      aigc: fc.option(
        fc
          .record({
            Label: fc.constantFrom('1', '2'),
            ContentProducer: fc.string({ maxLength: 8 }),
            ProduceID: fc.string({ maxLength: 8 }),
          })
          .map((label) => JSON.stringify(label)),
        { nil: undefined },
      ),
    }),
  ),
});

/** A plain walk of boxes, for the checks. */
export function walk(bytes: Uint8Array, start = 0, end = bytes.length) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const boxes: { type: string; start: number; payload: number; end: number }[] = [];
  for (let at = start; at < end;) {
    let size = view.getUint32(at);
    let header = 8;
    if (size === 1) [size, header] = [Number(view.getBigUint64(at + 8)), 16];
    if (size < header || at + size > end) throw new Error(`box at ${at} overruns`);
    boxes.push({
      type: String.fromCharCode(...bytes.subarray(at + 4, at + 8)),
      start: at,
      payload: at + header,
      end: at + size,
    });
    at += size;
  }
  return boxes;
}

/** Each track's chunk offsets, in order. */
export function chunkOffsets(bytes: Uint8Array): number[][] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const child = (parent: { payload: number; end: number }, type: string) =>
    walk(bytes, parent.payload, parent.end).filter((found) => found.type === type);
  const moov = walk(bytes).find((found) => found.type === 'moov')!;
  return child(moov, 'trak').map((trak) => {
    const stbl = child(child(child(trak, 'mdia')[0]!, 'minf')[0]!, 'stbl')[0]!;
    const table = walk(bytes, stbl.payload, stbl.end).find((found) => found.type === 'stco' || found.type === 'co64')!;
    const wide = table.type === 'co64';
    return Array.from({ length: view.getUint32(table.payload + 4) }, (_, index) => {
      const at = table.payload + 8 + index * (wide ? 8 : 4);
      return wide ? Number(view.getBigUint64(at)) : view.getUint32(at);
    });
  });
}
