/**
 * Rewrites one `moov` box with the AIGC entry set (docs/compliance.md, "The implicit label"): every other box
 * byte for byte, then the chunk offsets shifted by the change in size when the media data comes after it.
 */
import { type AigcLabel, mergeAigcLabel, parseAigcLabel, serializeAigcLabel } from './aigc-label.js';
import { type Box, buildBox, childBoxes } from './boxes.js';
import { shiftChunkOffsets } from './chunk-offsets.js';
import { Mp4LabelError } from './label-error.js';
import { metaLayout, newMetaBox, readMetadataKey, setMetadataKey } from './metadata-keys.js';

export const AIGC_KEY = 'AIGC';

function moovChildren(moov: Uint8Array): { header: Box; children: Box[] } {
  const [header] = childBoxes(moov, 0, moov.length) ?? [];
  if (header?.type !== 'moov') throw new Mp4LabelError('malformed', 'not a moov box');
  const children = childBoxes(moov, header.payload, header.end);
  if (!children) throw new Mp4LabelError('malformed', 'a box in moov overruns it');
  return { header, children };
}

/** The metas that may hold the key: `moov/meta` (QuickTime) and each `moov/udta/meta` (ffmpeg, ISO). */
function metas(moov: Uint8Array, children: Box[]): Box[] {
  return children.flatMap((child) => {
    if (child.type === 'meta') return [child];
    if (child.type !== 'udta') return [];
    return (childBoxes(moov, child.payload, child.end) ?? []).filter((box) => box.type === 'meta');
  });
}

/** The AIGC entry's raw value in a `moov` box, if any. */
export function readMoovAigc(moov: Uint8Array): string | undefined {
  const { children } = moovChildren(moov);
  for (const meta of metas(moov, children)) {
    const value = readMetadataKey(moov, meta, AIGC_KEY);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Where to write: the meta holding the entry already, else an `mdta` one, else the `udta`'s iTunes one. */
function targetMeta(moov: Uint8Array, children: Box[]): Box | undefined {
  const all = metas(moov, children);
  return (
    all.find((meta) => readMetadataKey(moov, meta, AIGC_KEY) !== undefined) ??
    all.find((meta) => metaLayout(moov, meta)?.handler === 'mdta') ??
    all.find((meta) => metaLayout(moov, meta)?.handler === 'mdir' && !children.includes(meta))
  );
}

/** `box` with its child starting at `at` replaced by `replacement`, or with `replacement` appended. */
function replaceChild(moov: Uint8Array, box: Box, at: number | undefined, replacement: Uint8Array): Uint8Array {
  const children = childBoxes(moov, box.payload, box.end) ?? [];
  const parts = children.map((child) => (child.start === at ? replacement : moov.subarray(child.start, child.end)));
  if (!children.some((child) => child.start === at)) parts.push(replacement);
  return buildBox(box.type, parts);
}

export interface LabelledMoov {
  moov: Uint8Array;
  label: AigcLabel;
}

/**
 * `moov` (the whole box) with the label set. `end` is where the box ends in the source file: chunk offsets at or
 * past it move by the change in size (a fast-start file), those before it stay (media data first).
 */
export function labelMoov(moov: Uint8Array, end: number, ours: AigcLabel): LabelledMoov {
  const { header, children } = moovChildren(moov);
  if (children.some((child) => child.type === 'mvex')) {
    throw new Mp4LabelError('fragmented', 'a fragmented file (moov/mvex): its fragments carry their own offsets');
  }
  const existing = readMoovAigc(moov);
  const label = mergeAigcLabel(existing === undefined ? undefined : parseAigcLabel(existing), ours);
  const value = serializeAigcLabel(label);

  const target = targetMeta(moov, children);
  const rewritten = target && setMetadataKey(moov, target, AIGC_KEY, value);
  const replacing = rewritten ? target?.start : undefined;
  const meta = rewritten ?? newMetaBox(AIGC_KEY, value);
  // The child of moov that changes: the meta itself, the udta around it, or a new udta.
  const within = (box: Box) => replacing !== undefined && replacing >= box.payload && replacing < box.end;
  const changed =
    children.find((child) => child.start === replacing) ??
    children.find((child) => child.type === 'udta' && within(child)) ??
    children.find((child) => child.type === 'udta');
  const parts = children.map((child) => moov.subarray(child.start, child.end));
  if (!changed) parts.push(buildBox('udta', [meta]));
  else if (changed.start === replacing) parts[children.indexOf(changed)] = meta;
  else parts[children.indexOf(changed)] = replaceChild(moov, changed, replacing, meta);

  const labelled = buildBox('moov', parts);
  const delta = labelled.length - (header.end - header.start);
  const payload = labelled.length - parts.reduce((sum, part) => sum + part.length, 0);
  if (delta !== 0) shiftChunkOffsets(labelled, payload, end, delta);
  return { moov: labelled, label };
}
