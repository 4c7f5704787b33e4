/**
 * A local stand-in for API Gateway (HTTP API, payload format 2.0): it turns each HTTP request into the event
 * API Gateway would send for the matching route, invokes that route's handler, and writes back what it returns.
 * What AWS refuses before any function runs, it refuses alike; what Node's own HTTP server would answer by itself
 * (no Host, an Expect it does not know, CONNECT) gets the envelope. Routes flagged `auth: 'jwt'` pass the JWT
 * authorizer first (jwt-authorizer.ts), and the console's files are served under /console (console-files.ts).
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { matchPath } from '../../ship/routes.js';
import type { RouteDefinition } from '../../ship/routes.js';
import { loggedPath } from './access-log-path.js';
import { consoleServer } from './console-files.js';
import type { ConsoleConfig, ConsoleFiles, LocalConsoleSettings } from './console-files.js';
import { envelope, envelopeText } from './gateway-envelope.js';
import { routeAuthorizer } from './jwt-authorizer.js';
import type { JwtAuthorizerSettings, JwtContext, RouteAuthorizer } from './jwt-authorizer.js';

export type HttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

export interface LocalRoute extends Pick<RouteDefinition, 'id' | 'path'> {
  method: RouteDefinition['method'] | 'PATCH' | 'PUT' | 'DELETE';
  /** `jwt`: only with a token the JWT authorizer accepts (API Gateway's JWT authorizer in AWS). */
  auth?: 'jwt' | undefined;
  handler: HttpHandler;
}

/** The local stack's authorizer and console settings for the API process's gateway. */
export interface GatewaySettings {
  jwtAuthorizer?: JwtAuthorizerSettings;
  console?: { config: ConsoleConfig };
}

export interface ApiGatewayServerOptions {
  routes: readonly LocalRoute[];
  defaultRoute: { id: string; handler: HttpHandler };
  contextFor: (routeId: string) => Context;
  /**
   * How long the gateway waits for a function (HTTP APIs: at most 30 s, "Quotas for configuring and running an
   * HTTP API"); the local stack scales it as the functions' timeouts (local-function.ts). Default 30 s.
   */
  integrationTimeoutMs?: number;
  port: number;
  host?: string;
  /** Access log, one line per request (API Gateway's access logs, locally). */
  accessLog?: (line: string) => void;
  /**
   * For the routes flagged `auth: 'jwt'`; without it those routes answer 401 to every request, as no token
   * could be checked.
   */
  jwtAuthorizer?: JwtAuthorizerSettings;
  /** Serves the console under /console; without it /console is no route. */
  console?: LocalConsoleSettings;
}

/**
 * Lambda's limit on a synchronous invocation's payload, the event as JSON (6 MB: Lambda quotas, and Invoke's
 * "limit 6291456 bytes"). API Gateway's own 10 MB cap on a body is never reached before it.
 */
export const LAMBDA_PAYLOAD_BYTES = 6 * 1024 * 1024;
/**
 * What an HTTP API answers when the event is over Lambda's limit: API Gateway's own reply, not our envelope (no
 * function runs). As in AWS's API Gateway emulator (aws-lambda-dotnet, Amazon.Lambda.TestTool:
 * ApiGatewayEmulatorProcess.cs maps Lambda's RequestEntityTooLargeException to it for HTTP APIs).
 */
const PAYLOAD_TOO_LARGE: APIGatewayProxyStructuredResultV2 = {
  statusCode: 413,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message: 'Request Entity Too Large' }),
};
/**
 * An HTTP API's own answers when a Lambda integration fails (not our envelope): a function error, a function
 * timeout or an invoke Lambda refused (a throttle) are 500, the integration's own timeout 503
 * (docs/local-stack.md, "Concurrency and timeouts", has the sources).
 */
