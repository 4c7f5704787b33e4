/**
 * Step 1 of a submit: the body in both forms (docs/api-contract.md, "Request forms", "Defaults and bounds", "References") before any model is known.
 * Every rejection must be an InvalidRequestError (400) whose message names the offending field.
 */
import { describe, expect, it } from 'vitest';
import { codePointLength, parseGenerationBody } from '../../functions/core/generation-request.js';
import { RATIOS, RESOLUTIONS } from '../../functions/core/generation-options.js';
import { IMAGE_MODES } from '../../functions/core/provider-contract.js';
import { invalidRequest } from './support.js';

const MODEL_UUID = '6f1c2a0e-5b7d-4c1e-9a3f-0d2b8e4c7a11';
const BASE = { model: 'seedance-1.5-pro', prompt: 'A red fox trots through fresh snow' };
const IMAGE = 'https://cdn.example.com/ref/fox.png';

const parse = (fields: Record<string, unknown> = {}) => parseGenerationBody({ ...BASE, ...fields });

/** Expects a 400 whose message matches `message` (which names the field). */
function rejects(body: unknown, message: RegExp | string): void {
  const error = invalidRequest(() => parseGenerationBody(body));
  expect(error.message).toMatch(message);
}

/** A URL of exactly `length` characters. */
function urlOfLength(length: number): string {
  const prefix = 'https://cdn.example.com/';
  return prefix + 'a'.repeat(length - prefix.length);
}

describe('the model: exactly one of model, model_id, modelId', () => {
  it('model names the model by its name', () => {
    expect(parse().model).toEqual({ by: 'name-or-id', value: 'seedance-1.5-pro' });
  });

  it('model also accepts an id, looked up by name or id', () => {
    expect(parseGenerationBody({ model: MODEL_UUID, prompt: 'p' }).model).toEqual({
      by: 'name-or-id',
      value: MODEL_UUID,
    });
  });

  it('model is trimmed', () => {
    expect(parseGenerationBody({ model: '  seedance-1.5-pro ', prompt: 'p' }).model.value).toBe('seedance-1.5-pro');
  });

  it('model_id (Form A) gives the id and keeps Form A', () => {
    const body = parseGenerationBody({ model_id: MODEL_UUID, prompt: 'p' });
    expect(body.model).toEqual({ by: 'id', value: MODEL_UUID });
    expect(body.form).toBe('A');
  });

  it('modelId (Form B) gives the id and makes the request Form B', () => {
    const body = parseGenerationBody({ modelId: MODEL_UUID, prompt: 'p' });
    expect(body.model).toEqual({ by: 'id', value: MODEL_UUID });
    expect(body.form).toBe('B');
  });

  it.each(['model', 'model_id', 'modelId'])('%s: null is a 400 naming it, alone or beside another', (field) => {
    rejects({ [field]: null, prompt: 'p' }, `${field}: must be a string, not null`);
    rejects({ model: 'seedance-1.5-pro', [field]: null, prompt: 'p' }, `${field}: must be a string, not null`);
  });

  it('none of the three → 400 naming all three', () => {
    rejects({ prompt: 'p' }, /model is required.*model, model_id or modelId/);
  });

  it.each([
    [{ model: 'seedance-1.5-pro', model_id: MODEL_UUID }, 'model and model_id'],
    [{ model: 'seedance-1.5-pro', modelId: MODEL_UUID }, 'model and modelId'],
    [{ model_id: MODEL_UUID, modelId: MODEL_UUID }, 'model_id and modelId'],
    [{ model: 'seedance-1.5-pro', model_id: MODEL_UUID, modelId: MODEL_UUID }, 'model and model_id and modelId'],
  ])('two or more of them (%j) → 400', (fields, named) => {
    rejects({ prompt: 'p', ...fields }, `send only one of model, model_id or modelId (got ${named})`);
  });

  it.each(['model_id', 'modelId'])('%s must be a UUID', (field) => {
    rejects({ prompt: 'p', [field]: 'seedance-1.5-pro' }, `${field}: must be a UUID`);
    rejects({ prompt: 'p', [field]: `${MODEL_UUID}0` }, `${field}: must be a UUID`);
    rejects({ prompt: 'p', [field]: 42 }, `${field}: must be a string`);
  });

  it.each(['', '   '])('model %j is empty → 400', (model) => {
    rejects({ prompt: 'p', model }, 'model: must not be empty');
  });

  it('model must be a string', () => {
    rejects({ prompt: 'p', model: 7 }, 'model: must be a string');
  });
});

