/** The operations as OpenAPI Operation Objects: a public one's answers and headers, and a console one's sign-in. */
import { IDEMPOTENT_REPLAYED_HEADER } from '../../core/idempotency.js';
import type { ConsoleOperation } from './console-operations.js';
import { errorResponse } from './error-responses.js';
import { REQUEST_ID, titled } from './headers.js';
import { ref } from './json-schema.js';
import type { Json } from './json-schema.js';
import type { OperationSpec } from './public-operations.js';
import {
  DELIVERY_ID_PARAMETER,
  jsonRequestBody,
  KEY_ID_PARAMETER,
  queryParameters,
  TASK_ID_PARAMETER,
  TOPUP_ID_PARAMETER,
} from './request-parts.js';

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

/** The 200: the envelope with the operation's `data`. */
function successResponse(headers: Json, data: { component: string; example: unknown; message?: string }): Json {
  return {
    description: 'Success: `code` 0.',
    headers,
    content: {
      'application/json': {
        schema: successEnvelope(data.component),
        example: { code: 0, message: data.message ?? 'success', data: data.example },
      },
    },
  };
}

interface OperationParts {
  tag: string;
  /** Absent: the document's default (an API key). */
  security?: Json[];
  parameters: Json[];
  requestBody?: Json | undefined;
  responses: Json;
}

function operationObject(spec: Pick<OperationSpec, 'id' | 'summary' | 'description'>, parts: OperationParts): Json {
  return {
    operationId: spec.id,
    summary: spec.summary,
    description: spec.description,
    tags: [parts.tag],
    ...(parts.security ? { security: parts.security } : {}),
    ...(parts.parameters.length > 0 ? { parameters: parts.parameters } : {}),
    ...(parts.requestBody ? { requestBody: parts.requestBody } : {}),
    responses: parts.responses,
  };
}

export function publicOperation(spec: OperationSpec): Json {
  const parameters = [...(spec.parameters ?? []), ...(spec.idempotent ? [ref('parameters', 'IdempotencyKey')] : [])];
  const successHeaders = {
    ...REQUEST_ID,
    ...(spec.idempotent ? { [titled(IDEMPOTENT_REPLAYED_HEADER)]: ref('headers', 'IdempotentReplayed') } : {}),
    ...(spec.namesModel ? { Deprecation: ref('headers', 'Deprecation'), Sunset: ref('headers', 'Sunset') } : {}),
  };
  const responses: Json = {
    '200': spec.success ?? successResponse(successHeaders, spec.data as NonNullable<OperationSpec['data']>),
  };
  for (const code of spec.errors) responses[String(code)] = errorResponse(code);
  if (spec.requestBody && !spec.anyContentType) responses['415'] = errorResponse(415);
  responses['413'] = ref('responses', 'PayloadTooLarge');
  return operationObject(spec, {
    tag: spec.tag,
    ...(spec.authenticated ? {} : { security: [] }),
    parameters,
    requestBody: spec.requestBody,
    responses,
  });
}

/** A console operation: the Cognito access token instead of a key; a 401 may be the gateway's own. */
export function consoleOperation(spec: ConsoleOperation): Json {
  const pathId = spec.pathId
    ? [
        {
          task: TASK_ID_PARAMETER,
          key: KEY_ID_PARAMETER,
          topup: TOPUP_ID_PARAMETER,
          delivery: DELIVERY_ID_PARAMETER,
        }[spec.pathId],
      ]
    : [];
  const responses: Json = {
    '200': successResponse(REQUEST_ID, spec.data),
    '401': ref('responses', 'ConsoleUnauthorized'),
    '403': ref('responses', 'ConsoleForbidden'),
  };
  for (const code of spec.errors) responses[String(code)] ??= errorResponse(code);
  if (spec.body) responses['415'] = errorResponse(415);
  return operationObject(spec, {
    tag: 'Console',
    security: [{ consoleJwt: [] }],
    parameters: [...pathId, ...(spec.query ? queryParameters(spec.query) : [])],
    requestBody: spec.body && jsonRequestBody(spec.body.component, { example: spec.body.example }),
    responses,
  });
}
