/**
 * The OpenAI-compatible operations (docs/openai-videos.md): OpenAI's objects without the envelope, and OpenAI's
 * error body on every error, each status with our meaning. Built from the schemas the handlers parse with.
 */
import type { ErrorCode } from '../../core/api-error.js';
import { IDEMPOTENT_REPLAYED_HEADER } from '../../core/idempotency.js';
import { openAiErrorBody } from '../../core/openai-error.js';
import { ApiError } from '../../core/api-error.js';
import { ListVideosQuerySchema } from '../../core/use-cases/openai/list-videos.js';
import { ERROR_MEANINGS } from './error-responses.js';
import { REQUEST_ID, titled } from './headers.js';
import { ref } from './json-schema.js';
import type { Json } from './json-schema.js';
import { queryParameters, TASK_ID_PARAMETER } from './request-parts.js';

const TAG = 'OpenAI-compatible';

const VIDEO_EXAMPLE = {
  id: '0b6f8a52-3c1e-4b8e-9f5a-2d7c1e9a4f10',
  object: 'video',
  status: 'queued',
  progress: 0,
  model: 'seedance-1.5-pro',
  prompt: 'A red fox running through fresh snow at dawn',
  seconds: '5',
  size: '1280x720',
  created_at: 1767225600,
  completed_at: null,
  expires_at: null,
  error: null,
  remixed_from_video_id: null,
};

const EXAMPLE_MESSAGES: Record<ErrorCode, string> = {
  400: 'size "1920x1080" is not made by seedance-2.0-fast: send one of 854x480, 1280x720, …',
  401: 'API key is missing, invalid or disabled',
  402: 'insufficient balance: top up and retry',
  403: 'this task belongs to another account',
  404: 'task 0b6f8a52-3c1e-4b8e-9f5a-2d7c1e9a4f10 does not exist',
  415: 'Content-Type must be multipart/form-data or application/json',
  429: 'too many requests: retry after 1 s',
  500: 'internal server error',
};

function errorResponse(code: ErrorCode): Json {
  return {
    description: ERROR_MEANINGS[code],
    headers: { ...REQUEST_ID, ...(code === 429 ? { 'Retry-After': ref('headers', 'RetryAfter') } : {}) },
    content: {
      'application/json': {
        schema: ref('schemas', 'OpenAiError'),
        example: openAiErrorBody(new ApiError(code, EXAMPLE_MESSAGES[code])),
      },
    },
  };
}

function jsonAnswer(component: string, example: unknown, headers: Json = REQUEST_ID): Json {
  return {
    description: 'Success.',
    headers,
    content: { 'application/json': { schema: ref('schemas', component), example } },
  };
}

function operation(
  id: string,
  summary: string,
  description: string,
  parts: { parameters?: Json[]; requestBody?: Json; responses: Json; errors: ErrorCode[] },
): { id: string; operation: Json } {
  const responses: Json = { ...parts.responses };
  for (const code of parts.errors) responses[String(code)] = errorResponse(code);
  responses['413'] = ref('responses', 'PayloadTooLarge');
  return {
    id,
    operation: {
      operationId: id,
      summary,
      description,
      tags: [TAG],
      ...(parts.parameters ? { parameters: parts.parameters } : {}),
      ...(parts.requestBody ? { requestBody: parts.requestBody } : {}),
      responses,
    },
  };
}

const ON_VIDEO: ErrorCode[] = [400, 401, 403, 404, 429, 500];