describe('both spellings of every field', () => {
  const spellings = [
    { snake: 'image_urls', camel: 'imageUrls', key: 'imageUrls', value: [IMAGE] },
    { snake: 'video_urls', camel: 'videoUrls', key: 'videoUrls', value: ['https://cdn.example.com/ref/a.mp4'] },
    { snake: 'audio_urls', camel: 'audioUrls', key: 'audioUrls', value: ['http://cdn.example.com/ref/a.mp3'] },
    { snake: 'webhook_url', camel: 'webhookUrl', key: 'webhookUrl', value: 'https://hooks.example.com/done' },
    { snake: 'generate_audio', camel: 'generateAudio', key: 'generateAudio', value: false },
    { snake: 'image_mode', camel: 'imageMode', key: 'imageMode', value: 'first_last_frame' },
  ] as const;

  describe.each(spellings)('$snake / $camel', ({ snake, camel, key, value }) => {
    it(`${snake} is read (Form A)`, () => {
      const body = parse({ [snake]: value });
      expect(body[key]).toEqual(value);
      expect(body.form).toBe('A');
    });

    it(`${camel} is read (Form B)`, () => {
      const body = parse({ [camel]: value });
      expect(body[key]).toEqual(value);
      expect(body.form).toBe('B');
    });

    it('both spellings in one request → 400 naming both', () => {
      rejects({ ...BASE, [snake]: value, [camel]: value }, `${snake} and ${camel} are two spellings of one field`);
    });

    it('one spelling null beside the other is still two spellings (400)', () => {
      rejects({ ...BASE, [snake]: null, [camel]: value }, /two spellings/);
      rejects({ ...BASE, [snake]: value, [camel]: null }, /two spellings/);
    });
  });

  it('seed has one spelling and does not change the form', () => {
    const body = parse({ seed: 42 });
    expect(body.seed).toBe(42);
    expect(body.form).toBe('A');
  });

  it('a Form B body with every camelCase field', () => {
    const body = parseGenerationBody({
      modelId: MODEL_UUID,
      prompt: 'p',
      ratio: '9:16',
      resolution: '4k',
      duration: 30,
      imageUrls: [IMAGE],
      videoUrls: ['https://cdn.example.com/v.mp4'],
      audioUrls: ['https://cdn.example.com/a.wav'],
      webhookUrl: 'https://hooks.example.com/b',
      generateAudio: true,
      imageMode: 'reference',
      seed: 7,
    });
    expect(body).toEqual({
      form: 'B',
      model: { by: 'id', value: MODEL_UUID },
      prompt: 'p',
      resolution: '4k',
      durationSeconds: 30,
      ratio: '9:16',
      imageUrls: [IMAGE],
      videoUrls: ['https://cdn.example.com/v.mp4'],
      audioUrls: ['https://cdn.example.com/a.wav'],
      seed: 7,
      webhookUrl: 'https://hooks.example.com/b',
      generateAudio: true,
      imageMode: 'reference',
      fieldNames: {
        imageUrls: 'imageUrls',
        videoUrls: 'videoUrls',
        audioUrls: 'audioUrls',
        webhookUrl: 'webhookUrl',
        imageMode: 'imageMode',
      },
    });
  });

  it('optional fields left out stay unset (defaults come with the model) and lists are empty', () => {
    expect(parse()).toEqual({
      form: 'A',
      model: { by: 'name-or-id', value: 'seedance-1.5-pro' },
      prompt: BASE.prompt,
      resolution: undefined,
      durationSeconds: undefined,
      ratio: undefined,
      imageUrls: [],
      videoUrls: [],
      audioUrls: [],
      seed: undefined,
      webhookUrl: undefined,
      generateAudio: undefined,
      imageMode: undefined,
      fieldNames: {
        imageUrls: 'image_urls',
        videoUrls: 'video_urls',
        audioUrls: 'audio_urls',
        webhookUrl: 'webhook_url',
        imageMode: 'image_mode',
      },
    });
  });

  it('optional fields left out are absent keys, not keys holding undefined', () => {
    const body = parse();
    for (const key of ['resolution', 'durationSeconds', 'ratio', 'seed', 'webhookUrl', 'generateAudio', 'imageMode']) {
      expect(Object.hasOwn(body, key), key).toBe(false);
    }
  });
});

