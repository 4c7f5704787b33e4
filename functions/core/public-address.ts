/**
 * Which IP addresses an outgoing request may connect to (docs/security.md, "URL policy"): globally reachable unicast
 * only, in IPv4, IPv6 and the IPv6 forms that embed an IPv4 address. Pure: parses text, no DNS; the
 * adapter public-address-guard.ts applies it to every address a name resolves to, at connect time.
 */

type Bytes = readonly number[];

interface Range {
  prefix: Bytes;
  bits: number;
  what: string;
}

function v4(text: string, bits: number, what: string): Range {
  return { prefix: parseIpv4(text) as Bytes, bits, what };
}

function v6(text: string, bits: number, what: string): Range {
  return { prefix: parseIpv6(text) as Bytes, bits, what };
}

/** IANA IPv4 special-purpose ranges that are not globally reachable, plus multicast and reserved. */
const FORBIDDEN_V4: readonly Range[] = [
  v4('0.0.0.0', 8, '"this network"'),
  v4('10.0.0.0', 8, 'private'),
  v4('100.64.0.0', 10, 'shared address space (CGNAT)'),
  v4('127.0.0.0', 8, 'loopback'),
  v4('169.254.0.0', 16, 'link-local (cloud metadata)'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.0.0.0', 24, 'IETF protocol assignments'),
  v4('192.0.2.0', 24, 'documentation'),
  v4('192.88.99.0', 24, '6to4 relay anycast'),
  v4('192.168.0.0', 16, 'private'),
  v4('198.18.0.0', 15, 'benchmarking'),
  v4('198.51.100.0', 24, 'documentation'),
  v4('203.0.113.0', 24, 'documentation'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('240.0.0.0', 4, 'reserved (and broadcast)'),
];

/** IPv6 ranges that carry an IPv4 address in their last 32 bits: judged by that address. */
const EMBEDDING_V6: readonly Range[] = [
  v6('::ffff:0:0', 96, 'IPv4-mapped'),
  v6('::ffff:0:0:0', 96, 'IPv4-translated'),
  v6('64:ff9b::', 96, 'NAT64'),
];

const FORBIDDEN_V6: readonly Range[] = [
  v6('::', 96, 'unspecified, loopback or IPv4-compatible'),
  v6('64:ff9b:1::', 48, 'local-use NAT64'),
  v6('100::', 64, 'discard-only'),
  v6('2001::', 23, 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'),
  v6('2001:db8::', 32, 'documentation'),
  v6('3fff::', 20, 'documentation'),
  v6('5f00::', 16, 'SRv6 SIDs'),
  v6('fc00::', 7, 'unique local (AWS metadata fd00:ec2::254 among them)'),
  v6('fe80::', 10, 'link-local'),
  v6('fec0::', 10, 'site-local'),
  v6('ff00::', 8, 'multicast'),
];

/** Only 2000::/3 is allocated as global unicast; anything else not named above is refused too. */
const GLOBAL_UNICAST_V6 = v6('2000::', 3, 'global unicast');
const SIX_TO_FOUR = v6('2002::', 16, '6to4');

export type AddressVerdict = { forbidden: false } | { forbidden: true; reason: string };

/** Why `ip` (IPv4 or IPv6 text, a zone id allowed) must not be connected to; text that is no IP is refused. */
export function classifyAddress(ip: string): AddressVerdict {
  const bytes4 = parseIpv4(ip);
  if (bytes4) return classifyV4(bytes4);
  const bytes6 = parseIpv6(ip);
  if (!bytes6) return { forbidden: true, reason: 'not an IP address' };
  for (const range of EMBEDDING_V6) {
    if (inRange(bytes6, range)) return embedded(classifyV4(bytes6.slice(12)), range.what);
  }
  if (inRange(bytes6, SIX_TO_FOUR)) return embedded(classifyV4(bytes6.slice(2, 6)), SIX_TO_FOUR.what);
  const range = FORBIDDEN_V6.find((candidate) => inRange(bytes6, candidate));
  if (range) return { forbidden: true, reason: range.what };
  if (!inRange(bytes6, GLOBAL_UNICAST_V6)) return { forbidden: true, reason: 'not global unicast' };
  return { forbidden: false };
}

export function isForbiddenAddress(ip: string): boolean {
  return classifyAddress(ip).forbidden;
}

/** 127.0.0.0/8, ::1, and 127/8 inside IPv4-mapped IPv6: what the local runtime may allow. */
export function isLoopbackAddress(ip: string): boolean {
  const bytes4 = parseIpv4(ip);
  if (bytes4) return bytes4[0] === 127;
  const bytes6 = parseIpv6(ip);
  if (!bytes6) return false;
  if (bytes6.slice(0, 15).every((byte) => byte === 0) && bytes6[15] === 1) return true;
  return inRange(bytes6, EMBEDDING_V6[0] as Range) && bytes6[12] === 127;
}

/** Whether the text is an IPv4 or IPv6 address (a URL host in brackets is not: strip them first). */
export function isIpAddress(text: string): boolean {
  return parseIpv4(text) !== undefined || parseIpv6(text) !== undefined;
}

function classifyV4(bytes: Bytes): AddressVerdict {
  const range = FORBIDDEN_V4.find((candidate) => inRange(bytes, candidate));
  return range ? { forbidden: true, reason: range.what } : { forbidden: false };
}

function embedded(verdict: AddressVerdict, what: string): AddressVerdict {
  return verdict.forbidden ? { forbidden: true, reason: `${what} ${verdict.reason}` } : verdict;
}

function inRange(bytes: Bytes, range: Range): boolean {
  if (bytes.length !== range.prefix.length) return false;
  for (let bit = 0; bit < range.bits; bit += 8) {
    const remaining = Math.min(8, range.bits - bit);
    const mask = (0xff << (8 - remaining)) & 0xff;
    const index = bit / 8;
    if (((bytes[index] as number) & mask) !== ((range.prefix[index] as number) & mask)) return false;
  }
  return true;
}

/** Strict dotted decimal (what DNS answers and the WHATWG URL parser produce). */
function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes.push(value);
  }
  return bytes;
}

/** RFC 4291 text forms: `::` compression, a dotted IPv4 tail, and an optional `%zone`. */
function parseIpv6(text: string): number[] | undefined {
  const address = text.replace(/%[\w.-]+$/, '');
  if (!/^[0-9A-Fa-f:.]+$/.test(address) || !address.includes(':')) return undefined;
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string | undefined): number[] | undefined => {
    if (half === undefined || half === '') return [];
    const groups: number[] = [];
    const pieces = half.split(':');
    for (const [index, piece] of pieces.entries()) {
      if (piece.includes('.')) {
        if (index !== pieces.length - 1) return undefined;
        const tail = parseIpv4(piece);
        if (!tail) return undefined;
        groups.push(((tail[0] as number) << 8) | (tail[1] as number), ((tail[2] as number) << 8) | (tail[3] as number));
      } else {
        if (!/^[0-9A-Fa-f]{1,4}$/.test(piece)) return undefined;
        groups.push(parseInt(piece, 16));
      }
    }
    return groups;
  };
  const head = groupsOf(halves[0]);
  const tail = groupsOf(halves[1]);
  if (!head || !tail) return undefined;
  let groups: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return undefined;
    groups = [...head, ...Array<number>(missing).fill(0), ...tail];
  } else {
    groups = head;
  }
  if (groups.length !== 8) return undefined;
  return groups.flatMap((group) => [group >> 8, group & 0xff]);
}
