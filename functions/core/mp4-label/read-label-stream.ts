/**
 * Reads the label of an MP4 as it streams, holding only its `moov` (bounded as for labelling): to check a file
 * in S3 or the upstream's, without keeping its media data.
 */
import { type AigcLabel, parseAigcLabel } from './aigc-label.js';
import { Mp4LabelError } from './label-error.js';
import { readMoovAigc } from './label-moov.js';
import { DEFAULT_MAX_MOOV_BYTES } from './label-stream.js';
import { TopLevelBoxes } from './top-level-boxes.js';

/** The label, undefined without one; throws Mp4LabelError for a file that is not an MP4 or has no `moov`. */
export async function readAigcLabelFromStream(
  source: AsyncIterable<Uint8Array>,
  maxMoovBytes = DEFAULT_MAX_MOOV_BYTES,
): Promise<AigcLabel | undefined> {
  const boxes = new TopLevelBoxes(maxMoovBytes);
  for await (const chunk of source) {
    const moov = boxes.push(chunk).find((piece) => piece.moov);
    if (moov) {
      const value = readMoovAigc(moov.bytes);
      return value === undefined ? undefined : parseAigcLabel(value);
    }
  }
  boxes.end();
  throw new Mp4LabelError('no-moov', 'the file has no moov box');
}