describe('which form', () => {
  it('a body with only snake_case fields is Form A', () => {
    const body = parse({
      resolution: '720p',
      duration: 10,
      ratio: '1:1',
      image_urls: [IMAGE],
      webhook_url: 'https://hooks.example.com/a',
      generate_audio: true,
      seed: -1,
    });
    expect(body.form).toBe('A');
  });

  it.each([
    ['modelId', MODEL_UUID],
    ['imageUrls', [IMAGE]],
    ['videoUrls', []],
    ['audioUrls', []],
    ['webhookUrl', 'https://hooks.example.com/b'],
    ['generateAudio', false],
    ['imageMode', 'reference'],
  ])('any camelCase field (%s) makes it Form B', (field, value) => {
    const fields: Record<string, unknown> = { prompt: 'p', [field]: value };
    if (field !== 'modelId') fields.model = 'seedance-1.5-pro';
    expect(parseGenerationBody(fields).form).toBe('B');
  });

  it('a camelCase field sent as null is refused before any form is chosen', () => {
    rejects({ ...BASE, imageUrls: null }, 'imageUrls: must be an array of URLs, not null');
  });

  it('snake_case and camelCase of different fields mix (Form B, both read)', () => {
    const body = parse({ image_urls: [IMAGE], webhookUrl: 'https://hooks.example.com/b' });
    expect(body.form).toBe('B');
    expect(body.imageUrls).toEqual([IMAGE]);
    expect(body.webhookUrl).toBe('https://hooks.example.com/b');
  });
});

