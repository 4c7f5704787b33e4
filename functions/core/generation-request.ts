/**
 * The submit body in both forms (docs/api-contract.md, "Request forms", "Defaults and bounds", "References"), parsed into one request.
 * Step 1 (`parseGenerationBody`) checks what can be checked without the model; step 2
 * (`resolveGeneration`, in resolve-generation.ts) applies the chosen model's defaults and limits.
 */
import * as v from 'valibot';
import { InvalidRequestError } from './api-error.js';
import {
  MAX_DURATION_SECONDS,
  MAX_PROMPT_CODE_POINTS,
  MAX_REFERENCES,
  MAX_URL_LENGTH,
  MIN_DURATION_SECONDS,
  RATIOS,
  RESOLUTIONS,
} from './generation-options.js';
import type { Ratio, Resolution } from './generation-options.js';
import { IMAGE_MODES } from './provider-contract.js';
import { carriesLegacyOption, forbiddenControl, hasVisibleText, isWellFormedText } from './prompt-text.js';
import { uploadIdOf } from './uploads.js';

export type RequestForm = 'A' | 'B';

export type ModelReference = { by: 'name-or-id'; value: string } | { by: 'id'; value: string };

/** Pairs of spellings of one field (docs/api-contract.md, "Request forms"). The camelCase one marks Form B. */
export const SPELLINGS = [
  ['image_urls', 'imageUrls'],
  ['video_urls', 'videoUrls'],
  ['audio_urls', 'audioUrls'],
  ['webhook_url', 'webhookUrl'],
  ['generate_audio', 'generateAudio'],
  ['image_mode', 'imageMode'],
] as const;
const FORM_B_FIELDS = ['modelId', 'imageUrls', 'videoUrls', 'audioUrls', 'webhookUrl', 'generateAudio', 'imageMode'];

const httpUrl = v.pipe(
  v.string('must be a string URL'),
  v.maxLength(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`),
  v.check(isHttpUrl, 'must be an absolute http or https URL'),
);

/** A reference: an http(s) URL, or the file_url of one of our uploads (docs/api-contract.md, "References", "Uploads"). */
const referenceUrl = v.pipe(
  v.string('must be a string URL'),
  v.maxLength(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`),
  v.check(
    (text) => isHttpUrl(text) || uploadIdOf(text) !== undefined,
    'must be an absolute http or https URL, or a file_url from POST /api/v1/uploads',
  ),
);

const urlList = (max: number) =>
  v.optional(
    v.pipe(v.array(referenceUrl, 'must be an array of URLs'), v.maxLength(max, `must hold at most ${max} URLs`)),
  );

const uuidText = v.pipe(v.string('must be a string'), v.uuid('must be a UUID'));

const integerIn = (min: number, max: number, what: string) =>
  v.optional(
    v.pipe(
      v.number(`must be ${what}`),
      v.integer(`must be ${what}`),
      v.minValue(min, `must be between ${min} and ${max}`),
      v.maxValue(max, `must be between ${min} and ${max}`),
    ),
  );

const imageMode = v.optional(v.picklist(IMAGE_MODES, `must be one of ${IMAGE_MODES.join(', ')}`));

