/**
 * The OpenAPI 3.1 document of the API (docs/api-contract.md, "OpenAPI document"), built from the valibot schemas the handlers parse
 * with (the submit and upload bodies, the list queries, the Idempotency-Key) and those of the answers
 * (response-schemas.ts). GET /api/v1/openapi.json serves it from the bundle, in AWS and locally alike; a unit
 * test checks it against lib/ship/routes.ts (every route, no other) and a real OpenAPI validator.
 */
import { httpRouteOf } from '../../catalog.js';
import { toJsonSchema } from '@valibot/to-json-schema';
import type { ConversionConfig } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { ErrorCode } from '../../core/api-error.js';
import { GenerationSchema, ModelSchema as ModelFieldsSchema } from '../../core/generation-request.js';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyKeySchema, IDEMPOTENT_REPLAYED_HEADER } from '../../core/idempotency.js';
import { ListTransactionsQuerySchema, TransactionsPageSchema } from '../../core/ledger.js';
import { CreateUploadBody, CreateUploadResponse } from '../../core/uploads.js';
import { ListTasksQuerySchema } from '../../core/use-cases/list-tasks.js';
import { TRANSFERRING_MESSAGE } from '../../core/task.js';
import { REQUEST_ID_HEADER } from '../middleware/request-id.js';
import {
  BalanceSchema,
  HealthSchema,
  ModelListSchema,
  SubmitResultSchema,
  TaskIdSchema,
  TaskListSchema,
  TaskSchema,
} from './response-schemas.js';
import { EXAMPLES } from './examples.js';
import { CONSOLE_OPERATIONS, CONSOLE_SCHEMAS } from './console-operations.js';
import type { ConsoleOperation } from './console-operations.js';

type Json = Record<string, unknown>;

const CONVERSION: ConversionConfig = { target: 'draft-2020-12', errorMode: 'ignore' };

/** A valibot schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect, so no `$schema` of its own). */
export function jsonSchemaOf(schema: v.GenericSchema, typeMode: ConversionConfig['typeMode'] = 'ignore'): Json {
  const { $schema: _dialect, ...converted } = toJsonSchema(schema, { ...CONVERSION, typeMode }) as Json;
  return converted;
}

/** The spec's error table (§7), each code as the envelope answers it. */
export const ERROR_MEANINGS: Record<ErrorCode, string> = {
  400: 'Parameter error: a required parameter is missing or a format is invalid (the message names it).',
  401: 'API key missing, invalid or disabled.',
  402: 'Insufficient balance (top up and retry), or the API key would pass its spend quota.',
  403: 'No right to access the resource: it belongs to another account.',
  404: 'Resource does not exist.',
  415: 'Unsupported media type: a request with a JSON body must send `Content-Type: application/json` (parameters allowed, a charset only UTF-8). Nothing is charged.',
  429: "Too many requests: retry after `Retry-After` seconds (the key's rate limit, a submit still losing to many others on its account after 6 s: nothing charged, or a cancel of a task being started upstream: nothing refunded), or API Gateway's throttle.",
  500: 'Internal server error: nothing was charged unless the answer says so; quote X-Request-Id to support.',
};

const ERROR_NAMES: Record<ErrorCode, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  402: 'PaymentRequired',
  403: 'Forbidden',
  404: 'NotFound',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalError',
};

/** The envelope of an error: `data` is null and `code` equals the HTTP status (docs/api-contract.md, "Envelope and errors"). */
const errorEnvelope = (code: ErrorCode) =>
  v.strictObject({
    code: v.pipe(v.literal(code), v.description('Equals the HTTP status.')),
    message: v.pipe(v.string(), v.description('What went wrong, in words: names the field or the rule.')),
    data: v.null(),
  });

/** What API Gateway answers itself, before any function runs (its throttle, a body over Lambda's 6 MB). */
const GatewayMessageSchema = v.strictObject({ message: v.string() });