const gatewayMessage = (statusCode: number, message: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message }),
});
export const INTEGRATION_FAILED = gatewayMessage(500, 'Internal Server Error');
export const INTEGRATION_TIMED_OUT = gatewayMessage(503, 'Service Unavailable');
/** HTTP APIs' integration timeout, which cannot be raised ("Quotas for configuring and running an HTTP API"). */
export const HTTP_API_INTEGRATION_TIMEOUT_MS = 30_000;
const EMPTY = Buffer.alloc(0);
const TEXT_TYPES = /^(application\/(json|.*\+json|x-www-form-urlencoded|xml)|text\/)/i;

export async function startApiGatewayServer(given: ApiGatewayServerOptions) {
  const consoleSettings = given.console;
  const options: GatewayState = {
    ...given,
    authorize: routeAuthorizer(given.jwtAuthorizer),
    ...(consoleSettings && { serveConsole: consoleServer(consoleSettings) }),
  };
  // No Host is answered below, in the envelope, instead of by Node's bare 400.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    handle(req, res, options).catch((error: unknown) => {
      // Only reached if writing the response itself failed; the handler's own errors are envelopes.
      console.error('local API gateway error', error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(envelopeText(500, 'internal server error'));
    });
  });
  // An idle keep-alive connection stays open until its client closes it. With Node's 5 s the server closed
  // it while a client on a busy machine, its own timer late, was sending on it ("other side closed").
  server.keepAliveTimeout = 0;
  // Any Expect but 100-continue (RFC 9110 §10.1.1): the envelope, not Node's bare 417.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const message = `unsupported Expect header "${req.headers.expect}": only 100-continue is understood`;
    send(res, withRequestId(envelope(400, message), randomUUID()));
  });
  // CONNECT reaches no route, as in AWS: the not-found envelope instead of a closed connection.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    writeRaw(socket, 404, 'Not Found', `no such endpoint: CONNECT ${req.url ?? ''}`);
  });
  // Requests Node cannot even parse (oversized or malformed headers) still get the envelope, not a bare 400/431.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    const message =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'request headers are too large'
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'the request was not received in time'
          : 'malformed HTTP request';
    writeRaw(socket, 400, 'Bad Request', message);
  });
  await listen(server, options.port, options.host ?? '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    close: () => closeServer(server),
  };
}

interface GatewayState extends ApiGatewayServerOptions {
  authorize: RouteAuthorizer;
  serveConsole?: ConsoleFiles;
}

async function handle(req: IncomingMessage, res: ServerResponse, options: GatewayState) {
  // Always a path on our host: as a base-relative URL, `//` or `//a:b` would parse as an authority (or throw).
  const target = req.url ?? '/';
  const url = new URL(`http://localhost${target.startsWith('/') ? target : `/${target}`}`);
  const method = (req.method ?? 'GET').toUpperCase();
  const started = performance.now();
  const requestId = randomUUID();
  const result = withRequestId(await answer(req, url, method, requestId, options), requestId);
  send(res, result);
  options.accessLog?.(
    `${new Date().toISOString()} ${requestId} ${method} ${loggedPath(url.pathname, options.routes)} → ${result.statusCode ?? 200} (${Math.round(performance.now() - started)} ms)`,
  );
}

async function answer(
  req: IncomingMessage,
  url: URL,
  method: string,
  requestId: string,
  options: GatewayState,
): Promise<APIGatewayProxyStructuredResultV2> {
  // RFC 9112 §3.2: an HTTP/1.1 request without Host is refused with 400.
  if (req.httpVersion === '1.1' && req.headers.host === undefined) {
    return envelope(400, 'the Host header is required');
  }
  if (options.serveConsole && (method === 'GET' || method === 'HEAD')) {
    const served = await options.serveConsole(url.pathname, url.search);
    if (served) {
      req.resume();
      // For HEAD, Node's response writes the headers (the length included) and drops the body.
      return served;
    }
  }
  const body = await readBody(req);
  if (body === undefined) return PAYLOAD_TOO_LARGE;
  let route: {
    id: string;
    handler: HttpHandler;
    routeKey: string;
    params?: Record<string, string>;
    auth?: 'jwt' | undefined;
  } = {
    ...options.defaultRoute,
    routeKey: '$default',
  };
  for (const candidate of options.routes) {
    const params = candidate.method === method ? matchPath(candidate.path, url.pathname) : undefined;
    if (params) {
      route = { ...candidate, routeKey: `${candidate.method} ${candidate.path}`, params };
      break;
    }
  }
  let authorizer: JwtContext | undefined;
  if (route.auth === 'jwt') {
    const verdict = await options.authorize(req.headers.authorization);
    if ('refusal' in verdict) return verdict.refusal;
    authorizer = verdict.context;
  }
  const event = toEvent(req, url, method, body, requestId, route.routeKey, route.params);
  // API Gateway's payload 2.0 with a JWT authorizer.
  if (authorizer) Object.assign(event.requestContext, { authorizer });
  // Headers, base64 and JSON escapes all count: measured only with a body, as a bodiless event stays far below.
  if (body.length > 0 && Buffer.byteLength(JSON.stringify(event)) > LAMBDA_PAYLOAD_BYTES) return PAYLOAD_TOO_LARGE;
  return integrate(route, event, options);
}

