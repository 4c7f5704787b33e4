/**
 * JSON bodies as the API documents them: `Content-Type: application/json` (else 415 in the envelope), valid
 * JSON, and each key once per object (else 400 naming it), checked before any route reads the body.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError, InvalidRequestError, UnsupportedMediaTypeError } from '../../functions/core/api-error.js';
import { errorEnvelope, httpStatusOf } from '../../functions/core/envelope.js';
import { checkJsonContentType, duplicateKeyPath, parseJsonBody } from '../../functions/core/json-body.js';
import { jsonBody } from '../../functions/http/api-handler.js';

function thrown(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected an ApiError, nothing was thrown');
}

const event = (body: string | undefined, headers: Record<string, string>, isBase64Encoded = false) =>
  ({ body, headers, isBase64Encoded }) as unknown as APIGatewayProxyEventV2;

describe('Content-Type of a JSON body', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;charset=UTF-8',
    'application/json ; charset="utf-8"',
    'application/json; charset=utf8',
  ])('accepts %j', (contentType) => {
    expect(() => checkJsonContentType(contentType)).not.toThrow();
  });

  it.each([
    ['text/plain', 'Content-Type must be application/json (got text/plain)'],
    [undefined, 'Content-Type must be application/json (got none)'],
    ['', 'Content-Type must be application/json (got none)'],
    [
      'application/x-www-form-urlencoded',
      'Content-Type must be application/json (got application/x-www-form-urlencoded)',
    ],
    ['application/jsonp', 'Content-Type must be application/json (got application/jsonp)'],
    ['multipart/form-data; boundary=x', 'Content-Type must be application/json (got multipart/form-data; boundary=x)'],
    [
      'application/json; charset=latin1',
      'Content-Type must be application/json in UTF-8 (got application/json; charset=latin1)',
    ],
  ])('refuses %j with a 415 naming what is allowed', (contentType, message) => {
    const error = thrown(() => checkJsonContentType(contentType));
    expect(error).toBeInstanceOf(UnsupportedMediaTypeError);
    expect(error.code).toBe(415);
    expect(error.message).toBe(message);
    const envelope = errorEnvelope(error);
    expect(envelope).toEqual({ code: 415, message, data: null });
    expect(httpStatusOf(envelope)).toBe(415);
  });
});

describe('duplicate keys', () => {
  it.each([
    ['top level', '{"duration":5,"duration":12}', 'duration'],
    ['apart, with other fields between', '{"duration":5,"prompt":"a fox","duration":12}', 'duration'],
    ['nested', '{"a":{"b":1,"c":{"d":1,"d":2}}}', 'a.c.d'],
    ['in an object inside an array', '{"list":[1,{"x":1},{"x":1,"x":2}]}', 'list[2].x'],
    ['in an array at the top', '[{},{"k":1,"k":1}]', '[1].k'],
    ['spelt with a unicode escape', '{"duration":5,"du\\u0072ation":12}', 'duration'],
    ['both escaped differently', '{"\\u0064uration":5,"d\\u0075ration":12}', 'duration'],
    ['with an escaped quote in the key', '{"a\\"b":1,"a\\"b":2}', 'a"b'],
    ['with a key that is empty', '{"":1,"":2}', ''],
    ['spread over lines', '{\n  "prompt": "x",\n  "prompt" : "y"\n}', 'prompt'],
  ])('%s: %s → the path', (_label, text, path) => {
    expect(duplicateKeyPath(text)).toBe(path);
  });

  it.each([
    ['the same key in sibling objects', '{"a":{"x":1},"b":{"x":1}}'],
    ['the same key in objects of one array', '[{"x":1},{"x":2}]'],
    ['a value that spells a key', '{"prompt":"duration","duration":5}'],
    ['strings with braces, brackets, commas, colons and quotes', '{"p":"{\\"d\\":1,\\"d\\":2}]}[,:","d":1}'],
    ['a string ending in a backslash', '{"p":"a\\\\","q":"\\\\"}'],
    ['keys that differ only in case', '{"Duration":5,"duration":12}'],
    ['keys equal only once NFKC-normalised', '{"ｄuration":5,"duration":12}'],
    ['no object at all', '"just a string"'],
    ['an empty object', '{}'],
  ])('%s is not a duplicate', (_label, text) => {
    expect(duplicateKeyPath(text)).toBeUndefined();
  });

  it('finds none in what JSON.stringify writes, and the one added to it', () => {
    const anyText = fc.string({ unit: 'grapheme' });
    fc.assert(
      fc.property(fc.jsonValue(), anyText, (value, key) => {
        const text = JSON.stringify(value);
        expect(duplicateKeyPath(text)).toBeUndefined();
        const doubled = `{${JSON.stringify(key)}:${text},${JSON.stringify(key)}:0}`;
        expect(duplicateKeyPath(doubled)).toBe(key);
      }),
    );
  });

  it('a duplicate is a 400 naming the field; the same body without it parses', () => {
    const error = thrown(() => parseJsonBody('{"duration":5,"duration":12}'));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toBe('duplicate field "duration" in the request body: send each field once');
    expect(parseJsonBody('{"duration":5,"prompt":"{\\"duration\\":12}"}')).toEqual({
      duration: 5,
      prompt: '{"duration":12}',
    });
  });

  it('invalid JSON is a 400 as before', () => {
    expect(thrown(() => parseJsonBody('{"model": ')).message).toBe('request body must be valid JSON');
  });
});

describe('jsonBody (every route that reads a JSON body)', () => {
  it('refuses a body sent as text/plain with a 415, before reading it', () => {
    const error = thrown(() => jsonBody(event('{"duration":5}', { 'content-type': 'text/plain' })));
    expect(error.code).toBe(415);
    expect(error.message).toBe('Content-Type must be application/json (got text/plain)');
  });

  it('finds the header whatever its case, and reads a base64 body and a byte-order mark', () => {
    const text = '\uFEFF{"duration":5}';
    const encoded = Buffer.from(text).toString('base64');
    expect(jsonBody(event(text, { 'Content-Type': 'application/json; charset=utf-8' }))).toEqual({ duration: 5 });
    expect(jsonBody(event(encoded, { 'content-type': 'application/json' }, true))).toEqual({ duration: 5 });
  });

  it('refuses duplicate keys, also in a base64 body', () => {
    const text = '{"duration":5,"duration":12}';
    const encoded = Buffer.from(text).toString('base64');
    for (const sent of [
      event(text, { 'content-type': 'application/json' }),
      event(encoded, { 'content-type': 'application/json' }, true),
    ]) {
      expect(thrown(() => jsonBody(sent)).message).toBe(
        'duplicate field "duration" in the request body: send each field once',
      );
    }
  });

  it('an empty body is still "body required" (400), whatever its Content-Type', () => {
    const error = thrown(() => jsonBody(event(undefined, {})));
    expect(error.code).toBe(400);
    expect(error.message).toBe('request body is required: send a JSON object');
  });

  it('refuses a body that is not UTF-8 (400 for the body), sent as bytes or already decoded by the front', () => {
    const NOT_UTF8 = /^request body must be UTF-8 text: it holds bytes that are not valid UTF-8/;
    const json = { 'content-type': 'application/json' };
    const invalid = [
      Buffer.from([0x7b, 0x22, 0x70, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), // {"p":"\xff"}
      Buffer.concat([Buffer.from('{"p":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), // CESU surrogate
      Buffer.concat([Buffer.from('{"p":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]), // overlong '/'
      Buffer.concat([Buffer.from('{"p":"a'), Buffer.from([0xe4, 0xb8]), Buffer.from('"}')]), // cut short
    ];
    for (const bytes of invalid) {
      expect(thrown(() => jsonBody(event(bytes.toString('base64'), json, true))).message).toMatch(NOT_UTF8);
      // What a front that decodes leniently hands over: U+FFFD in place of the bytes.
      expect(thrown(() => jsonBody(event(bytes.toString('utf8'), json))).message).toMatch(NOT_UTF8);
    }
    expect(jsonBody(event(Buffer.from('{"p":"狐🦊"}').toString('base64'), json, true))).toEqual({ p: '狐🦊' });
    expect(jsonBody(event('{"p":"\\ufffd"}', json))).toEqual({ p: '\uFFFD' }); // an escape is the prompt's to judge
  });
});