const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** `idempotency-key` → `Idempotency-Key`: header names are case-insensitive, the document shows them titled. */
const titled = (header: string) =>
  header.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());

const REQUEST_ID = { [titled(REQUEST_ID_HEADER)]: ref('headers', 'XRequestId') };

interface OperationSpec {
  id: string;
  summary: string;
  description: string;
  tag: string;
  /** Needs `Authorization: Bearer bc_…`. */
  authenticated: boolean;
  parameters?: Json[];
  requestBody?: Json;
  /** The body is only a hint, read whatever its Content-Type (no 415); other bodies go through jsonBody. */
  anyContentType?: boolean;
  /** The success answer: the envelope's `data` schema (component name), or a whole response of its own. */
  data?: { component: string; example: unknown; message?: string };
  success?: Json;
  /** Takes an Idempotency-Key: its replays say so in `Idempotent-Replayed`. */
  idempotent?: boolean;
  /** Names a model: a deprecated one answers with `Deprecation` and `Sunset`. */
  namesModel?: boolean;
  errors: ErrorCode[];
}

const AUTHENTICATED_ERRORS: ErrorCode[] = [400, 401, 429, 500];

function queryParameters(
  schema: v.ObjectSchema<v.ObjectEntries, undefined> | v.StrictObjectSchema<v.ObjectEntries, undefined>,
) {
  return Object.entries(schema.entries).map(([name, entry]) => {
    const converted = jsonSchemaOf(entry as v.GenericSchema, 'output');
    // An output of no type (a transform with nothing after it) is described by what is sent: a string.
    const parameterSchema =
      'type' in converted || 'enum' in converted ? converted : jsonSchemaOf(entry as v.GenericSchema, 'input');
    const { description, ...rest } = parameterSchema;
    return { name, in: 'query', required: false, ...(description ? { description } : {}), schema: rest };
  });
}

const TASK_ID_PARAMETER = { name: 'id', in: 'path', required: true, schema: jsonSchemaOf(TaskIdSchema) };

