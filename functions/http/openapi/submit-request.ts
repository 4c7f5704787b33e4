/** The submit body as sent (either request form), with each field's rule in words (docs/api-contract.md, "Request forms"). */
import { GenerationSchema, ModelSchema as ModelFieldsSchema, SPELLINGS } from '../../core/generation-request.js';
import { jsonSchemaOf } from './json-schema.js';
import type { Json } from './json-schema.js';

/** The submit body: its two steps' schemas (model, then the generation's fields), as sent. */
export function submitBodySchema(): Json {
  const model = jsonSchemaOf(ModelFieldsSchema, 'input');
  const generation = jsonSchemaOf(GenerationSchema, 'input');
  const properties = { ...(model['properties'] as Json), ...(generation['properties'] as Json) };
  for (const [name, doc] of Object.entries(SUBMIT_FIELD_DOCS)) {
    if (properties[name]) properties[name] = { ...(properties[name] as Json), ...doc };
  }
  return {
    type: 'object',
    description:
      'Form A (snake_case) or Form B (camelCase): any camelCase field makes it Form B, which only changes defaults (duration 5 instead of 15). Name the model by exactly one of model, model_id, modelId. Two spellings of one field, a field not listed here, or null in any field (leave a field out for its default): 400.',
    properties,
    required: generation['required'],
    oneOf: [{ required: ['model'] }, { required: ['model_id'] }, { required: ['modelId'] }],
    additionalProperties: false,
  };
}

/** What the schemas cannot say in JSON Schema (their checks are code): each field's rule, in words. */
const SUBMIT_FIELD_DOCS: Record<string, Json> = {
  model: { description: 'The model by its name (or its id), from GET /api/v1/models.' },
  model_id: { description: 'Form A: the model by its id (a UUID).' },
  modelId: { description: 'Form B: the model by its id (a UUID).' },
  prompt: {
    description:
      'What to generate: 1 to 20480 characters (Unicode code points) of well-formed text with something visible in it (not only whitespace, combining marks or zero-width characters), without control characters other than tab, line feed and carriage return. Options such as --dur or --rs in the text (in any dash, full-width or with zero-width characters inside) are refused: send them as fields.',
    minLength: 1,
    maxLength: 20480,
  },
  resolution: {
    description:
      "Costs extra above 720p: the price is multiplied by the model's resolution_multipliers (1080p about 2×, 480p 0.5×). Default 720p, or the model's own default; the model must support it.",
  },
  duration: {
    description:
      "Seconds: 5 to the model's max_duration (never above 30); per_second models bill each second. Default 15 (Form A) or 5 (Form B), lowered to the model's max. A per_call model makes and bills its fixed duration.",
  },
  ratio: { description: 'Default 16:9; a model may take fewer ratios.' },
  image_urls: {
    description: 'Reference images: http(s) URLs or file_url values from POST /api/v1/uploads, at most 9.',
  },
  video_urls: {
    description:
      "Reference videos (http(s) URLs or file_url values), at most 3; the model must take them. Each adds the model's material_surcharge.",
  },
  audio_urls: {
    description:
      "Reference audios (http(s) URLs or file_url values), at most 3; the model must take them. Each adds the model's material_surcharge.",
  },
  seed: { description: '-1 (random, the default) to 4294967295.' },
  webhook_url: {
    description: 'http(s) URL that receives a signed POST (Standard Webhooks) when the task succeeds or fails.',
  },
  generate_audio: {
    description:
      "Generate audio with the video. Default: true on models that make sound, which adds the model's audio_extra to the cost (1.2 CNY on seedance-1.5-pro); send false for a silent, cheaper video. A model without sound refuses true.",
  },
  image_mode: {
    description: "The images' role: first_frame, first_last_frame or reference. Default: the model's first.",
  },
  metadata: {
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 512 },
    propertyNames: { minLength: 1, maxLength: 64 },
    maxProperties: 16,
    description:
      'Your own data: up to 16 string pairs (keys up to 64 characters, values up to 512), echoed on the task, in lists (filter with metadata[key]=value) and in the completion webhook.',
  },
  // Form B's spelling of each field says only that.
  ...Object.fromEntries(SPELLINGS.map(([formA, formB]) => [formB, { description: `Form B spelling of ${formA}.` }])),
};