describe('prompt: 1 to 20480 Unicode code points, required', () => {
  it.each([
    ['one character', 'a'],
    ['20480 ASCII characters', 'a'.repeat(20480)],
    ['20480 emoji (40960 UTF-16 units)', '😀'.repeat(20480)],
    ['20479 ASCII + one emoji', `${'a'.repeat(20479)}🦊`],
    ['CJK text', '一只红狐狸在雪中小跑'],
  ])('accepts %s', (_label, prompt) => {
    expect(parse({ prompt }).prompt).toBe(prompt);
  });

  it.each([
    ['20481 ASCII characters', 'a'.repeat(20481)],
    ['20481 emoji', '😀'.repeat(20481)],
    ['20480 ASCII + one emoji', `${'a'.repeat(20480)}🦊`],
  ])('rejects %s', (_label, prompt) => {
    rejects({ ...BASE, prompt }, 'prompt: must be at most 20480 characters');
  });

  it('rejects an empty prompt', () => {
    rejects({ ...BASE, prompt: '' }, 'prompt: must not be empty');
  });

  it.each([
    ['a space', ' '],
    ['tabs and newlines', '\t\n \r\n'],
    ['an ideographic space', '\u3000'],
    ['no-break and zero-width spaces', '\u00A0\u200B\uFEFF'],
  ])('rejects a prompt of only whitespace (%s), in Form A and in Form B', (_label, prompt) => {
    rejects({ ...BASE, prompt }, 'prompt: must contain visible text, not only whitespace');
    rejects({ modelId: MODEL_UUID, prompt }, 'prompt: must contain visible text, not only whitespace');
  });

  it('keeps whitespace around text as sent', () => {
    expect(parse({ prompt: '  a fox\n' }).prompt).toBe('  a fox\n');
  });

  it('rejects a missing prompt in our words, saying what to send', () => {
    rejects(
      { model: 'seedance-1.5-pro' },
      'prompt is required: send the text that describes the video, 1 to 20480 characters',
    );
  });

  it.each([null, 42, ['a'], { text: 'a' }])('rejects a prompt that is not a string (%j)', (prompt) => {
    rejects({ ...BASE, prompt }, 'prompt: must be a string of 1 to 20480 characters');
  });

  it.each([
    ['a lone high surrogate', 'a fox \ud800', 'must be well-formed Unicode text'],
    ['a lone low surrogate', '\udc00 a fox', 'must be well-formed Unicode text'],
    ['U+FFFD, left where bytes were lost', 'a fox \uFFFD', 'must be well-formed Unicode text'],
    ['NUL', 'a fox\u0000', 'must not contain control characters (it holds U+0000)'],
    ['an escape', 'a \u001b[31mfox', 'must not contain control characters (it holds U+001B)'],
    ['DEL', 'a fox\u007f', 'must not contain control characters (it holds U+007F)'],
    ['a C1 control', 'a fox\u0085', 'must not contain control characters (it holds U+0085)'],
    ['combining marks only', '\u0301\u0308\u0327', 'must contain visible text'],
    ['zero-width characters only', '\u200b\u200c\u200d\u2060', 'must contain visible text'],
    ['a Hangul filler and a braille blank', '\u3164\u2800', 'must contain visible text'],
  ])('rejects a prompt with %s, naming what is wrong', (_label, prompt, message) => {
    rejects({ ...BASE, prompt }, `prompt: ${message}`);
  });

  it.each([
    ['tab, line feed and carriage return', 'a fox\r\n\tin the snow'],
    ['a combining mark on a letter', 'cafe\u0301 in the snow'],
    ['an emoji joined by a zero-width joiner', 'a family 👨\u200d👩\u200d👧 in the snow'],
    ['a single punctuation mark', '?'],
  ])('accepts a prompt with %s', (_label, prompt) => {
    expect(parse({ prompt }).prompt).toBe(prompt);
  });

  it('codePointLength counts code points, not UTF-16 units', () => {
    expect(codePointLength('')).toBe(0);
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('😀')).toBe(1);
    expect('😀'.length).toBe(2);
    expect(codePointLength('a😀b𝄞')).toBe(4);
  });
});

describe('duration: any value is left to the chosen model', () => {
  it.each([5, 6, 12, 15, 29, 30])('accepts %s', (duration) => {
    expect(parse({ duration }).durationSeconds).toBe(duration);
  });

  it.each([4, 31, 0, -5, 5.5, '10', true, [10]])(
    'leaves %j to the chosen model (resolve-generation.ts)',
    (duration) => {
      expect(parse({ duration }).durationSeconds).toEqual(duration);
    },
  );

  it('null is a 400 naming duration, not the default billed (absent is the default)', () => {
    rejects(
      { ...BASE, duration: null },
      'duration: must be a whole number of seconds, not null (leave duration out to get its default)',
    );
    expect(parse().durationSeconds).toBeUndefined();
  });
});

describe('resolution and ratio enums (rows 4 and 5)', () => {
  it.each(RESOLUTIONS)('resolution %s is accepted', (resolution) => {
    expect(parse({ resolution }).resolution).toBe(resolution);
  });

  it.each(['720P', '360p', '8k', '1440p', '', 720])('resolution %j is left to the chosen model', (resolution) => {
    expect(parse({ resolution }).resolution).toBe(resolution);
  });

  it.each(RATIOS)('ratio %s is accepted', (ratio) => {
    expect(parse({ ratio }).ratio).toBe(ratio);
  });

  it.each(['2:1', '16/9', '16:10', '', 1.77])('ratio %j is left to the chosen model', (ratio) => {
    expect(parse({ ratio }).ratio).toBe(ratio);
  });

  it('null resolution or ratio is a 400 naming the field and its values', () => {
    rejects({ ...BASE, resolution: null }, 'resolution: must be one of 480p, 720p, 1080p, 2k, 4k, not null');
    rejects({ ...BASE, ratio: null }, 'ratio: must be one of 16:9, 4:3, 1:1, 3:4, 9:16, 21:9, not null');
  });
});