export const OPENAI_OPERATIONS: { id: string; operation: Json }[] = [
  operation(
    'OpenAiCreateVideo',
    'Create a video (OpenAI Videos API)',
    "OpenAI's `videos.create`: multipart/form-data (what the official SDK sends) or JSON. Charged as POST /api/v1/video/generate with the same options; nothing is charged on any 4xx. `seconds` and `size` must be ones the model makes (a 400 lists them). `input_reference` is the first frame: an image file part (up to 4 MiB), `{image_url}` (http(s) or a data: URL) or `{file_id}` (an upload). Send an `Idempotency-Key`: the SDK sends none by itself, and it retries on 5xx and 429.",
    {
      parameters: [ref('parameters', 'IdempotencyKey')],
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': { schema: ref('schemas', 'OpenAiCreateVideoForm') },
          'application/json': {
            schema: ref('schemas', 'OpenAiCreateVideoRequest'),
            example: { model: 'seedance-1.5-pro', prompt: VIDEO_EXAMPLE.prompt, seconds: '5', size: '1280x720' },
          },
        },
      },
      responses: {
        '200': jsonAnswer('OpenAiVideo', VIDEO_EXAMPLE, {
          ...REQUEST_ID,
          [titled(IDEMPOTENT_REPLAYED_HEADER)]: ref('headers', 'IdempotentReplayed'),
          Deprecation: ref('headers', 'Deprecation'),
          Sunset: ref('headers', 'Sunset'),
        }),
      },
      errors: [400, 401, 402, 403, 415, 429, 500],
    },
  ),
  operation(
    'OpenAiListVideos',
    'List videos (OpenAI Videos API)',
    "OpenAI's `videos.list`: the account's videos by creation time, `desc` (default) or `asc`; pass `last_id` as `after` while `has_more`. Every task is listed, whichever API made it; without the live upstream check of a retrieve.",
    {
      parameters: queryParameters(ListVideosQuerySchema),
      responses: {
        '200': jsonAnswer('OpenAiVideoList', {
          object: 'list',
          data: [VIDEO_EXAMPLE],
          first_id: VIDEO_EXAMPLE.id,
          last_id: VIDEO_EXAMPLE.id,
          has_more: false,
        }),
      },
      errors: ON_VIDEO,
    },
  ),
  operation(
    'OpenAiGetVideo',
    'Retrieve a video (OpenAI Videos API)',
    "OpenAI's `videos.retrieve`: the task as OpenAI's video object, checked with the upstream first while in progress. The id is the task's: GET /api/v1/video/tasks/{id} reads the same task.",
    {
      parameters: [TASK_ID_PARAMETER],
      responses: { '200': jsonAnswer('OpenAiVideo', { ...VIDEO_EXAMPLE, status: 'in_progress', progress: 50 }) },
      errors: ON_VIDEO,
    },
  ),
  operation(
    'OpenAiDeleteVideo',
    'Delete a video (OpenAI Videos API)',
    "OpenAI's `videos.delete`: a completed video is deleted from storage (the task, its cost and ledger entry stay); a queued one is cancelled and refunded as POST /api/v1/video/tasks/{id}/cancel; one being generated is a 400.",
    {
      parameters: [TASK_ID_PARAMETER],
      responses: {
        '200': jsonAnswer('OpenAiVideoDeleted', { id: VIDEO_EXAMPLE.id, object: 'video.deleted', deleted: true }),
      },
      errors: ON_VIDEO,
    },
  ),
  operation(
    'OpenAiGetVideoContent',
    'Download a video (OpenAI Videos API)',
    "OpenAI's `videos.downloadContent`: a 302 to the video's signed URL (24 h). Only `variant=video` exists: a thumbnail or spritesheet is a 404, as is a video not completed or deleted.",
    {
      parameters: [
        TASK_ID_PARAMETER,
        {
          name: 'variant',
          in: 'query',
          required: false,
          description: '`video` (the default) only; `thumbnail` and `spritesheet` are 404.',
          schema: { type: 'string', enum: ['video', 'thumbnail', 'spritesheet'] },
        },
      ],
      responses: {
        '302': {
          description: 'The video: follow `Location` (a signed URL; send no Authorization there).',
          headers: {
            ...REQUEST_ID,
            Location: { description: 'The signed URL of the MP4.', required: true, schema: { type: 'string' } },
          },
        },
      },
      errors: ON_VIDEO,
    },
  ),
  operation(
    'OpenAiRemixVideo',
    'Remix a video: not supported',
    "OpenAI's `videos.remix` is not supported: always a 400 saying so (after the key is checked). Create a new video instead.",
    {
      parameters: [TASK_ID_PARAMETER],
      responses: {},
      errors: [400, 401, 429, 500],
    },
  ),
];
