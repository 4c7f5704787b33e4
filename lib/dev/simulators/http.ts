/**
 * HTTP plumbing every simulator shares: JSON replies, body reading, the Bearer key check, object-storage XML
 * errors, listening and closing. Each provider's error bodies and codes stay in its own folder's http.ts,
 * handed in here as the errors to throw.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The simulators only need JSON with URLs (Ark itself takes up to 64 MB). */
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

/** The provider's refusals of a body: over the size the simulator reads, or not JSON. */
export interface BodyRefusals {
  tooLarge(): Error;
  notJson(): Error;
}

export async function readJsonBody(req: IncomingMessage, refusals: BodyRefusals): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw refusals.tooLarge();
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw refusals.notJson();
  }
}

/** The presented Bearer key ('' without one), after checking it is one of `keys` when there are keys. */
export function bearerKey(req: IncomingMessage, keys: ReadonlySet<string> | undefined, refusal: () => Error): string {
  const presented = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
  if (keys === undefined || keys.has(presented)) return presented;
  throw refusal();
}

/** An object-storage (S3, TOS, OSS) XML error, with a Message when given; HEAD gets the status only. */
export function sendStorageXml(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  code: string,
  message?: string,
): void {
  const detail = message === undefined ? '' : `<Message>${message}</Message>`;
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code>${detail}</Error>`;
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
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

/** `http://<address>:<port>`, an IPv6 address in brackets. */
export const baseUrlOf = (address: AddressInfo): string =>
  `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // close() alone waits for keep-alive and hanging sockets; tests must not.
    server.closeAllConnections();
  });
}
