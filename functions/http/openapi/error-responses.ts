/**
 * The error answers (the document's `components.responses`): the envelope of each code in the spec's error
 * table, and what API Gateway answers itself before any function runs (its throttle, a body over Lambda's
 * 6 MB, a console request without a valid sign-in).
 */
import * as v from 'valibot';
import type { ErrorCode } from '../../core/api-error.js';
import { EXAMPLES } from './examples.js';
import { REQUEST_ID } from './headers.js';
import { jsonSchemaOf, ref } from './json-schema.js';
import type { Json } from './json-schema.js';

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

/** The reference to a code's error answer. */
export const errorResponse = (code: ErrorCode) => ref('responses', ERROR_NAMES[code]);

/** The envelope of an error: `data` is null and `code` equals the HTTP status (docs/api-contract.md, "Envelope and errors"). */
const errorEnvelope = (code: ErrorCode) =>
  v.strictObject({
    code: v.pipe(v.literal(code), v.description('Equals the HTTP status.')),
    message: v.pipe(v.string(), v.description('What went wrong, in words: names the field or the rule.')),
    data: v.null(),
  });

/** What API Gateway answers itself, before any function runs (its throttle, a body over Lambda's 6 MB). */
export const GatewayMessageSchema = v.strictObject({ message: v.string() });

/** A code API Gateway may answer itself: its `{"message": …}` is as likely as our envelope. */
const orGatewayMessage = (envelope: Json) => ({ anyOf: [envelope, ref('schemas', 'GatewayMessage')] });

/** A console refusal: API Gateway's own unless our function refused (docs/console.md). */
function consoleRefusal(code: 401 | 403, description: string, message: string): Json {
  return {
    description,
    content: {
      'application/json': { schema: orGatewayMessage(jsonSchemaOf(errorEnvelope(code))), example: { message } },
    },
  };
}

export function errorResponses(): Json {
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
          // A 429 may also be API Gateway's own throttle, answered before any function runs; a 500 its own answer
          // for a function that crashed, timed out or was throttled (docs/api-contract.md).
          schema: errorCode === 429 || errorCode === 500 ? orGatewayMessage(envelope) : envelope,
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
  responses['ConsoleUnauthorized'] = consoleRefusal(
    401,
    'No valid sign-in: API Gateway\'s own answer `{"message":"Unauthorized"}` for a missing, expired or foreign token (sign in again).',
    'Unauthorized',
  );
  responses['ConsoleForbidden'] = consoleRefusal(
    403,
    'API Gateway\'s own answer `{"message":"Forbidden"}` to a token without the access tokens\' scope (an ID token: send the access token), or the envelope\'s 403 for another account\'s resource.',
    'Forbidden',
  );
  return responses;
}