/** The submit body: its two steps' schemas (model, then the generation's fields), as sent. */
function submitBodySchema(): Json {
  const model = jsonSchemaOf(ModelFieldsSchema, 'input');
  const generation = jsonSchemaOf(GenerationSchema, 'input');
  const properties = { ...(model['properties'] as Json), ...(generation['properties'] as Json) };
  for (const [name, doc] of Object.entries(SUBMIT_FIELD_DOCS)) {
    if (properties[name]) properties[name] = { ...(properties[name] as Json), ...doc };
  }
  return {
    type: 'object',
    description:
      'Form A (snake_case) or Form B (camelCase): any camelCase field makes it Form B, which only changes defaults (duration 5 instead of 15). Name the model by exactly one of model, model_id, modelId. Two spellings of one field, or a field not listed here: 400.',
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
      'What to generate: 1 to 20480 characters (Unicode code points), not only whitespace. Options such as --dur or --rs in the text (full-width forms included) are refused: send them as fields.',
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
  imageUrls: { description: 'Form B spelling of image_urls.' },
  video_urls: {
    description:
      "Reference videos (http(s) URLs or file_url values), at most 3; the model must take them. Each adds the model's material_surcharge.",
  },
  videoUrls: { description: 'Form B spelling of video_urls.' },
  audio_urls: {
    description:
      "Reference audios (http(s) URLs or file_url values), at most 3; the model must take them. Each adds the model's material_surcharge.",
  },
  audioUrls: { description: 'Form B spelling of audio_urls.' },
  seed: { description: '-1 (random, the default) to 4294967295.' },
  webhook_url: {
    description: 'http(s) URL that receives a signed POST (Standard Webhooks) when the task succeeds or fails.',
  },
  webhookUrl: { description: 'Form B spelling of webhook_url.' },
  generate_audio: {
    description:
      "Generate audio with the video. Default: true on models that make sound, which adds the model's audio_extra to the cost (1.2 CNY on seedance-1.5-pro); send false for a silent, cheaper video. A model without sound refuses true.",
  },
  generateAudio: { description: 'Form B spelling of generate_audio.' },
  image_mode: {
    description: "The images' role: first_frame, first_last_frame or reference. Default: the model's first.",
  },
  imageMode: { description: 'Form B spelling of image_mode.' },
};

const OPERATIONS: OperationSpec[] = [
  {
    id: 'SubmitTask',
    summary: 'Submit a generation task',
    description:
      "Charges the cost and answers the new task (status pending) with the cost and its parts (cost_breakdown: base, resolution, audio, surcharges). Options that cost extra: resolution above 720p, duration (per second), generate_audio (default true on models with sound), reference videos and audios; GET /api/v1/models lists each model's priced_options. Nothing is charged on any 4xx. With an Idempotency-Key, the same key and body within 24 h answer the first task again (no second charge).",
    tag: 'Tasks',
    authenticated: true,
    idempotent: true,
    namesModel: true,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: ref('schemas', 'SubmitRequest'),
          examples: EXAMPLES.submitRequests,
        },
      },
    },
    data: { component: 'SubmitResult', example: EXAMPLES.submitResult },
    // 403: a file_url of another account's upload (docs/api-contract.md, "Uploads").
    errors: [400, 401, 402, 403, 429, 500],
  },
  {
    id: 'ListTasks',
    summary: "List the account's tasks",
    description:
      "Newest first, a page at a time: pass `next_cursor` as `cursor` until it is null. A task shows as GET /video/tasks/{id} shows it, without that query's live upstream check (and queue_position is null). A new task may take a moment to appear. With `status`, a page may hold fewer than `limit` tasks (even none) while `next_cursor` is set: each request reads at most 1,000 of the account's tasks.",
    tag: 'Tasks',
    authenticated: true,
    parameters: queryParameters(ListTasksQuerySchema),
    data: { component: 'TaskList', example: EXAMPLES.taskList },
    errors: AUTHENTICATED_ERRORS,
  },
  {
    id: 'GetTask',
    summary: 'Query a task',
    description: `A task in progress is checked with the upstream first. While it is transferring, \`message\` says "${TRANSFERRING_MESSAGE}".`,
    tag: 'Tasks',
    authenticated: true,
    parameters: [TASK_ID_PARAMETER],
    data: { component: 'Task', example: EXAMPLES.task },
    errors: [400, 401, 403, 404, 429, 500],
  },
  {
    id: 'CancelTask',
    summary: 'Cancel a task',
    description:
      'While no upstream job has started generating: the task becomes refunded and its cost is refunded in full. Cancelling a refunded task again answers it again. Once generation has started, or the task has ended otherwise: 400. While the task is being started upstream (seconds): 429 with `Retry-After`, nothing refunded; ask again then.',
    tag: 'Tasks',
    authenticated: true,
    parameters: [TASK_ID_PARAMETER],
    data: { component: 'Task', example: EXAMPLES.refundedTask },
    errors: [400, 401, 403, 404, 429, 500],
  },
  {
    id: 'GetBalance',
    summary: 'Read the balance',
    description: 'The available balance of the account that owns the API key.',
    tag: 'Account',
    authenticated: true,
    data: { component: 'Balance', example: { balance: 95.8, currency: 'CNY' } },
    errors: [400, 401, 404, 429, 500],
  },
  {
    id: 'ListTransactions',
    summary: "List the account's ledger",
    description:
      'Every balance movement (charge, refund, top-up, adjustment), newest first, a page at a time: pass `next_cursor` as `cursor` until it is null.',
    tag: 'Account',
    authenticated: true,
    parameters: queryParameters(ListTransactionsQuerySchema),
    data: { component: 'TransactionsPage', example: EXAMPLES.transactions },
    errors: AUTHENTICATED_ERRORS,
  },
  {
    id: 'ListModels',
    summary: 'List the models',
    description: 'Every model with its pricing (yuan) and what it accepts.',
    tag: 'Models',
    authenticated: true,
    data: { component: 'ModelList', example: EXAMPLES.models },
    errors: AUTHENTICATED_ERRORS,
  },
  {
    id: 'CreateUpload',
    summary: 'Upload a reference file',
    description:
      'Answers a presigned URL: PUT the bytes there with exactly `upload_headers` within 15 minutes, then name `file_url` in image_urls / video_urls / audio_urls. The stored bytes are checked (real type and size) before use; H.265 video is transcoded to H.264. Uploads are deleted 48 h after creation.',
    tag: 'Uploads',
    authenticated: true,
    idempotent: true,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: ref('schemas', 'UploadRequest'),
          example: { content_type: 'image/png', size: 482113 },
        },
      },
    },
    data: { component: 'Upload', example: EXAMPLES.upload },
    errors: AUTHENTICATED_ERRORS,
  },
  {
    id: 'UpstreamCallback',
    summary: "The upstream's job report (not for customers)",
    description:
      "Called by the upstream generator when a job's status changes. No API key: the per-task secret in the path guards it, and the job is read again from the upstream before anything moves. An unknown task or secret: 404.",
    tag: 'Internal',
    authenticated: false,
    parameters: [TASK_ID_PARAMETER, { name: 'secret', in: 'path', required: true, schema: { type: 'string' } }],
    requestBody: {
      required: false,
      content: { 'application/json': { schema: { type: 'object', description: "The upstream's task object." } } },
    },
    anyContentType: true,
    data: { component: 'Null', example: null },
    errors: [404, 500],
  },
  {
    id: 'Health',
    summary: 'Health check',
    description:
      'No API key. 200 when API Gateway reaches a function that runs; reads no storage (for load balancers and uptime checks).',
    tag: 'Service',
    authenticated: false,
    data: { component: 'Health', example: { status: 'ok' } },
    errors: [500],
  },
  {
    id: 'GetOpenApi',
    summary: 'This document',
    description: 'No API key. The OpenAPI 3.1 description of the API (not in the envelope).',
    tag: 'Service',
    authenticated: false,
    success: {
      description: 'The OpenAPI document.',
      headers: REQUEST_ID,
      content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'info', 'paths'] } } },
    },
    errors: [500],
  },
  {
    id: 'GetDocs',
    summary: 'This document, rendered',
    description: 'No API key. An HTML page that renders this document (Swagger UI, served from our own origin).',
    tag: 'Service',
    authenticated: false,
    success: {
      description: 'The HTML page.',
      headers: REQUEST_ID,
      content: { 'text/html': { schema: { type: 'string' } } },
    },
    errors: [500],
  },
];

