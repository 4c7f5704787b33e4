/**
 * Properties of the submit body (docs/api-contract.md, "Defaults and bounds", "Prompts"): null in any field of
 * either form, a prompt that is not well-formed text, has no visible text or carries a legacy option in any
 * disguise, is a 400 naming the field and the rule; a well-formed prompt with visible text is taken as sent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGenerationBody } from '../../functions/core/generation-request.js';
import { invalidRequest } from './support.js';

const MODEL_UUID = '6f1c2a0e-5b7d-4c1e-9a3f-0d2b8e4c7a11';

/** A valid value of every field, in each form's spelling; the model's three spellings first. */
const FORM_A: Record<string, unknown> = {
  model: 'seedance-1.5-pro',
  model_id: MODEL_UUID,
  resolution: '720p',
  duration: 5,
  ratio: '16:9',
  image_urls: ['https://cdn.example.com/a.png'],
  video_urls: [],
  audio_urls: [],
  seed: 7,
  webhook_url: 'https://hooks.example.com/a',
  generate_audio: false,
  image_mode: 'first_frame',
};
const FORM_B: Record<string, unknown> = {
  modelId: MODEL_UUID,
  resolution: '720p',
  duration: 5,
  ratio: '16:9',
  imageUrls: ['https://cdn.example.com/a.png'],
  videoUrls: [],
  audioUrls: [],
  seed: 7,
  webhookUrl: 'https://hooks.example.com/a',
  generateAudio: false,
  imageMode: 'first_frame',
};
const FIELDS = [...new Set(['prompt', ...Object.keys(FORM_A), ...Object.keys(FORM_B)])];

/** The other spelling of a field, which must not be sent beside it (that is another 400). */
const PARTNER: Record<string, string> = Object.fromEntries(
  ['image_urls', 'video_urls', 'audio_urls', 'webhook_url', 'generate_audio', 'image_mode'].flatMap((snake) => {
    const camel = snake.replace(/_(\w)/g, (_match, letter: string) => letter.toUpperCase());
    return [
      [snake, camel],
      [camel, snake],
    ];
  }),
);

const refusal = (body: unknown) => invalidRequest(() => parseGenerationBody(body)).message;
const asText = (codePoints: number[]) => String.fromCodePoint(...codePoints);

/** Whitespace that is no control character (a control is refused by its own rule). */
const WHITESPACE = [0x9, 0xa, 0xd, 0x20, 0xa0, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000];
/** Zero-width and other format or ignorable characters, which show nothing. */
const INVISIBLE = [0xad, 0x34f, 0x61c, 0x180e, 0x200b, 0x200c, 0x200d, 0x200e, 0x2060, 0x2063, 0xfe0f, 0xfeff];
const combiningMark = fc.oneof(fc.integer({ min: 0x300, max: 0x36f }), fc.integer({ min: 0x20d0, max: 0x20f0 }));
const invisible = fc.oneof(fc.constantFrom(...WHITESPACE, ...INVISIBLE), combiningMark);

/** Well-formed pieces with visible text: CJK, emoji (ZWJ sequences too), combining marks on a base letter. */
const visiblePiece = fc.oneof(
  fc.constantFrom(
    '一只红狐狸',
    '雪の中',
    '여우',
    'ثعلب',
    '🦊',
    '👨\u200d👩\u200d👧',
    '🏳️\u200d🌈',
    'e\u0301',
    'n\u0303o',
    'Ａ',
  ),
  fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789 .,!?'), minLength: 1, maxLength: 30 }),
);
const spacing = fc.constantFrom(' ', '\n', '\t', '\r\n', '\u3000', '');
const visiblePrompt = fc
  .array(fc.tuple(visiblePiece, spacing), { minLength: 1, maxLength: 12 })
  .map((parts) => parts.map(([piece, space]) => piece + space).join(''))
  .filter((text) => /[\p{L}\p{N}\p{P}\p{S}]/u.test(text));

/** A well-formed prompt with a character inserted at a code point boundary. */
const withInserted = (inserted: fc.Arbitrary<string>) =>
  fc.tuple(visiblePrompt, inserted, fc.nat()).map(([text, bad, at]) => {
    const codePoints = [...text];
    codePoints.splice(at % (codePoints.length + 1), 0, bad);
    return codePoints.join('');
  });

describe('null in any field of either form', () => {
  it('is a 400 naming that field and what it takes, never its default', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(FORM_A, FORM_B),
        fc.constantFrom(...FIELDS),
        fc.subarray(FIELDS),
        (form, field, others) => {
          const body: Record<string, unknown> = { prompt: 'a red fox in the snow' };
          const model = form === FORM_A ? 'model' : 'modelId';
          body[model] = form[model];
          for (const other of others)
            if (Object.hasOwn(form, other) && !other.startsWith('model')) body[other] = form[other];
          delete body[PARTNER[field] ?? ''];
          body[field] = null;
          const message = refusal(body);
          expect(message.startsWith(`${field}: must be `), message).toBe(true);
          expect(message).toContain(', not null');
        },
      ),
    );
  });
});

