/** The OpenAI-compatible routes' schemas (docs/openai-videos.md), as the document's components. */
import { CreateVideoSchema } from '../../core/openai-create-request.js';
import { OpenAiErrorSchema } from '../../core/openai-error.js';
import { OpenAiVideoDeletedSchema, OpenAiVideoListSchema, OpenAiVideoSchema } from '../../core/openai-video.js';
import { jsonSchemaOf } from './json-schema.js';
import type { Json } from './json-schema.js';

/** The form the SDK sends: the JSON body's fields as parts, input_reference a file or its object's fields. */
function createVideoForm(): Json {
  const json = jsonSchemaOf(CreateVideoSchema, 'input') as { properties: Record<string, Json>; required?: string[] };
  const { input_reference: _object, seconds: _seconds, ...fields } = json.properties;
  return {
    type: 'object',
    properties: {
      ...fields,
      seconds: { type: 'string', description: 'Whole seconds, one the model makes; default: its shortest.' },
      input_reference: {
        type: 'string',
        contentMediaType: 'application/octet-stream',
        description: 'The first frame: a JPEG, PNG or WebP file of up to 4 MiB.',
      },
      'input_reference[image_url]': { type: 'string', description: 'Or the first frame by URL (http(s) or data:).' },
      'input_reference[file_id]': { type: 'string', description: 'Or an upload of POST /api/v1/uploads.' },
    },
    required: ['model', 'prompt'],
  };
}

export function openAiSchemas(): Record<string, Json> {
  return {
    OpenAiCreateVideoRequest: jsonSchemaOf(CreateVideoSchema, 'input'),
    OpenAiCreateVideoForm: createVideoForm(),
    OpenAiVideo: jsonSchemaOf(OpenAiVideoSchema),
    OpenAiVideoList: jsonSchemaOf(OpenAiVideoListSchema),
    OpenAiVideoDeleted: jsonSchemaOf(OpenAiVideoDeletedSchema),
    OpenAiError: jsonSchemaOf(OpenAiErrorSchema),
  };
}