/** The model's three spellings (also the OpenAPI document's, functions/http/openapi/). */
export const ModelSchema = v.object({
  model: v.optional(v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'))),
  model_id: v.optional(uuidText),
  modelId: v.optional(uuidText),
});

/**
 * The generation's fields as sent, then under one name each. The resolved generation, the stored task
 * and the upstream request all take their types from this output: a new field for the upstream is
 * added here, defaulted in resolve-generation.ts if it needs a default, and mapped in the adapter.
 */
/** Metadata limits (docs/api-contract.md, "Metadata"): as many pairs, and as long, as OpenAI's and Stripe's take. */
export const MAX_METADATA_PAIRS = 16;
export const MAX_METADATA_KEY_LENGTH = 64;
export const MAX_METADATA_VALUE_LENGTH = 512;

/** The client's own data on a task: up to 16 string pairs, echoed on the task, in lists and in webhooks. */
export const TaskMetadataSchema = v.pipe(
  // A JSON list is an object too, and a record would take it with keys "0", "1", …: refused first.
  v.unknown(),
  v.check(
    (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
    'must be an object of string keys and string values',
  ),
  v.record(
    v.pipe(
      v.string(),
      v.minLength(1, 'keys must not be empty'),
      v.maxLength(MAX_METADATA_KEY_LENGTH, `keys must be at most ${MAX_METADATA_KEY_LENGTH} characters`),
    ),
    v.pipe(
      v.string('values must be strings'),
      v.maxLength(MAX_METADATA_VALUE_LENGTH, `values must be at most ${MAX_METADATA_VALUE_LENGTH} characters`),
    ),
    'must be an object of string keys and string values',
  ),
  v.check(
    (pairs) => Object.keys(pairs).length <= MAX_METADATA_PAIRS,
    `must hold at most ${MAX_METADATA_PAIRS} key-value pairs`,
  ),
  v.description(
    `Your own data: up to ${MAX_METADATA_PAIRS} string pairs, keys ≤ ${MAX_METADATA_KEY_LENGTH} and values ≤ ${MAX_METADATA_VALUE_LENGTH} characters; echoed on the task, in lists (filter with metadata[key]=value) and in webhooks.`,
  ),
);

export const GenerationSchema = v.pipe(
  v.object({
    prompt: v.pipe(
      v.string(`must be a string of 1 to ${MAX_PROMPT_CODE_POINTS} characters`),
      // docs/api-contract.md, "Prompts": nothing the upstream would garble or read as structure is charged for.
      v.check(
        isWellFormedText,
        'must be well-formed Unicode text: it holds a lone surrogate (an unpaired \\ud800-\\udfff escape) or U+FFFD, the mark of bytes that were not UTF-8',
      ),
      v.rawCheck(({ dataset, addIssue }) => {
        const control = dataset.typed ? forbiddenControl(dataset.value) : undefined;
        if (control) {
          addIssue({
            message: `must not contain control characters (it holds ${control}): only tab, line feed and carriage return are allowed`,
          });
        }
      }),
      v.check((text) => text.length > 0, 'must not be empty'),
      v.check(
        hasVisibleText,
        'must contain visible text, not only whitespace, combining marks or invisible (zero-width, format) characters',
      ),
      v.check(
        (text) => codePointLength(text) <= MAX_PROMPT_CODE_POINTS,
        `must be at most ${MAX_PROMPT_CODE_POINTS} characters`,
      ),
      // Ark still reads legacy options in the prompt (`--dur 12 --rs 1080p`, doc 1520757): one could make a
      // longer or larger video than the one priced, so the prompt may not carry them in any spelling.
      v.check(
        (text) => !carriesLegacyOption(text),
        'must not contain option flags such as --dur or --rs: send duration, resolution and ratio as fields',
      ),
    ),
    resolution: v.optional(v.picklist(RESOLUTIONS, `must be one of ${RESOLUTIONS.join(', ')}`)),
    duration: integerIn(MIN_DURATION_SECONDS, MAX_DURATION_SECONDS, 'a whole number of seconds'),
    ratio: v.optional(v.picklist(RATIOS, `must be one of ${RATIOS.join(', ')}`)),
    image_urls: urlList(MAX_REFERENCES.image),
    imageUrls: urlList(MAX_REFERENCES.image),
    video_urls: urlList(MAX_REFERENCES.video),
    videoUrls: urlList(MAX_REFERENCES.video),
    audio_urls: urlList(MAX_REFERENCES.audio),
    audioUrls: urlList(MAX_REFERENCES.audio),
    seed: integerIn(-1, 4_294_967_295, 'an integer'),
    webhook_url: v.optional(httpUrl),
    webhookUrl: v.optional(httpUrl),
    generate_audio: v.optional(v.boolean('must be true or false')),
    generateAudio: v.optional(v.boolean('must be true or false')),
    image_mode: imageMode,
    imageMode,
    metadata: v.optional(TaskMetadataSchema),
  }),
  v.transform((fields) => ({
    prompt: fields.prompt,
    imageUrls: fields.image_urls ?? fields.imageUrls ?? [],
    videoUrls: fields.video_urls ?? fields.videoUrls ?? [],
    audioUrls: fields.audio_urls ?? fields.audioUrls ?? [],
    ...onlyGiven({
      resolution: fields.resolution,
      durationSeconds: fields.duration,
      ratio: fields.ratio,
      seed: fields.seed,
      webhookUrl: fields.webhook_url ?? fields.webhookUrl,
      generateAudio: fields.generate_audio ?? fields.generateAudio,
      imageMode: fields.image_mode ?? fields.imageMode,
      metadata: fields.metadata,
    }),
  })),
);
export type GenerationFields = v.InferOutput<typeof GenerationSchema>;

const KNOWN_FIELDS = new Set([...Object.keys(ModelSchema.entries), ...Object.keys(GenerationSchema.pipe[0].entries)]);

export interface GenerationBody extends GenerationFields {
  form: RequestForm;
  model: ModelReference;
  /** The spelling the client used for each URL field, so messages name what was sent. */
  fieldNames: { imageUrls: string; videoUrls: string; audioUrls: string; webhookUrl: string; imageMode: string };
}

/** Parses a JSON-decoded body. Throws InvalidRequestError (400) with a message naming the field. */
export function parseGenerationBody(body: unknown): GenerationBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidRequestError('request body must be a JSON object');
  }
  const record = body as Record<string, unknown>;
  // docs/api-contract.md, "Request forms": a misspelt field (`durration`) must not silently bill the default.
  const unknown = Object.keys(record).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length > 0) {
    throw new InvalidRequestError(`unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  }
  for (const [snake, camel] of SPELLINGS) {
    // Both keys sent (whatever their values) is two spellings of one field: ambiguous, so refused.
    if (sent(record, snake) && sent(record, camel)) {
      throw new InvalidRequestError(`${snake} and ${camel} are two spellings of one field: send only one`);
    }
  }
  refuseNulls(record);
  // The model's fields come first, so their problems are reported first.
  const models = validate(ModelSchema, record);
  const fields = { ...validate(GenerationSchema, withoutModelBound(record)), ...modelBound(record) };
  const form: RequestForm = FORM_B_FIELDS.some((field) => present(record[field])) ? 'B' : 'A';

  return {
    form,
    model: modelReference(record, models),
    ...fields,
    fieldNames: {
      imageUrls: present(record['imageUrls']) ? 'imageUrls' : 'image_urls',
      videoUrls: present(record['videoUrls']) ? 'videoUrls' : 'video_urls',
      audioUrls: present(record['audioUrls']) ? 'audioUrls' : 'audio_urls',
      webhookUrl: present(record['webhookUrl']) ? 'webhookUrl' : 'webhook_url',
      imageMode: present(record['imageMode']) ? 'imageMode' : 'image_mode',
    },
  };
}

const FIELD_SCHEMAS: Readonly<Record<string, v.GenericSchema>> = {
  ...ModelSchema.entries,
  ...GenerationSchema.pipe[0].entries,
};
/** Fields with no default: a null there is refused without pointing to one. */
const WITHOUT_DEFAULT = new Set(['model', 'model_id', 'modelId', 'prompt']);

/**
 * docs/api-contract.md, "Defaults and bounds": null is no value of any field. Read as absent it would bill the
 * default (15 s on Form A) for a client that meant something else, so it is a 400 naming the field and what it
 * takes, in the words of the field's own schema.
 */
function refuseNulls(record: Record<string, unknown>): void {
  const field = Object.keys(record).find((key) => record[key] === null);
  const schema = field === undefined ? undefined : FIELD_SCHEMAS[field];
  if (field === undefined || schema === undefined) return;
  const allowed = v.safeParse(schema, null).issues?.[0]?.message ?? 'must hold a value';
  const fix = WITHOUT_DEFAULT.has(field) ? '' : ` (leave ${field} out to get its default)`;
  throw new InvalidRequestError(`${field}: ${allowed}, not null${fix}`);
}

function validate<T extends v.GenericSchema>(schema: T, record: Record<string, unknown>): v.InferOutput<T> {
  const result = v.safeParse(schema, record);
  if (!result.success) throw new InvalidRequestError(describeIssue(result.issues[0]));
  return result.output;
}

function modelReference(record: Record<string, unknown>, fields: v.InferOutput<typeof ModelSchema>) {
  const names = ['model', 'model_id', 'modelId'] as const;
  const given = names.filter((name) => sent(record, name));
  if (given.length > 1) {
    throw new InvalidRequestError(`send only one of model, model_id or modelId (got ${given.join(' and ')})`);
  }
  const field = given[0];
  const value = field === undefined ? undefined : fields[field];
  if (field === undefined || value === undefined) {
    throw new InvalidRequestError('model is required: send one of model, model_id or modelId');
  }
  return field === 'model' ? ({ by: 'name-or-id', value } as const) : ({ by: 'id', value } as const);
}

/**
 * Duration, resolution and ratio are allowed per model: any value sent is checked by resolve-generation.ts
 * against the chosen model, type included, so the message gives that model's range or values.
 */
const MODEL_BOUND = ['duration', 'resolution', 'ratio'] as const;

function withoutModelBound(record: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...record };
  for (const field of MODEL_BOUND) delete rest[field];
  return rest;
}

/** The model-bound fields as sent (never null: refused before), unchecked: resolveGeneration checks them against the model. */
function modelBound(
  record: Record<string, unknown>,
): Pick<GenerationFields, 'durationSeconds' | 'resolution' | 'ratio'> {
  const { duration, resolution, ratio } = record;
  return onlyGiven({
    durationSeconds: duration as number | undefined,
    resolution: resolution as Resolution | undefined,
    ratio: ratio as Ratio | undefined,
  });
}

/** A field with a value. */
function present(value: unknown): boolean {
  return value !== undefined;
}

/** The fields given a value: an absent one leaves the key out rather than keeping it without a value. */
function onlyGiven<T extends object>(fields: T) {
  const entries = Object.entries(fields).filter(([, value]) => present(value));
  return Object.fromEntries(entries) as { [K in keyof T]?: NonNullable<T[K]> };
}

/** A key the client wrote, whatever its value. */
function sent(record: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(record, key) && record[key] !== undefined;
}

/** What a field the body must carry holds, for the message when it is missing. */
const REQUIRED: Readonly<Record<string, string>> = {
  prompt: `the text that describes the video, 1 to ${MAX_PROMPT_CODE_POINTS} characters`,
};

/**
 * An issue in our words: the field's path, then what was wrong and what is allowed. Every schema here carries
 * its own messages; a missing key is the one case the library words itself, so it is written here.
 */
export function describeIssue(issue: v.BaseIssue<unknown> | undefined): string {
  if (!issue) return 'request body is not valid: see GET /api/v1/openapi.json';
  const path = (issue.path ?? [])
    .map((item) => (typeof item.key === 'number' ? `[${item.key}]` : String(item.key)))
    .join('.')
    .replace(/\.\[/g, '[');
  if (issue.type === 'object' && issue.received === 'undefined' && path) {
    const holds = Object.hasOwn(REQUIRED, path) ? REQUIRED[path] : undefined;
    return holds ? `${path} is required: send ${holds}` : `${path} is required`;
  }
  return path ? `${path}: ${issue.message}` : issue.message;
}

export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol, hostname } = new URL(text);
  return (protocol === 'http:' || protocol === 'https:') && hostname.length > 0;
}
