/**
 * The error body of the OpenAI-compatible routes (docs/openai-videos.md, "Errors"): `{error: {message, type,
 * param, code}}`, with our HTTP statuses and our words, so the official SDK's error classes carry them.
 */
import * as v from 'valibot';
import { InvalidRequestError } from './api-error.js';
import type { ApiError } from './api-error.js';
import type { ErrorCode } from './api-error.js';

/** A 400 that names the request field it is about (OpenAI's `param`). */
export class OpenAiParamError extends InvalidRequestError {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

/** OpenAI's `type` and our `code` per status: the SDK picks its error class by status, clients read these. */
const KINDS: Readonly<Record<ErrorCode, { type: string; code: string }>> = {
  400: { type: 'invalid_request_error', code: 'invalid_request' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  402: { type: 'insufficient_quota', code: 'insufficient_balance' },
  403: { type: 'invalid_request_error', code: 'forbidden' },
  404: { type: 'invalid_request_error', code: 'not_found' },
  415: { type: 'invalid_request_error', code: 'unsupported_media_type' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: 'internal_error' },
};

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

export function openAiErrorBody(error: ApiError): OpenAiErrorBody {
  const kind = KINDS[error.code];
  const param = error instanceof OpenAiParamError ? error.param : null;
  return { error: { message: error.message, type: kind.type, param, code: kind.code } };
}

export const OpenAiErrorSchema = v.object({
  error: v.object({
    message: v.string(),
    type: v.string(),
    param: v.nullable(v.string()),
    code: v.string(),
  }),
});
