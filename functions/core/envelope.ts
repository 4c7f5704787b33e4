/** The response envelope of every endpoint (docs/api-contract.md, "Envelope and errors"): `{code, message, data}`, `data` null on error. */
import type { ApiError } from './api-error.js';

export interface Envelope<T> {
  code: number;
  message: string;
  data: T | null;
}

export function successEnvelope<T>(data: T, message = 'success'): Envelope<T> {
  return { code: 0, message, data };
}

export function errorEnvelope(error: ApiError): Envelope<never> {
  return { code: error.code, message: error.message, data: null };
}

/** HTTP status for an envelope: code 0 is 200, otherwise the code itself. */
export function httpStatusOf(envelope: Envelope<unknown>): number {
  return envelope.code === 0 ? 200 : envelope.code;
}
