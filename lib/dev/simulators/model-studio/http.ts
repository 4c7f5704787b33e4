/**
 * Model Studio's side of the simulated HTTP (the plumbing every simulator shares is ../http.ts): DashScope's
 * JSON error body `{request_id, code, message}`, its refusals of a body and of a key (401 `InvalidApiKey`).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerKey, readJsonBody, sendJson } from '../http.js';

export class DashScopeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function sendError(res: ServerResponse, error: DashScopeError): void {
  sendJson(res, error.status, { request_id: randomUUID(), code: error.code, message: error.message });
}

export const readJson = (req: IncomingMessage): Promise<unknown> =>
  readJsonBody(req, {
    tooLarge: () => new DashScopeError(400, 'InvalidParameter', 'The request body is too large.'),
    notJson: () => new DashScopeError(400, 'InvalidParameter', 'The request body is not valid JSON.'),
  });

/** The presented key ('' without one), after checking it is one of `keys` when the simulator has keys. */
export const checkAuth = (req: IncomingMessage, keys: ReadonlySet<string> | undefined): string =>
  bearerKey(req, keys, () => new DashScopeError(401, 'InvalidApiKey', 'Invalid API-key provided.'));
