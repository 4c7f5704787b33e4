/**
 * The whole-file forms: label an MP4 held in memory, and read its label back. Same `moov` rewrite as the stream
 * (label-moov.ts), found by a plain walk of the top-level boxes.
 */
import { type AigcLabel, parseAigcLabel } from './aigc-label.js';
import { type Box, childBoxes, concat } from './boxes.js';
import { Mp4LabelError } from './label-error.js';
import { labelMoov, readMoovAigc } from './label-moov.js';

function topLevel(bytes: Uint8Array): { boxes: Box[]; moov: Box } {
  const boxes = childBoxes(bytes, 0, bytes.length);
  if (!boxes) throw new Mp4LabelError('truncated', 'a top-level box runs past the end of the file');
  const moov = boxes.find((box) => box.type === 'moov');
  if (!moov) throw new Mp4LabelError('no-moov', 'the file has no moov box');
  return { boxes, moov };
}

/** The file with the AIGC entry set, and the label written. */
export function labelMp4(bytes: Uint8Array, label: AigcLabel): { bytes: Uint8Array; label: AigcLabel } {
  const { moov } = topLevel(bytes);
  const labelled = labelMoov(bytes.subarray(moov.start, moov.end), moov.end, label);
  return {
    bytes: concat([bytes.subarray(0, moov.start), labelled.moov, bytes.subarray(moov.end)]),
    label: labelled.label,
  };
}

/** The label of an MP4 (its `moov` is enough), undefined without one or when it is not JSON; throws on a bad moov. */
export function readAigcLabel(bytes: Uint8Array): AigcLabel | undefined {
  const boxes = childBoxes(bytes, 0, bytes.length) ?? [];
  const moov = boxes.find((box) => box.type === 'moov');
  const value = moov ? readMoovAigc(bytes.subarray(moov.start, moov.end)) : undefined;
  return value === undefined ? undefined : parseAigcLabel(value);
}
