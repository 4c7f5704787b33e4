/**
 * HTTP plumbing for the simulated Model Studio: DashScope's JSON error body `{request_id, code, message}`,
 * the Bearer key check (401 `InvalidApiKey`), object-storage errors for the result URL, body reading.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export class DashScopeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const MAX_BODY_BYTES = 1024 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, error: DashScopeError): void {
  sendJson(res, error.status, { request_id: randomUUID(), code: error.code, message: error.message });
}

/** An OSS-like XML error; HEAD gets the status only (exact OSS wording: unconfirmed). */
export function sendStorageError(req: IncomingMessage, res: ServerResponse, status: number, code: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code></Error>`;
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new DashScopeError(400, 'InvalidParameter', 'The request body is too large.');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new DashScopeError(400, 'InvalidParameter', 'The request body is not valid JSON.');
  }
}

/** The presented key ('' without one), after checking it is one of `keys` when the simulator has keys. */
export function checkAuth(req: IncomingMessage, keys: ReadonlySet<string> | undefined): string {
  const presented = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
  if (keys === undefined || keys.has(presented)) return presented;
  throw new DashScopeError(401, 'InvalidApiKey', 'Invalid API-key provided.');
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