function operation(spec: OperationSpec): Json {
  const parameters = [...(spec.parameters ?? []), ...(spec.idempotent ? [ref('parameters', 'IdempotencyKey')] : [])];
  const successHeaders = {
    ...REQUEST_ID,
    ...(spec.idempotent ? { [titled(IDEMPOTENT_REPLAYED_HEADER)]: ref('headers', 'IdempotentReplayed') } : {}),
    ...(spec.namesModel ? { Deprecation: ref('headers', 'Deprecation'), Sunset: ref('headers', 'Sunset') } : {}),
  };
  const success = spec.success ?? {
    description: 'Success: `code` 0.',
    headers: successHeaders,
    content: {
      'application/json': {
        schema: successEnvelope(spec.data?.component as string),
        example: { code: 0, message: spec.data?.message ?? 'success', data: spec.data?.example },
      },
    },
  };
  const responses: Json = { '200': success };
  for (const code of spec.errors) responses[String(code)] = ref('responses', ERROR_NAMES[code]);
  if (spec.requestBody && !spec.anyContentType) responses['415'] = ref('responses', ERROR_NAMES[415]);
  responses['413'] = ref('responses', 'PayloadTooLarge');
  return {
    operationId: spec.id,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    ...(spec.authenticated ? {} : { security: [] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.requestBody ? { requestBody: spec.requestBody } : {}),
    responses,
  };
}

/** A console operation: the Cognito access token instead of a key; a 401 may be the gateway's own. */
function consoleOperation(spec: ConsoleOperation): Json {
  const pathId =
    spec.pathId === 'task'
      ? [TASK_ID_PARAMETER]
      : spec.pathId === 'key'
        ? [{ name: 'id', in: 'path', required: true, description: 'The key id (key_…).', schema: { type: 'string' } }]
        : [];
  const parameters = [...pathId, ...(spec.query ? queryParameters(spec.query) : [])];
  const responses: Json = {
    '200': {
      description: 'Success: `code` 0.',
      headers: REQUEST_ID,
      content: {
        'application/json': {
          schema: successEnvelope(spec.data.component),
          example: { code: 0, message: 'success', data: spec.data.example },
        },
      },
    },
    '401': ref('responses', 'ConsoleUnauthorized'),
    '403': ref('responses', 'ConsoleForbidden'),
  };
  for (const code of spec.errors) responses[String(code)] ??= ref('responses', ERROR_NAMES[code]);
  if (spec.body) responses['415'] = ref('responses', ERROR_NAMES[415]);
  return {
    operationId: spec.id,
    summary: spec.summary,
    description: spec.description,
    tags: ['Console'],
    security: [{ consoleJwt: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: ref('schemas', spec.body.component), example: spec.body.example },
            },
          },
        }
      : {}),
    responses,
  };
}

