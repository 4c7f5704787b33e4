/**
 * The codec of an MP4/MOV file's video track, read from its boxes (ISO/IEC 14496-12: moov → trak → mdia →
 * hdlr `vide` → minf → stbl → stsd, whose first sample entry's type names the codec). Enough to tell H.265
 * (`hvc1`/`hev1`) from H.264 (`avc1`/`avc3`) without running a probe.
 */

const CODECS: Record<string, string> = { hvc1: 'hevc', hev1: 'hevc', avc1: 'h264', avc3: 'h264' };

interface Box {
  type: string;
  /** The box's payload (after its header). */
  start: number;
  end: number;
}

function* boxes(bytes: Uint8Array, start: number, end: number): Generator<Box> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = start;
  while (at + 8 <= end) {
    let size = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) return;
      size = Number(view.getBigUint64(at + 8));
      header = 16;
    } else if (size === 0) {
      size = end - at;
    }
    if (size < header || at + size > end) return;
    yield { type, start: at + header, end: at + size };
    at += size;
  }
}

/** The video track's codec: `hevc`, `h264`, another sample entry type as it is, or undefined without one. */
export function mp4VideoCodec(bytes: Uint8Array): string | undefined {
  for (const moov of boxes(bytes, 0, bytes.length)) {
    if (moov.type !== 'moov') continue;
    for (const trak of boxes(bytes, moov.start, moov.end)) {
      if (trak.type !== 'trak') continue;
      const codec = trackCodec(bytes, trak);
      if (codec) return codec;
    }
  }
  return undefined;
}

function trackCodec(bytes: Uint8Array, trak: Box): string | undefined {
  const mdia = child(bytes, trak, 'mdia');
  const hdlr = mdia && child(bytes, mdia, 'hdlr');
  // hdlr: version and flags (4), pre_defined (4), handler_type (4).
  if (!hdlr || String.fromCharCode(...bytes.subarray(hdlr.start + 8, hdlr.start + 12)) !== 'vide') return undefined;
  let box: Box | undefined = mdia;
  for (const type of ['minf', 'stbl', 'stsd']) box = box && child(bytes, box, type);
  if (!box) return undefined;
  // stsd: version and flags (4), entry count (4), then the sample entries (boxes).
  const entry = boxes(bytes, box.start + 8, box.end).next();
  if (entry.done) return undefined;
  return CODECS[entry.value.type] ?? entry.value.type;
}

function child(bytes: Uint8Array, parent: Box, type: string): Box | undefined {
  for (const box of boxes(bytes, parent.start, parent.end)) if (box.type === type) return box;
  return undefined;
}
