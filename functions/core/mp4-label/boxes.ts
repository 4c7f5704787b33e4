/**
 * ISO/IEC 14496-12 boxes (section 4.2): a 32-bit size and a four-character type, the size 1 for a 64-bit
 * `largesize` after the type, 0 for a box that runs to the end of the file. Reading within a buffer, and building.
 */

export interface Box {
  /** The type's four bytes as Latin-1, `©too` included. */
  type: string;
  /** Where the box starts, where its payload starts, where it ends. */
  start: number;
  payload: number;
  end: number;
}

export function typeName(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
}

/** The boxes in [start, end); undefined when one of them runs past `end` or is shorter than its header. */
export function childBoxes(bytes: Uint8Array, start: number, end: number): Box[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const boxes: Box[] = [];
  let at = start;
  while (at < end) {
    if (at + 8 > end) return undefined;
    let size = view.getUint32(at);
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) return undefined;
      size = Number(view.getBigUint64(at + 8));
      header = 16;
    } else if (size === 0) {
      size = end - at;
    }
    if (size < header || at + size > end) return undefined;
    boxes.push({ type: typeName(bytes, at + 4), start: at, payload: at + header, end: at + size });
    at += size;
  }
  return boxes;
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export function uint32(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value);
  return bytes;
}

export function fourCc(type: string): Uint8Array {
  return Uint8Array.from(type, (char) => char.charCodeAt(0));
}

/** A box around `parts`: a 32-bit size when it fits, else `largesize`. */
export function buildBox(type: string | Uint8Array, parts: readonly Uint8Array[]): Uint8Array {
  const typeBytes = typeof type === 'string' ? fourCc(type) : type;
  const payload = parts.reduce((sum, part) => sum + part.length, 0);
  if (payload + 8 <= 0xffff_ffff) return concat([uint32(payload + 8), typeBytes, ...parts]);
  const large = new Uint8Array(8);
  new DataView(large.buffer).setBigUint64(0, BigInt(payload + 16));
  return concat([uint32(1), typeBytes, large, ...parts]);
}
