/**
 * Splits an MP4 arriving in chunks into its top-level boxes: every box but `moov` comes out as it arrives (views
 * of the chunks, never copies), `moov` whole, once it has all arrived. So it holds at most one `moov`, bounded,
 * and a box header (16 bytes); `mdat` passes through however large.
 */
import { typeName } from './boxes.js';
import { Mp4LabelError } from './label-error.js';

export type Piece = { bytes: Uint8Array; moov?: undefined } | { bytes: Uint8Array; moov: { start: number } };

/** What may open an MP4 or QuickTime file (ISO/IEC 14496-12 puts ftyp first; older QuickTime files lack it). */
const FIRST_TYPES = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot']);

export class TopLevelBoxes {
  /** Input bytes consumed so far: where the next byte sits in the file. */
  private position = 0;
  private readonly header = new Uint8Array(16);
  private headerFill = 0;
  /** Bytes left in the box passing through; Infinity for a box that runs to the end (size 0). */
  private passing = 0;
  private moov: { bytes: Uint8Array; fill: number; start: number } | undefined;
  /** After a refusal: the bytes of the chunk it was given that it had not answered. */
  private unanswered: Uint8Array[] = [];

  constructor(private readonly maxMoovBytes: number) {}

  /** What this holds now: the partial header and the `moov` being gathered. */
  get held(): number {
    return this.headerFill + (this.moov?.bytes.length ?? 0);
  }

  push(chunk: Uint8Array): Piece[] {
    const pieces: Piece[] = [];
    let at = 0;
    while (at < chunk.length) {
      if (this.passing > 0) {
        const take = Math.min(this.passing, chunk.length - at);
        pieces.push({ bytes: chunk.subarray(at, at + take) });
        this.passing -= take;
        at += take;
      } else if (this.moov) {
        const { bytes } = this.moov;
        const take = Math.min(bytes.length - this.moov.fill, chunk.length - at);
        bytes.set(chunk.subarray(at, at + take), this.moov.fill);
        this.moov.fill += take;
        at += take;
        if (this.moov.fill === bytes.length) {
          pieces.push({ bytes, moov: { start: this.moov.start } });
          this.moov = undefined;
        }
      } else {
        const { take, error } = this.readHeader(chunk, at, pieces);
        at += take;
        if (error) {
          // The caller may pass the file through: everything not yet answered waits in release().
          this.unanswered = [
            ...pieces.map((piece) => piece.bytes),
            this.header.slice(0, this.headerFill),
            chunk.subarray(at),
          ];
          this.headerFill = 0;
          this.position += chunk.length;
          throw error;
        }
      }
    }
    this.position += chunk.length;
    return pieces;
  }

  /** The end of the input: refuses a box cut short. */
  end(): void {
    if (this.headerFill > 0 || this.moov || (this.passing > 0 && this.passing !== Infinity)) {
      throw new Mp4LabelError('truncated', `the file ends inside a box, at byte ${this.position}`);
    }
  }

  /** The bytes it holds, given back once the caller gives up on labelling; it then passes the rest through. */
  release(): Uint8Array[] {
    const held = [
      ...this.unanswered,
      this.header.slice(0, this.headerFill),
      this.moov?.bytes.subarray(0, this.moov.fill),
    ];
    this.unanswered = [];
    this.headerFill = 0;
    this.moov = undefined;
    this.passing = Infinity;
    return held.filter((bytes): bytes is Uint8Array => bytes !== undefined && bytes.length > 0);
  }

  /** Reads header bytes from `chunk` at `at`; once whole, starts its box. Answers how many bytes it took. */
  private readHeader(chunk: Uint8Array, at: number, pieces: Piece[]): { take: number; error?: Mp4LabelError } {
    // 8 bytes, then 8 more when the size field is 1 (a 64-bit largesize follows the type).
    const whole = () => (this.headerFill >= 8 && this.sizeField() === 1 ? 16 : 8);
    let take = Math.min(whole() - this.headerFill, chunk.length - at);
    this.header.set(chunk.subarray(at, at + take), this.headerFill);
    this.headerFill += take;
    if (this.headerFill < whole()) {
      const more = Math.min(whole() - this.headerFill, chunk.length - at - take);
      this.header.set(chunk.subarray(at + take, at + take + more), this.headerFill);
      this.headerFill += more;
      take += more;
      if (this.headerFill < whole()) return { take };
    }

    const headerSize = this.headerFill;
    const start = this.position + at + take - headerSize;
    const type = typeName(this.header, 4);
    const size = headerSize === 16 ? Number(new DataView(this.header.buffer).getBigUint64(8)) : this.sizeField();
    if (start === 0 && !FIRST_TYPES.has(type)) {
      return { take, error: new Mp4LabelError('not-mp4', `the first box is ${JSON.stringify(type)}, not ftyp`) };
    }
    if (size !== 0 && size < headerSize) {
      return {
        take,
        error: new Mp4LabelError('malformed', `box ${JSON.stringify(type)} at ${start} has size ${size}`),
      };
    }
    if (type === 'moov' && (size === 0 || size > this.maxMoovBytes)) {
      const error = new Mp4LabelError('moov-too-large', `moov of ${size} bytes, past ${this.maxMoovBytes}`);
      return { take, error };
    }
    this.headerFill = 0;
    if (type === 'moov') {
      const bytes = new Uint8Array(size);
      bytes.set(this.header.subarray(0, headerSize));
      if (size === headerSize) pieces.push({ bytes, moov: { start } });
      else this.moov = { bytes, fill: headerSize, start };
    } else {
      pieces.push({ bytes: this.header.slice(0, headerSize) });
      this.passing = size === 0 ? Infinity : size - headerSize;
    }
    return { take };
  }

  private sizeField(): number {
    return new DataView(this.header.buffer).getUint32(0);
  }
}
