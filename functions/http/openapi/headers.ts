/** The headers the API answers with, as the document names and describes them (its `components.headers`). */
import { ref } from './json-schema.js';
import { REQUEST_ID_HEADER } from '../middleware/request-id.js';

/** `idempotency-key` → `Idempotency-Key`: header names are case-insensitive, the document shows them titled. */
export const titled = (header: string) =>
  header.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());

/** On every answer a function gives. */
export const REQUEST_ID = { [titled(REQUEST_ID_HEADER)]: ref('headers', 'XRequestId') };

export const HEADER_COMPONENTS = {
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
    description: 'When the deprecated model stops being made (RFC 8594, an HTTP date); submits after it answer 400.',
    schema: { type: 'string' },
  },
  IdempotentReplayed: {
    description: '`true` when the answer is a replay of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
};
