/**
 * QuickTime metadata under a `meta` box with an `mdta` handler: a `keys` box names each key, an `ilst` item whose
 * type is the key's 1-based index holds its `data` (Apple's QuickTime File Format, "Metadata"). This is what
 * `ffmpeg -movflags use_metadata_tags` writes and what ffmpeg's demuxer reads back as a format tag.
 */
import { type Box, buildBox, childBoxes, concat, fourCc, typeName, uint32 } from './boxes.js';

const KEY_NAMESPACE = 'mdta';
/** The `data` box's type indicator for UTF-8 text (well-known type 1). */
const UTF8 = 1;

const utf8 = new TextEncoder();
const text = new TextDecoder();

interface MetaLayout {
  /** ISO's `meta` is a FullBox (4 bytes of version and flags before its children); QuickTime's is not. */
  prefix: Uint8Array;
  children: Box[];
  handler: string | undefined;
}

export function metaLayout(bytes: Uint8Array, meta: Box): MetaLayout | undefined {
  const fullBox = meta.payload + 12 <= meta.end && typeName(bytes, meta.payload + 8) === 'hdlr';
  const first = fullBox ? meta.payload + 4 : meta.payload;
  const children = childBoxes(bytes, first, meta.end);
  if (!children) return undefined;
  const hdlr = children.find((child) => child.type === 'hdlr');
  // hdlr is a FullBox: version and flags, pre_defined, then the handler type.
  const handler = hdlr && hdlr.payload + 12 <= hdlr.end ? typeName(bytes, hdlr.payload + 8) : undefined;
  return { prefix: bytes.subarray(meta.payload, first), children, handler };
}

/** The keys in order, `namespace` and name; undefined when the box is malformed. */
function readKeys(bytes: Uint8Array, keys: Box): { namespace: string; name: string }[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (keys.payload + 8 > keys.end) return undefined;
  const count = view.getUint32(keys.payload + 4);
  const entries: { namespace: string; name: string }[] = [];
  let at = keys.payload + 8;
  for (let index = 0; index < count; index += 1) {
    if (at + 8 > keys.end) return undefined;
    const size = view.getUint32(at);
    if (size < 8 || at + size > keys.end) return undefined;
    entries.push({ namespace: typeName(bytes, at + 4), name: text.decode(bytes.subarray(at + 8, at + size)) });
    at += size;
  }
  return entries;
}

function itemIndex(bytes: Uint8Array, item: Box): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(item.start + 4);
}

/** The 1-based index of key `name` in an `mdta` meta, 0 without it. */
function keyIndex(bytes: Uint8Array, layout: MetaLayout, name: string): number {
  const keys = layout.children.find((child) => child.type === 'keys');
  const entries = keys ? readKeys(bytes, keys) : undefined;
  return (entries?.findIndex((entry) => entry.namespace === KEY_NAMESPACE && entry.name === name) ?? -1) + 1;
}

/** The text value of key `name` in this meta, when it has an `mdta` handler and the key. */
export function readMetadataKey(bytes: Uint8Array, meta: Box, name: string): string | undefined {
  const layout = metaLayout(bytes, meta);
  if (layout?.handler !== KEY_NAMESPACE) return undefined;
  const index = keyIndex(bytes, layout, name);
  const ilst = layout.children.find((child) => child.type === 'ilst');
  if (!index || !ilst) return undefined;
  const item = childBoxes(bytes, ilst.payload, ilst.end)?.find((child) => itemIndex(bytes, child) === index);
  const data = item && childBoxes(bytes, item.payload, item.end)?.find((child) => child.type === 'data');
  // data: type indicator and locale, then the value.
  return data && data.payload + 8 <= data.end ? text.decode(bytes.subarray(data.payload + 8, data.end)) : undefined;
}

function hdlrBox(): Uint8Array {
  // version and flags, pre_defined, handler_type, three reserved, and an empty name, as ffmpeg writes it.
  return buildBox('hdlr', [new Uint8Array(8), fourCc(KEY_NAMESPACE), new Uint8Array(12), new Uint8Array(1)]);
}

function keysBox(names: readonly { namespace: string; name: string }[]): Uint8Array {
  const entries = names.map(({ namespace, name }) => {
    const value = utf8.encode(name);
    return concat([uint32(value.length + 8), fourCc(namespace), value]);
  });
  return buildBox('keys', [new Uint8Array(4), uint32(names.length), ...entries]);
}

function itemBox(index: number, value: string): Uint8Array {
  return buildBox(uint32(index), [buildBox('data', [uint32(UTF8), uint32(0), utf8.encode(value)])]);
}

/** A new `meta` (ISO FullBox, as in `udta`) holding one key. */
export function newMetaBox(name: string, value: string): Uint8Array {
  return buildBox('meta', [
    new Uint8Array(4),
    hdlrBox(),
    keysBox([{ namespace: KEY_NAMESPACE, name }]),
    buildBox('ilst', [itemBox(1, value)]),
  ]);
}

/**
 * This meta with key `name` set to `value`, every other item kept. An iTunes-style (`mdir`) meta becomes an
 * `mdta` one: ffmpeg still reads its four-character items by their type, and a meta box has one handler.
 * Undefined for a meta of another handler or one it cannot parse: the caller adds a meta of its own instead.
 */
export function setMetadataKey(bytes: Uint8Array, meta: Box, name: string, value: string): Uint8Array | undefined {
  const layout = metaLayout(bytes, meta);
  if (!layout || (layout.handler !== KEY_NAMESPACE && layout.handler !== 'mdir')) return undefined;
  const keys = layout.children.find((child) => child.type === 'keys');
  const entries = layout.handler === KEY_NAMESPACE && keys ? readKeys(bytes, keys) : [];
  const ilst = layout.children.find((child) => child.type === 'ilst');
  const items = ilst ? childBoxes(bytes, ilst.payload, ilst.end) : [];
  if (!entries || !items) return undefined;
  let index = entries.findIndex((entry) => entry.namespace === KEY_NAMESPACE && entry.name === name) + 1;
  if (!index) index = entries.push({ namespace: KEY_NAMESPACE, name });
  const kept = items
    .filter((item) => itemIndex(bytes, item) !== index)
    .map((item) => bytes.subarray(item.start, item.end));
  const newIlst = buildBox('ilst', [...kept, itemBox(index, value)]);
  const newKeys = keysBox(entries);

  const children: Uint8Array[] = [];
  for (const child of layout.children) {
    if (child.type === 'hdlr')
      children.push(layout.handler === KEY_NAMESPACE ? bytes.subarray(child.start, child.end) : hdlrBox());
    else if (child.type === 'keys') children.push(newKeys);
    else if (child.type === 'ilst') children.push(...(keys ? [] : [newKeys]), newIlst);
    else children.push(bytes.subarray(child.start, child.end));
  }
  if (!ilst) children.push(...(keys ? [] : [newKeys]), newIlst);
  return buildBox('meta', [layout.prefix, ...children]);
}
