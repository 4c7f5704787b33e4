/**
 * A request's JSON body as the API documents it: sent as `application/json`, valid UTF-8, valid JSON, and each
 * key once per object. JSON.parse keeps the last of two equal keys silently, so `{"duration":5,
 * "duration":12}` could be read as 5 by one reader and as 12 by another: such a body is refused instead.
 */
import { InvalidRequestError, UnsupportedMediaTypeError } from './api-error.js';
import { parseJsonOr } from './parse-json.js';

/** Refuses (415) a Content-Type other than application/json; parameters are allowed, a charset only UTF-8. */
export function checkJsonContentType(contentType: string | undefined): void {
  const [essence = '', ...parameters] = (contentType ?? '').split(';').map((part) => part.trim());
  const got = contentType?.trim() ? contentType.trim() : 'none';
  if (essence.toLowerCase() !== 'application/json') {
    throw new UnsupportedMediaTypeError(`Content-Type must be application/json (got ${got})`);
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=').map((part) => part.trim());
    const charset = value.replace(/^"(.*)"$/, '$1').toLowerCase();
    // The body is read as UTF-8 (JSON's only encoding, RFC 8259 §8.1): another charset would be misread.
    if (name.toLowerCase() === 'charset' && charset !== 'utf-8' && charset !== 'utf8') {
      throw new UnsupportedMediaTypeError(`Content-Type must be application/json in UTF-8 (got ${got})`);
    }
  }
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const NOT_UTF8 =
  'request body must be UTF-8 text: it holds bytes that are not valid UTF-8 (or U+FFFD, the character left in their place)';

/**
 * The text of a body's bytes. Decoding leniently would put U+FFFD where the bytes were not UTF-8 and go on, so a
 * prompt could be charged for and generated from text the client never wrote: such a body is a 400.
 */
export function utf8Text(bytes: Uint8Array): string {
  try {
    return checkedUtf8Text(STRICT_UTF8.decode(bytes));
  } catch (error) {
    if (error instanceof InvalidRequestError) throw error;
    throw new InvalidRequestError(NOT_UTF8);
  }
}

/**
 * A body the front end decoded already (API Gateway hands a JSON body over as text): where it met bytes that
 * were not UTF-8 it left U+FFFD, so a raw U+FFFD is refused as they would have been.
 */
export function checkedUtf8Text(text: string): string {
  if (text.includes('\uFFFD')) throw new InvalidRequestError(NOT_UTF8);
  return text;
}

/** Parses the text of a JSON body; invalid JSON, or a key twice in one object, is a 400. */
export function parseJsonBody(text: string): unknown {
  const parsed = parseJsonOr(text, () => new InvalidRequestError('request body must be valid JSON'));
  const duplicate = duplicateKeyPath(text);
  if (duplicate !== undefined) {
    throw new InvalidRequestError(`duplicate field "${duplicate}" in the request body: send each field once`);
  }
  return parsed;
}

type Frame = { kind: 'object'; keys: Set<string>; key: string; expectKey: boolean } | { kind: 'array'; index: number };

/**
 * The path (`duration`, `a.b`, `[0].x`) of the first key that occurs twice in one object of `text`, which must
 * be valid JSON (the caller parsed it). Keys compare as decoded, so `"du\u0072ation"` is `"duration"`.
 */
export function duplicateKeyPath(text: string): string | undefined {
  const stack: Frame[] = [];
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at];
    const top = stack.at(-1);
    if (char === '"') {
      const end = closingQuote(text, at);
      if (top?.kind === 'object' && top.expectKey) {
        const key = JSON.parse(text.slice(at, end + 1)) as string;
        if (top.keys.has(key)) return pathOf(stack.slice(0, -1), key);
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      at = end; // a string's braces, brackets and commas are text, not structure
    } else if (char === '{') {
      stack.push({ kind: 'object', keys: new Set(), key: '', expectKey: true });
    } else if (char === '[') {
      stack.push({ kind: 'array', index: 0 });
    } else if (char === '}' || char === ']') {
      stack.pop();
    } else if (char === ',' && top) {
      if (top.kind === 'object') top.expectKey = true;
      else top.index += 1;
    }
  }
  return undefined;
}

/** The index of the quote that ends the string starting at `start` (valid JSON: there is one). */
function closingQuote(text: string, start: number): number {
  let at = start + 1;
  while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
  return at;
}

function pathOf(outer: Frame[], key: string): string {
  const segments = outer.map((frame) => (frame.kind === 'object' ? `.${frame.key}` : `[${frame.index}]`));
  return `${segments.join('')}.${key}`.replace(/^\./, '');
}