describe('prompt: well-formed Unicode with visible text', () => {
  it('any lone surrogate is refused as not well-formed', () => {
    const lone = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));
    fc.assert(
      fc.property(withInserted(lone), (prompt) => {
        expect(refusal({ model: 'seedance-1.5-pro', prompt })).toMatch(/^prompt: must be well-formed Unicode text/);
      }),
    );
  });

  it('NUL and any other C0 or C1 control but tab, line feed and carriage return is refused, named', () => {
    const controls = [
      ...Array.from({ length: 0x20 }, (_, code) => code).filter((code) => ![0x9, 0xa, 0xd].includes(code)),
      ...Array.from({ length: 0x21 }, (_, offset) => 0x7f + offset),
    ];
    fc.assert(
      fc.property(withInserted(fc.constantFrom(...controls).map((code) => asText([code]))), (prompt) => {
        expect(refusal({ modelId: MODEL_UUID, prompt })).toMatch(
          /^prompt: must not contain control characters \(it holds U\+00[0-9A-F]{2}\): only tab, line feed and carriage return are allowed$/,
        );
      }),
    );
  });

  it('only whitespace, combining marks and zero-width or format characters is refused as no visible text', () => {
    fc.assert(
      fc.property(fc.array(invisible, { minLength: 1, maxLength: 40 }), fc.boolean(), (codePoints, formB) => {
        const model = formB ? { modelId: MODEL_UUID } : { model: 'seedance-1.5-pro' };
        expect(refusal({ ...model, prompt: asText(codePoints) })).toMatch(/^prompt: must contain visible text/);
      }),
    );
  });

  it('well-formed prompts with visible text (CJK, emoji, marks on a base letter) are taken as sent', () => {
    fc.assert(
      fc.property(visiblePrompt, fc.array(invisible, { maxLength: 5 }), (text, extra) => {
        const prompt = text + asText(extra);
        expect(parseGenerationBody({ model: 'seedance-1.5-pro', prompt }).prompt).toBe(prompt);
      }),
    );
  });
});

describe("Ark's legacy options in any disguise", () => {
  const FLAGS = ['rs', 'rt', 'dur', 'cf', 'wm', 'fps', 'seed', 'resolution', 'ratio', 'duration', 'watermark'];
  /** Each stands for one hyphen. */
  const HYPHENS = [
    '-',
    '\u2010',
    '\u2011',
    '\u2012',
    '\u2212',
    '\u207b',
    '\u208b',
    '\u02d7',
    '\u2796',
    '\ufe63',
    '\uff0d',
  ];
  /** Each stands for two, as a word processor writes a typed `--`. */
  const LONG_DASHES = ['\u2013', '\u2014', '\u2015', '\u2e3a', '\u2e3b', '\ufe58', '\ufe31', '\ufe32'];
  const ZERO_WIDTH = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u180e'];

  const dashes = fc.oneof(
    fc.constantFrom(...LONG_DASHES),
    fc.tuple(fc.constantFrom(...HYPHENS), fc.constantFrom(...HYPHENS)).map(([a, b]) => a + b),
  );
  const flagName = fc
    .tuple(fc.constantFrom(...FLAGS), fc.array(fc.boolean(), { minLength: 11, maxLength: 11 }))
    .map(([name, upper]) => [...name].map((letter, at) => (upper[at] ? letter.toUpperCase() : letter)).join(''));
  /** The flag with zero-width characters put between any of its characters. */
  const disguised = fc
    .tuple(dashes, flagName, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...ZERO_WIDTH)), { maxLength: 4 }))
    .map(([dash, name, insertions]) => {
      const characters = [...(dash + name)];
      for (const [at, zeroWidth] of insertions) characters.splice(at % (characters.length + 1), 0, zeroWidth);
      return characters.join('');
    });

  it('is refused: every dash and minus sign reads as a hyphen, and zero-width characters are not there', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('', 'a fox ', 'a fox\n', '一只狐狸\u3000'),
        disguised,
        fc.constantFrom('', ' 12', '=1080p', ' 16:9 in the snow'),
        (before, flag, after) => {
          expect(refusal({ model: 'seedance-1.5-pro', prompt: `${before}${flag}${after}` })).toMatch(
            /^prompt: must not contain option flags such as --dur or --rs/,
          );
        },
      ),
    );
  });
});