function successEnvelope(component: string): Json {
  return {
    type: 'object',
    properties: {
      code: { const: 0, description: '0 on success.' },
      message: { type: 'string', description: '`success`, or a note such as the transferring message.' },
      data: ref('schemas', component),
    },
    required: ['code', 'message', 'data'],
    additionalProperties: false,
  };
}

function errorResponses(): Json {
  const responses: Json = {};
  for (const [code, name] of Object.entries(ERROR_NAMES) as [string, string][]) {
    const errorCode = Number(code) as ErrorCode;
    const envelope = jsonSchemaOf(errorEnvelope(errorCode));
    responses[name] = {
      description: ERROR_MEANINGS[errorCode],
      headers: {
        ...REQUEST_ID,
        ...(errorCode === 429 ? { 'Retry-After': ref('headers', 'RetryAfter') } : {}),
      },
      content: {
        'application/json': {
          // A 429 may also be API Gateway's own throttle, answered before any function runs.
          schema: errorCode === 429 ? { anyOf: [envelope, ref('schemas', 'GatewayMessage')] } : envelope,
          example: { code: errorCode, message: EXAMPLES.errorMessages[errorCode], data: null },
        },
      },
    };
  }
  responses['PayloadTooLarge'] = {
    description:
      "API Gateway's own answer to a request over Lambda's 6 MB payload limit (no function runs). A body over 256 KiB but under that limit is a 400 in the envelope.",
    content: {
      'application/json': {
        schema: ref('schemas', 'GatewayMessage'),
        example: { message: 'Request Entity Too Large' },
      },
    },
  };
  responses['ConsoleUnauthorized'] = {
    description:
      'No valid sign-in: API Gateway\'s own answer `{"message":"Unauthorized"}` for a missing, expired or foreign token (sign in again).',
    content: {
      'application/json': {
        schema: { anyOf: [jsonSchemaOf(errorEnvelope(401)), ref('schemas', 'GatewayMessage')] },
        example: { message: 'Unauthorized' },
      },
    },
  };
  responses['ConsoleForbidden'] = {
    description:
      'API Gateway\'s own answer `{"message":"Forbidden"}` to a token without the access tokens\' scope (an ID token: send the access token), or the envelope\'s 403 for another account\'s resource.',
    content: {
      'application/json': {
        schema: { anyOf: [jsonSchemaOf(errorEnvelope(403)), ref('schemas', 'GatewayMessage')] },
        example: { message: 'Forbidden' },
      },
    },
  };
  return responses;
}