describe.each([
  { snake: 'image_urls', camel: 'imageUrls', key: 'imageUrls', max: 9 },
  { snake: 'video_urls', camel: 'videoUrls', key: 'videoUrls', max: 3 },
  { snake: 'audio_urls', camel: 'audioUrls', key: 'audioUrls', max: 3 },
] as const)('references $snake / $camel: at most $max http(s) URLs', ({ snake, camel, key, max }) => {
  const urls = (count: number) => Array.from({ length: count }, (_, i) => `https://cdn.example.com/ref/${i}`);

  it.each([snake, camel])(`%s accepts 0, 1 and ${max} URLs`, (field) => {
    for (const count of [0, 1, max]) expect(parse({ [field]: urls(count) })[key]).toEqual(urls(count));
  });

  it.each([snake, camel])(`%s rejects ${max + 1} URLs`, (field) => {
    rejects({ ...BASE, [field]: urls(max + 1) }, `${field}: must hold at most ${max} URLs`);
  });

  it.each([
    'ftp://cdn.example.com/ref/a',
    'javascript:alert(1)',
    '/relative/ref.png',
    'ref.png',
    'cdn.example.com/ref.png',
    'file:///etc/passwd',
    'data:image/png;base64,AAAA',
    'mailto:someone@example.com',
    'http://',
    'https://',
    '',
  ])(`rejects %j, naming the list and the index`, (bad) => {
    rejects({ ...BASE, [snake]: [IMAGE, bad] }, `${snake}[1]: must be an absolute http or https URL`);
    rejects({ ...BASE, [camel]: [bad] }, `${camel}[0]: must be an absolute http or https URL`);
  });

  it('accepts http and https', () => {
    const list = ['http://cdn.example.com/a', 'https://cdn.example.com:8443/a?x=1#y'];
    expect(parse({ [snake]: list })[key]).toEqual(list);
  });

  it('a URL may be 2048 characters long, not 2049', () => {
    expect(parse({ [snake]: [urlOfLength(2048)] })[key]).toEqual([urlOfLength(2048)]);
    rejects({ ...BASE, [snake]: [urlOfLength(2049)] }, `${snake}[0]: must be at most 2048 characters`);
  });

  it('entries must be strings and the field an array', () => {
    rejects({ ...BASE, [snake]: [42] }, `${snake}[0]: must be a string URL`);
    rejects({ ...BASE, [camel]: IMAGE }, `${camel}: must be an array of URLs`);
  });

  it.each([snake, camel])('%s: null is a 400 naming it', (field) => {
    rejects({ ...BASE, [field]: null }, `${field}: must be an array of URLs, not null`);
  });
});

describe('seed: integer -1..4294967295', () => {
  it.each([-1, 0, 1, 42, 2 ** 31, 4294967295])('accepts %s', (seed) => {
    expect(parse({ seed }).seed).toBe(seed);
  });

  it.each([-2, 4294967296, 1.5, '7', true])('rejects %j', (seed) => {
    rejects({ ...BASE, seed }, /^seed: must be/);
  });

  it('names the bounds', () => {
    rejects({ ...BASE, seed: -2 }, 'seed: must be between -1 and 4294967295');
    rejects({ ...BASE, seed: 4294967296 }, 'seed: must be between -1 and 4294967295');
  });

  it('null is a 400 naming seed', () => {
    rejects({ ...BASE, seed: null }, 'seed: must be an integer, not null (leave seed out to get its default)');
  });
});

