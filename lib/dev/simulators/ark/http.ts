/**
 * HTTP plumbing for the simulated Ark: JSON replies and Ark's error body, object-storage-like errors
 * for the video URL, body reading with Ark's refusals, the Bearer key check. Kept apart so
 * simulator.ts reads as the task lifecycle only.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ArkError, invalid } from './errors.js';

/** Ark caps a task request body at 64 MB; the simulator only needs JSON with URLs. */
const MAX_BODY_BYTES = 1024 * 1024;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Ark's error body: `{ error: { code, message, param, type } }`. */
export function sendError(res: ServerResponse, error: ArkError, headers: Record<string, string> = {}): void {
  const requestId = randomBytes(8).toString('hex');
  const message = `${error.message} Request id: ${requestId}`;
  sendJson(res, error.status, { error: { code: error.code, message, param: error.param, type: error.type } }, headers);
}

/** An object-storage (S3/TOS-like) XML error; HEAD gets the status only. Exact TOS wording: unconfirmed. */
export function sendStorageError(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw invalid('body', 'is too large.');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw invalid('body', 'is not valid JSON.');
  }
}

/** The presented key ('' without one), after checking it is one of `apiKeys` when the simulator has keys. */
export function checkAuth(req: IncomingMessage, apiKeys: ReadonlySet<string> | undefined): string {
  const presented = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
  if (apiKeys === undefined || apiKeys.has(presented)) return presented;
  // Same code, type and wording as a real 401 from Ark.
  throw new ArkError(
    401,
    'AuthenticationError',
    'the API key or AK/SK in the request is missing or invalid.',
    'Unauthorized',
  );
}

export const notFound = (message: string): ArkError => new ArkError(404, 'NotFound', message, 'NotFound');

/** Ark's error-code table lists 404 `NotFound.{Parameter}` for a missing resource; the exact code for a task id is unconfirmed. */
export const taskNotFound = (id: string): ArkError =>
  new ArkError(404, 'ResourceNotFound', `The specified task ${id} is not found.`, 'NotFound', 'id');

export function serveHtml(res: ServerResponse): void {
  const page = '<!doctype html><html><body><h1>Access denied</h1></body></html>';
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(page) });
  res.end(page);
}

export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
