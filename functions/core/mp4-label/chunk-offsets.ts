/**
 * The chunk offsets of every track (`stco`, 32-bit, and `co64`: ISO/IEC 14496-12 section 8.7.5) are positions in
 * the file. When `moov` changes size, each one past the old `moov` moves by the same amount; the samples do not.
 */
import { childBoxes } from './boxes.js';
import { Mp4LabelError } from './label-error.js';

const PATH = ['trak', 'mdia', 'minf', 'stbl'];

/**
 * Shifts, in place in a `moov` box's bytes, every chunk offset at or past `from` by `delta`. Refuses sample
 * auxiliary offsets (`saio`, absolute in a `moov`: section 8.7.9), which only encrypted files carry.
 */
export function shiftChunkOffsets(moov: Uint8Array, payload: number, from: number, delta: number): void {
  const view = new DataView(moov.buffer, moov.byteOffset, moov.byteLength);
  const visit = (start: number, end: number, depth: number) => {
    const children = childBoxes(moov, start, end);
    if (!children) throw new Mp4LabelError('malformed', `a ${PATH[depth - 1] ?? 'moov'} box overruns its parent`);
    for (const box of children) {
      if (depth < PATH.length && box.type === PATH[depth]) visit(box.payload, box.end, depth + 1);
      if (depth !== PATH.length) continue;
      if (box.type === 'saio') throw new Mp4LabelError('unsupported', 'sample auxiliary offsets (saio) would move');
      if (box.type !== 'stco' && box.type !== 'co64') continue;
      const wide = box.type === 'co64';
      const count = box.payload + 8 <= box.end ? view.getUint32(box.payload + 4) : 0;
      const first = box.payload + 8;
      if (first + count * (wide ? 8 : 4) > box.end) throw new Mp4LabelError('malformed', `${box.type} is short`);
      for (let index = 0; index < count; index += 1) {
        const at = first + index * (wide ? 8 : 4);
        const offset = wide ? Number(view.getBigUint64(at)) : view.getUint32(at);
        if (offset < from) continue;
        const shifted = offset + delta;
        if (wide) view.setBigUint64(at, BigInt(shifted));
        else if (shifted > 0xffff_ffff) throw new Mp4LabelError('offset-overflow', 'a stco offset passes 4 GiB');
        else view.setUint32(at, shifted);
      }
    }
  };
  visit(payload, moov.length, 0);
}