/** The function's answer, or the gateway's own when it failed, was refused, or outlasted the integration timeout. */
async function integrate(
  route: { id: string; handler: HttpHandler },
  event: APIGatewayProxyEventV2,
  options: GatewayState,
): Promise<APIGatewayProxyStructuredResultV2> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<APIGatewayProxyStructuredResultV2>((resolve) => {
    timer = setTimeout(
      () => resolve(INTEGRATION_TIMED_OUT),
      options.integrationTimeoutMs ?? HTTP_API_INTEGRATION_TIMEOUT_MS,
    );
  });
  try {
    const answered = (async () => route.handler(event, options.contextFor(route.id)))().catch((error: unknown) => {
      // What API Gateway logs as the integration error ($context.integrationErrorMessage): the access log's.
      console.error(
        `local API gateway: ${route.id} failed:`,
        (error as Error)?.name ?? error,
        (error as Error)?.message,
      );
      return INTEGRATION_FAILED;
    });
    return await Promise.race([answered, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function toEvent(
  req: IncomingMessage,
  url: URL,
  method: string,
  body: Buffer,
  requestId: string,
  routeKey: string,
  params: Record<string, string> | undefined,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && name !== 'cookie') headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = query[name] ? `${query[name]},${value}` : value;
  const isText = body.length === 0 || TEXT_TYPES.test(headers['content-type'] ?? 'application/json');
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(req.headers.cookie ? { cookies: req.headers.cookie.split(/;\s*/) } : {}),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(params ? { pathParameters: params } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers['host'] ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0
      ? { body: isText ? body.toString('utf8') : body.toString('base64'), isBase64Encoded: !isText }
      : { isBase64Encoded: false }),
  };
}

/**
 * Each request's id is the event's `requestContext.requestId`, as API Gateway puts it; the gateway's own answers
 * carry it in `X-Request-Id`, and a function's answer keeps the one it gave, the same (docs/api-contract.md,
 * "Request ids").
 */
function withRequestId(
  result: APIGatewayProxyStructuredResultV2,
  requestId: string,
): APIGatewayProxyStructuredResultV2 {
  const headers = result.headers ?? {};
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'x-request-id')) return result;
  return { ...result, headers: { ...headers, 'x-request-id': requestId } };
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2) {
  const body = result.body ?? '';
  const payload = result.isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
  res.writeHead(result.statusCode ?? 200, { ...result.headers, 'content-length': String(payload.length) });
  res.end(payload);
}

/** The body, or undefined past Lambda's limit: the rest is still read (and dropped) so the client gets the answer. */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  // A request that announces no body (most GETs) is answered without waiting for the stream's end.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
    req.resume();
    return EMPTY;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= LAMBDA_PAYLOAD_BYTES) chunks.push(chunk as Buffer);
  }
  return size <= LAMBDA_PAYLOAD_BYTES ? Buffer.concat(chunks) : undefined;
}

/** An envelope written straight to the socket, where Node gives us no response object; then the connection ends. */
function writeRaw(socket: Duplex, code: number, reason: string, message: string) {
  const body = envelopeText(code, message);
  socket.end(
    `HTTP/1.1 ${code} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${randomUUID()}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