function buildDocument(): Json {
  const paths: Record<string, Record<string, Json>> = {};
  // Each operation at its route's method and path (functions/catalog.ts), by the route's id.
  const add = (id: string, operation: Json) => {
    const { method, path } = httpRouteOf(id);
    (paths[path] ??= {})[method.toLowerCase()] = operation;
  };
  for (const spec of OPERATIONS) add(spec.id, operation(spec));
  for (const spec of CONSOLE_OPERATIONS) add(spec.id, consoleOperation(spec));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Video Generation Service',
      version: '1.0.0',
      description:
        'Asynchronous video generation billed from a prepaid CNY balance. Every answer is the envelope `{code, message, data}` (`code` equals the HTTP status; 0 is 200; `data` is null on error) and carries `X-Request-Id`: quote it to support. Money is in yuan.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: '/', description: 'This deployment' }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Tasks', description: 'Submit, query, list and cancel video generation tasks.' },
      { name: 'Uploads', description: 'Reference files for a submit.' },
      { name: 'Account', description: 'Balance and ledger.' },
      { name: 'Models', description: 'The catalog and its prices.' },
      { name: 'Service', description: 'Health and this description.' },
      { name: 'Internal', description: 'Called by the upstream generator, not by customers.' },
      {
        name: 'Console',
        description: 'The web console’s API: a signed-in user’s account, keys and money (Cognito access token).',
      },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (it starts with `bc_`) from the console: `Authorization: Bearer bc_…`.',
        },
        consoleJwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'The console’s sign-in: a Cognito user pool access token (`Authorization: Bearer eyJ…`).',
        },
      },
      parameters: {
        IdempotencyKey: {
          name: titled(IDEMPOTENCY_KEY_HEADER),
          in: 'header',
          required: false,
          description:
            'Optional. The same key with the same body within 24 h answers the first answer again, once (no second charge), with `Idempotent-Replayed: true`; with another body: 400.',
          schema: jsonSchemaOf(IdempotencyKeySchema),
          example: '3c1c6f53-0d1e-4a86-9d3c-1f0a4a4b2f6e',
        },
      },
      headers: {
        XRequestId: {
          description:
            "This request's id (API Gateway's request id): on every answer a function gives, and in every log line of the request. Quote it to support.",
          required: true,
          schema: { type: 'string' },
        },
        RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
        Deprecation: {
          description:
            'The model is deprecated (RFC 9745): `@` and the Unix time it was deprecated. See its sunset_at in GET /api/v1/models.',
          schema: { type: 'string', pattern: '^@-?[0-9]+$' },
        },
        Sunset: {
          description:
            'When the deprecated model stops being made (RFC 8594, an HTTP date); submits after it answer 400.',
          schema: { type: 'string' },
        },
        IdempotentReplayed: {
          description: '`true` when the answer is a replay of an earlier request with the same Idempotency-Key.',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      schemas: {
        SubmitRequest: submitBodySchema(),
        UploadRequest: jsonSchemaOf(CreateUploadBody, 'input'),
        SubmitResult: jsonSchemaOf(SubmitResultSchema),
        Task: jsonSchemaOf(TaskSchema),
        TaskList: jsonSchemaOf(TaskListSchema),
        Balance: jsonSchemaOf(BalanceSchema),
        TransactionsPage: jsonSchemaOf(TransactionsPageSchema),
        ModelList: jsonSchemaOf(ModelListSchema),
        Upload: jsonSchemaOf(CreateUploadResponse),
        Health: jsonSchemaOf(HealthSchema),
        Null: { type: 'null' },
        GatewayMessage: jsonSchemaOf(GatewayMessageSchema),
        ...Object.fromEntries(
          Object.entries(CONSOLE_SCHEMAS).map(([name, schema]) => [name, jsonSchemaOf(schema, 'input')]),
        ),
      },
      responses: errorResponses(),
    },
  };
}

let built: Json | undefined;

/** The document, built once per process (a few milliseconds, at the first request). */
export function openApiDocument(): Json {
  built ??= buildDocument();
  return built;
}
