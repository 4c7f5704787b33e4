/**
 * Ark's side of the simulated HTTP (the plumbing every simulator shares is ../http.ts): Ark's error body, its
 * refusals of a body and of a key, its not-found errors, and the page a bad download serves. Kept apart so
 * simulator.ts reads as the task lifecycle only.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerKey, readJsonBody, sendJson } from '../http.js';
import { ArkError, invalid } from './errors.js';

/** Ark's error body: `{ error: { code, message, param, type } }`. */
export function sendError(res: ServerResponse, error: ArkError, headers: Record<string, string> = {}): void {
  const requestId = randomBytes(8).toString('hex');
  const message = `${error.message} Request id: ${requestId}`;
  sendJson(res, error.status, { error: { code: error.code, message, param: error.param, type: error.type } }, headers);
}

/** Ark's refusals of a body the simulator will not read (../http.ts: its size) or that is not JSON. */
export const readJson = (req: IncomingMessage): Promise<unknown> =>
  readJsonBody(req, {
    tooLarge: () => invalid('body', 'is too large.'),
    notJson: () => invalid('body', 'is not valid JSON.'),
  });

/** The presented key ('' without one), after checking it is one of `apiKeys` when the simulator has keys. */
export const checkAuth = (req: IncomingMessage, apiKeys: ReadonlySet<string> | undefined): string =>
  // Same code, type and wording as a real 401 from Ark.
  bearerKey(
    req,
    apiKeys,
    () =>
      new ArkError(
        401,
        'AuthenticationError',
        'the API key or AK/SK in the request is missing or invalid.',
        'Unauthorized',
      ),
  );

export const notFound = (message: string): ArkError => new ArkError(404, 'NotFound', message, 'NotFound');

/** Ark's error-code table lists 404 `NotFound.{Parameter}` for a missing resource; the exact code for a task id is unconfirmed. */
export const taskNotFound = (id: string): ArkError =>
  new ArkError(404, 'ResourceNotFound', `The specified task ${id} is not found.`, 'NotFound', 'id');

export function serveHtml(res: ServerResponse): void {
  const page = '<!doctype html><html><body><h1>Access denied</h1></body></html>';
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(page) });
  res.end(page);
}
