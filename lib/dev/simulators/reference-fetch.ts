/**
 * How a simulator downloads a job's reference (an image, video or audio URL) before the job runs, as the real
 * upstreams do: GET, redirects followed, within a time limit; refused when unreachable (no answer, not 2xx),
 * larger than the provider's limit, or of a type it does not take. Each provider's limits are its own reading.
 */

export interface ReferenceLimit {
  maxBytes: number;
  /** Accepted media types (`image/png`, …). */
  types: readonly string[];
}

export type ReferenceProblem = 'unreachable' | 'too-large' | 'wrong-type';

export type FetchVerdict = { ok: true } | { ok: false; problem: ReferenceProblem; detail: string };

/** The first bytes of the formats the providers take, for a server that sends no specific Content-Type. */
const SIGNATURES: readonly [string, (bytes: Buffer) => boolean][] = [
  ['image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/png', (b) => b.subarray(0, 4).toString('latin1') === '\x89PNG'],
  ['image/gif', (b) => b.subarray(0, 4).toString('latin1') === 'GIF8'],
  ['image/bmp', (b) => b.subarray(0, 2).toString('latin1') === 'BM'],
  ['image/webp', (b) => riff(b, 'WEBP')],
  ['audio/wav', (b) => riff(b, 'WAVE')],
  ['video/quicktime', (b) => b.subarray(4, 8).toString('latin1') === 'ftyp' && b.subarray(8, 10).toString() === 'qt'],
  ['video/mp4', (b) => b.subarray(4, 8).toString('latin1') === 'ftyp'],
  [
    'audio/mpeg',
    (b) => b.subarray(0, 3).toString('latin1') === 'ID3' || (b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0),
  ],
];

function riff(bytes: Buffer, form: string): boolean {
  return bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === form;
}

/** Other names servers give the accepted types. */
const ALIASES: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'audio/mp3': 'audio/mpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'video/x-m4v': 'video/mp4',
};

function declaredType(header: string | null): string | undefined {
  const type = header?.split(';')[0]?.trim().toLowerCase();
  if (!type || type === 'application/octet-stream' || type === 'binary/octet-stream') return undefined;
  return ALIASES[type] ?? type;
}

const sniff = (bytes: Buffer): string | undefined => SIGNATURES.find(([, matches]) => matches(bytes))?.[0];

/** Downloads `url` within `timeoutMs` and judges it against `limit`; never throws. */
export async function fetchReference(url: string, limit: ReferenceLimit, timeoutMs: number): Promise<FetchVerdict> {
  const unreachable = (detail: string): FetchVerdict => ({ ok: false, problem: 'unreachable', detail });
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: 'follow' });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return unreachable(signal.aborted ? 'timed out' : (cause?.code ?? cause?.message ?? (error as Error).message));
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    return unreachable(`HTTP ${response.status}`);
  }
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  if (length > limit.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, problem: 'too-large', detail: `${length} bytes, more than ${limit.maxBytes}` };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += (chunk as Uint8Array).length;
      if (size > limit.maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        return { ok: false, problem: 'too-large', detail: `more than ${limit.maxBytes} bytes` };
      }
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
  } catch (error) {
    return unreachable(signal.aborted ? 'timed out' : `the download broke (${(error as Error).message})`);
  }
  const type = declaredType(response.headers.get('content-type')) ?? sniff(Buffer.concat(chunks).subarray(0, 16));
  if (type === undefined || !limit.types.includes(type)) {
    return { ok: false, problem: 'wrong-type', detail: `${type ?? 'an unknown type'}, not ${limit.types.join(', ')}` };
  }
  return { ok: true };
}

/** One reference of a create body: where it is in the body, its URL, and which limit applies. */
export interface Reference<Media extends string> {
  param: string;
  url: string;
  media: Media;
}

/** Per media, what a reference may be; and how long each download may take. */
export interface ReferenceSettings<Media extends string> {
  limits: Readonly<Record<Media, ReferenceLimit>>;
  timeoutMs: number;
}

export interface Unusable<Media extends string> {
  reference: Reference<Media>;
  problem: ReferenceProblem;
  detail: string;
}

/**
 * Downloads every reference at once; the first unusable one in the body's order fails the job, with what
 * `failure` makes of it (the provider's code and words). Undefined: all usable.
 */
export async function referenceFailure<Media extends string, Failure>(
  references: readonly Reference<Media>[],
  settings: ReferenceSettings<Media>,
  failure: (unusable: Unusable<Media>) => Failure,
): Promise<Failure | undefined> {
  const { limits, timeoutMs } = settings;
  const verdicts = await Promise.all(references.map((ref) => fetchReference(ref.url, limits[ref.media], timeoutMs)));
  for (const [index, verdict] of verdicts.entries()) {
    if (!verdict.ok) return failure({ reference: references[index] as Reference<Media>, ...verdict });
  }
  return undefined;
}
