/**
 * Labels an MP4 as it streams (docs/compliance.md, "The implicit label"): every box passes through as it arrives
 * but `moov`, which is gathered (up to `maxMoovBytes`), labelled and sent on in its place. Memory: one `moov`.
 */
import type { AigcLabel } from './aigc-label.js';
import { Mp4LabelError } from './label-error.js';
import { labelMoov } from './label-moov.js';
import { TopLevelBoxes } from './top-level-boxes.js';

export const DEFAULT_MAX_MOOV_BYTES = 16 * 1024 * 1024;

export interface LabelMp4Options {
  /** The largest `moov` it gathers; a larger one is refused (default 16 MiB: hours of video). */
  maxMoovBytes?: number;
  /**
   * `throw` (the default): a file it cannot label fails the stream. `pass-through`: the file goes on unlabelled,
   * byte for byte, and `onUnlabelled` is told why.
   */
  unlabellable?: 'throw' | 'pass-through';
  onUnlabelled?: (error: Mp4LabelError) => void;
  /** The label written: the caller's, with the upstream's producer elements when its file had a label. */
  onLabelled?: (label: AigcLabel) => void;
}

/** The push side of `labelMp4Stream`: chunks in, chunks out, synchronously. */
export class Mp4Labeller {
  private readonly boxes: TopLevelBoxes;
  private state: 'labelling' | 'labelled' | 'passing' = 'labelling';

  constructor(
    private readonly label: AigcLabel,
    private readonly options: LabelMp4Options = {},
  ) {
    this.boxes = new TopLevelBoxes(options.maxMoovBytes ?? DEFAULT_MAX_MOOV_BYTES);
  }

  /** The bytes it holds between calls: the `moov` gathered so far and a partial box header. */
  get held(): number {
    return this.state === 'passing' ? 0 : this.boxes.held;
  }

  push(chunk: Uint8Array): Uint8Array[] {
    if (this.state === 'passing') return [chunk];
    let pieces;
    try {
      pieces = this.boxes.push(chunk);
    } catch (error) {
      return this.giveUp(error);
    }
    const out: Uint8Array[] = [];
    for (const piece of pieces) {
      if (!piece.moov || this.state !== 'labelling') {
        out.push(piece.bytes);
        continue;
      }
      try {
        const labelled = labelMoov(piece.bytes, piece.moov.start + piece.bytes.length, this.label);
        out.push(labelled.moov);
        this.state = 'labelled';
        this.options.onLabelled?.(labelled.label);
      } catch (error) {
        this.refuse(error);
        out.push(piece.bytes);
        this.state = 'passing';
      }
    }
    return out;
  }

  /** The end of the input: refuses a file cut short or without a `moov`. */
  end(): Uint8Array[] {
    if (this.state === 'passing') return [];
    try {
      this.boxes.end();
      if (this.state === 'labelling') throw new Mp4LabelError('no-moov', 'the file has no moov box');
    } catch (error) {
      return this.giveUp(error);
    }
    return [];
  }

  private giveUp(error: unknown): Uint8Array[] {
    this.refuse(error);
    this.state = 'passing';
    return this.boxes.release();
  }

  /** Throws, unless the caller chose to pass unlabellable files through. */
  private refuse(error: unknown): void {
    if (!(error instanceof Mp4LabelError) || this.options.unlabellable !== 'pass-through') throw error;
    this.options.onUnlabelled?.(error);
  }
}

/** The MP4 of `source` with the AIGC entry set, as a stream; mdat and every sample byte for byte. */
export async function* labelMp4Stream(
  source: AsyncIterable<Uint8Array>,
  label: AigcLabel,
  options: LabelMp4Options = {},
): AsyncGenerator<Uint8Array> {
  const labeller = new Mp4Labeller(label, options);
  for await (const chunk of source) yield* labeller.push(chunk);
  yield* labeller.end();
}