describe.each(['webhook_url', 'webhookUrl'])('%s', (field) => {
  it.each(['https://hooks.example.com/video-done', 'http://hooks.example.com:8080/cb?token=abc'])(
    'accepts %s',
    (url) => {
      expect(parse({ [field]: url }).webhookUrl).toBe(url);
    },
  );

  it.each(['ftp://hooks.example.com/cb', 'javascript:alert(1)', '/callback', 'hooks.example.com/cb', ''])(
    'rejects %j',
    (url) => {
      rejects({ ...BASE, [field]: url }, `${field}: must be an absolute http or https URL`);
    },
  );

  it('rejects a URL longer than 2048 characters', () => {
    expect(parse({ [field]: urlOfLength(2048) }).webhookUrl).toBe(urlOfLength(2048));
    rejects({ ...BASE, [field]: urlOfLength(2049) }, `${field}: must be at most 2048 characters`);
  });

  it('rejects a non-string', () => {
    rejects({ ...BASE, [field]: 42 }, `${field}: must be a string URL`);
  });
});

describe.each(['generate_audio', 'generateAudio'])('%s', (field) => {
  it.each([true, false])('accepts %s', (value) => {
    expect(parse({ [field]: value }).generateAudio).toBe(value);
  });

  it.each(['true', 1, 0, 'yes'])('rejects %j', (value) => {
    rejects({ ...BASE, [field]: value }, `${field}: must be true or false`);
  });
});

describe.each(['image_mode', 'imageMode'])("%s: the images' role upstream", (field) => {
  it.each(IMAGE_MODES)('accepts %s', (mode) => {
    expect(parse({ [field]: mode, image_urls: [IMAGE] }).imageMode).toBe(mode);
  });

  it('the modes are exactly first_frame, first_last_frame and reference', () => {
    expect([...IMAGE_MODES]).toEqual(['first_frame', 'first_last_frame', 'reference']);
  });

  it.each(['last_frame', 'first-frame', 'FIRST_FRAME', 'references', 'text', '', 1, true, ['reference'], {}])(
    'rejects %j, naming the allowed ones',
    (mode) => {
      rejects({ ...BASE, [field]: mode }, `${field}: must be one of first_frame, first_last_frame, reference`);
    },
  );

  it('null is a 400 naming the field and the modes', () => {
    rejects({ ...BASE, [field]: null }, `${field}: must be one of first_frame, first_last_frame, reference, not null`);
  });

  it('messages name the spelling sent', () => {
    expect(parse({ [field]: 'reference' }).fieldNames.imageMode).toBe(field);
  });

  it(`${field} is read without images: whether it fits them is the model's check (step 2)`, () => {
    expect(parse({ [field]: 'first_frame' }).imageMode).toBe('first_frame');
  });
});

describe('unknown fields (a misspelt field must not silently bill the default)', () => {
  const KNOWN: Record<string, unknown> = {
    model: 'seedance-1.5-pro',
    model_id: MODEL_UUID,
    modelId: MODEL_UUID,
    prompt: 'p',
    resolution: '720p',
    duration: 10,
    ratio: '16:9',
    image_urls: [IMAGE],
    imageUrls: [IMAGE],
    video_urls: [],
    videoUrls: [],
    audio_urls: [],
    audioUrls: [],
    seed: 1,
    webhook_url: 'https://hooks.example.com/a',
    webhookUrl: 'https://hooks.example.com/a',
    generate_audio: true,
    generateAudio: true,
    image_mode: 'first_frame',
    imageMode: 'first_frame',
  };

  it.each(Object.entries(KNOWN))('%s is a known field', (field, value) => {
    const model = field === 'model_id' || field === 'modelId' ? {} : { model: 'seedance-1.5-pro' };
    expect(() => parseGenerationBody({ ...model, prompt: 'p', [field]: value })).not.toThrow();
  });

  it('a misspelt duration (durration) → 400 naming it, even beside a valid body', () => {
    rejects({ ...BASE, duration: 5, durration: 10 }, /^unknown field: durration$/);
  });

  it('several unknown fields → 400 naming each, in the order sent', () => {
    rejects(
      { ...BASE, durration: 10, aspect_ratio: '16:9', Model: 'x' },
      /^unknown fields: durration, aspect_ratio, Model$/,
    );
  });

  it.each([
    'Prompt',
    'durations',
    'image_url',
    'imageURLs',
    'image_urls ',
    'generateaudio',
    'imagemode',
    'image-mode',
    'callback_url',
    'negative_prompt',
    'watermark',
    'content',
    'constructor',
    'toString',
    'hasOwnProperty',
  ])('%j is not a known field', (field) => {
    rejects({ ...BASE, [field]: 'x' }, `unknown field: ${field}`);
  });

  it('__proto__ sent as a JSON key is an unknown field too', () => {
    const body: unknown = JSON.parse('{"model":"seedance-1.5-pro","prompt":"p","__proto__":{"duration":5}}');
    rejects(body, 'unknown field: __proto__');
  });

  it('an unknown field is refused even when null', () => {
    rejects({ ...BASE, durration: null }, 'unknown field: durration');
  });

  it('an unknown field is named before the other problems of the body', () => {
    rejects({ prompt: '', durration: 5 }, 'unknown field: durration');
  });
});

