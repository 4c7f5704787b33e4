/**
 * The body of POST /api/v1/videos as OpenAI's Videos API defines it (docs/openai-videos.md, "Create"): the same
 * fields whether sent as multipart/form-data (what the official SDK sends) or JSON. Checked here without the
 * model; the model's own limits are openai-options.ts'.
 */
import * as v from 'valibot';
import { InvalidRequestError } from './api-error.js';
import { OpenAiParamError } from './openai-error.js';

/** Bytes of an uploaded input_reference: the route's body bound (4 MiB) leaves room for the other fields. */
export const MAX_REFERENCE_BYTES = 4 * 1024 * 1024;
export const REFERENCE_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;

/** An uploaded file of the form, its type as sent (the bytes are read again before anything trusts it). */
export interface FormFile {
  filename: string;
  contentType: string;
  bytes: Uint8Array;
}

const text = (field: string) => v.string(`${field} must be a string`);

export const CreateVideoSchema = v.object({
  model: v.pipe(text('model'), v.minLength(1, 'model must not be empty'), v.description('One of GET /api/v1/models.')),
  prompt: v.pipe(text('prompt'), v.description('What the video shows (the native `prompt` rules apply).')),
  seconds: v.optional(
    v.pipe(
      v.union([text('seconds'), v.pipe(v.number(), v.integer())], 'seconds must be a whole number as a string'),
      v.transform(String),
      v.description('Whole seconds as a string, one the model makes; default: its shortest.'),
    ),
  ),
  size: v.optional(
    v.pipe(text('size'), v.description('`WIDTHxHEIGHT`, one the model makes; default: its own (e.g. 1280x720).')),
  ),
  input_reference: v.optional(
    v.pipe(
      v.object(
        {
          image_url: v.optional(v.pipe(text('input_reference.image_url'), v.minLength(1))),
          file_id: v.optional(v.pipe(text('input_reference.file_id'), v.minLength(1))),
        },
        'input_reference must be an image file part, or an object with image_url or file_id',
      ),
      v.description(
        'The first frame: an image file part (multipart), or `{image_url}` (http(s) or a data: URL), or `{file_id}` (an upload of POST /api/v1/uploads).',
      ),
    ),
  ),
});

/** The one first-frame image a create names, in whichever form it came. */
export type InputReference =
  { kind: 'file'; file: FormFile } | { kind: 'image_url'; url: string } | { kind: 'file_id'; id: string };

export interface CreateVideoRequest {
  model: string;
  prompt: string;
  seconds?: string;
  size?: string;
  reference?: InputReference;
}

/**
 * `fields`: a JSON body, or a form's text fields (`input_reference[image_url]` as the SDK writes a nested
 * object); `files`: a form's file parts.
 */
export function parseCreateVideoRequest(fields: unknown, files: Record<string, FormFile> = {}): CreateVideoRequest {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw new InvalidRequestError('request body must be an object: {"model": …, "prompt": …}');
  }
  const body = nestFormFields(fields as Record<string, unknown>);
  const fileNames = Object.keys(files);
  const unknown = [...Object.keys(body), ...fileNames].filter(
    (name) => !Object.hasOwn(CreateVideoSchema.entries, name),
  );
  if (unknown.length > 0) {
    throw new OpenAiParamError(
      unknown[0] as string,
      `unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (this API takes model, prompt, seconds, size, input_reference)`,
    );
  }
  for (const name of ['model', 'prompt'] as const) {
    if (body[name] === undefined || body[name] === null) throw new OpenAiParamError(name, `${name} is required`);
  }
  const file = files['input_reference'];
  if (file && body['input_reference'] !== undefined) {
    throw new OpenAiParamError('input_reference', 'input_reference was sent twice: send a file or an object, not both');
  }
  const parsed = v.safeParse(CreateVideoSchema, body);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const param = issue.path?.map((item) => String(item.key)).join('.') ?? 'body';
    throw new OpenAiParamError(param, issue.message);
  }
  const { model, prompt, seconds, size, input_reference: given } = parsed.output;
  return {
    model,
    prompt,
    ...(seconds === undefined ? {} : { seconds }),
    ...(size === undefined ? {} : { size }),
    ...referenceOf(file, given),
  };
}

function referenceOf(
  file: FormFile | undefined,
  given: { image_url?: string; file_id?: string } | undefined,
): { reference?: InputReference } {
  if (file) return { reference: { kind: 'file', file } };
  if (!given) return {};
  if ((given.image_url === undefined) === (given.file_id === undefined)) {
    throw new OpenAiParamError('input_reference', 'input_reference must hold exactly one of image_url and file_id');
  }
  return given.image_url !== undefined
    ? { reference: { kind: 'image_url', url: given.image_url } }
    : { reference: { kind: 'file_id', id: given.file_id as string } };
}

/** A form's `input_reference[image_url]` as the object `{input_reference: {image_url}}` JSON would send. */
function nestFormFields(fields: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    const nested = /^([a-z_]+)\[([a-z_]+)\]$/.exec(name);
    if (!nested) {
      body[name] = value;
      continue;
    }
    const [, outer, inner] = nested as unknown as [string, string, string];
    const target = (body[outer] ??= {}) as Record<string, unknown>;
    if (typeof target !== 'object') throw new OpenAiParamError(outer, `${outer} was sent twice`);
    target[inner] = value;
  }
  return body;
}