describe('the body itself', () => {
  it.each([
    ['an array', [BASE]],
    ['a string', JSON.stringify(BASE)],
    ['null', null],
    ['undefined', undefined],
    ['a number', 42],
    ['a boolean', true],
  ])('rejects %s', (_label, body) => {
    rejects(body, 'request body must be a JSON object');
  });

  it('reports the first problem when several fields are wrong', () => {
    const error = invalidRequest(() => parseGenerationBody({ model: 'm', prompt: '', duration: 99 }));
    expect(error.message).toMatch(/^(prompt|duration): /);
  });
});

describe("Ark's legacy prompt options", () => {
  it.each(['a fox --dur 12', 'a fox --rs 1080p --rt 16:9', '--resolution=1080p a fox', 'a fox --WM true'])(
    '%j → 400: a prompt option could make another video than the one priced',
    (prompt) => {
      expect(invalidRequest(() => parseGenerationBody({ model: 'seedance-1.5-pro', prompt })).message).toMatch(
        /^prompt: must not contain option flags such as --dur or --rs/,
      );
    },
  );

  const formA: Record<string, unknown> = { model: 'seedance-1.5-pro' };
  it.each([
    ['full-width', 'a fox －－dur 12', formA],
    ['full-width letters too', 'a fox －－ｄｕｒ　１２', formA],
    ['small hyphen-minus', 'a fox \uFE63\uFE63rs 1080p', formA],
    ['full-width, in Form B', 'a fox －－dur 12', { modelId: MODEL_UUID }],
  ])('%s: %j → 400 as the ASCII spelling (NFKC first)', (_label, prompt, model) => {
    expect(invalidRequest(() => parseGenerationBody({ ...model, prompt })).message).toMatch(
      /^prompt: must not contain option flags such as --dur or --rs/,
    );
  });

  it.each([
    ['an em dash for two hyphens', 'a fox —dur 12'],
    ['an en dash for two hyphens', 'a fox –rs 1080p'],
    ['minus signs', 'a fox \u2212\u2212dur 12'],
    ['small and full-width hyphen-minus, mixed', 'a fox \uFE63－rs 1080p'],
    ['a zero-width space inside', 'a fox --\u200brs 1080p'],
    ['a soft hyphen and a word joiner inside', 'a fox -\u00AD-d\u2060ur 12'],
    ['a zero-width space before', 'a fox\u200b--rt 9:16'],
    ['a hyphen and a non-breaking hyphen', 'a fox -\u2011fps 60'],
  ])('%s: %j → 400 as the ASCII spelling', (_label, prompt) => {
    expect(invalidRequest(() => parseGenerationBody({ model: 'seedance-1.5-pro', prompt })).message).toMatch(
      /^prompt: must not contain option flags such as --dur or --rs/,
    );
  });

  it.each([
    'a fox -- in the snow',
    'a fox --durable',
    'em—dash and a --- rule',
    'ｆｕｌｌ－ｗｉｄｔｈ text',
    'a fox — running',
  ])('%j is a prompt like any other', (prompt) => {
    expect(parseGenerationBody({ model: 'seedance-1.5-pro', prompt }).prompt).toBe(prompt);
  });
});
