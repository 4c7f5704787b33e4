/**
 * A local stand-in for API Gateway (HTTP API, payload format 2.0): it turns each HTTP request into the
 * event API Gateway would send for the matching route, invokes that route's handler, and writes back
 * what the handler returns. What AWS refuses before any function runs, it refuses alike; whatever Node's
 * own HTTP server would answer by itself (no Host, an Expect it does not know, CONNECT) gets the envelope.
 * Each request gets an id, in the event's `requestContext.requestId` as API Gateway puts it; the gateway's own
 * answers carry it in `X-Request-Id` (the functions' answers carry it already: docs/api-contract.md, "Request ids").
 *
 * Routes flagged `auth: 'jwt'` pass the JWT authorizer first, as in AWS (the console's routes, with tokens of the
 * local Cognito, lib/dev/local/cognito.ts); and the console's single-page app is served under /console, as
 * CloudFront serves it in AWS, with its config.json made from the local Cognito's settings.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { JwtRsaVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import type { Duplex } from 'node:stream';
import { matchPath } from '../../ship/routes.js';
import type { RouteDefinition } from '../../ship/routes.js';

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

/** API Gateway's JWT authorizer settings: tokens of `issuer`, for one of `audience` (app client ids). */
export interface JwtAuthorizerSettings {
  issuer: string;
  audience: readonly string[];
  /** Scopes a verified token must hold one of (the token's `scope` or `scp`): else 403, as API Gateway does. */
  scopes?: readonly string[];
}

/** What the console's SPA reads from its config.json (the console contract). */
export interface ConsoleConfig {
  cognito: { endpoint: string; region: string; userPoolId: string; clientId: string };
  apiBase: string;
}

export interface LocalConsoleSettings {
  config: ConsoleConfig;
  /**
   * The built SPA's directory (index.html + assets/); by default `buildConsole()` of lib/ship/console/build.ts,
   * called at the first request under /console (a second call is instant: it is cached).
   */
  directory?: () => Promise<string>;
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
/** API Gateway's own answer to a verified token without any of the route's scopes: no function runs. */
export const FORBIDDEN: APIGatewayProxyStructuredResultV2 = {
  statusCode: 403,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message: 'Forbidden' }),
};
/** API Gateway's own answer when its JWT authorizer refuses a request: no function runs. */
export const UNAUTHORIZED: APIGatewayProxyStructuredResultV2 = {
  statusCode: 401,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message: 'Unauthorized' }),
};
const EMPTY = Buffer.alloc(0);
const TEXT_TYPES = /^(application\/(json|.*\+json|x-www-form-urlencoded|xml)|text\/)/i;

export async function startApiGatewayServer(given: ApiGatewayServerOptions) {
  const jwtSettings = given.jwtAuthorizer;
  const consoleSettings = given.console;
  const options: GatewayState = {
    ...given,
    authorize: jwtSettings ? jwtAuthorizer(jwtSettings) : async () => undefined,
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
  authorize: JwtAuthorizer;
  serveConsole?: (path: string, search: string) => Promise<APIGatewayProxyStructuredResultV2 | undefined>;
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
    `${new Date().toISOString()} ${requestId} ${method} ${url.pathname} → ${result.statusCode ?? 200} (${Math.round(performance.now() - started)} ms)`,
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
  let claims: Record<string, string> | undefined;
  let scopes: string[] | null = null;
  if (route.auth === 'jwt') {
    claims = await options.authorize(req.headers.authorization);
    if (!claims) return UNAUTHORIZED;
    const required = options.jwtAuthorizer?.scopes ?? [];
    if (required.length > 0) {
      scopes = (claims['scope'] ?? claims['scp'] ?? '')
        .replace(/^\[|\]$/g, '')
        .split(' ')
        .filter(Boolean);
      if (!required.some((scope) => scopes!.includes(scope))) return FORBIDDEN;
    }
  }
  const event = toEvent(req, url, method, body, requestId, route.routeKey, route.params);
  // API Gateway's payload 2.0 with a JWT authorizer (scopes: null when the route requires none).
  if (claims) Object.assign(event.requestContext, { authorizer: { jwt: { claims, scopes } } });
  // Headers, base64 and JSON escapes all count: measured only with a body, as a bodiless event stays far below.
  if (body.length > 0 && Buffer.byteLength(JSON.stringify(event)) > LAMBDA_PAYLOAD_BYTES) return PAYLOAD_TOO_LARGE;
  return route.handler(event, options.contextFor(route.id));
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

/** The claims of the token in an Authorization header, as API Gateway hands them on; undefined: refused. */
export type JwtAuthorizer = (authorization: string | undefined) => Promise<Record<string, string> | undefined>;

/**
 * API Gateway's JWT authorizer (identity source `$request.header.Authorization`): the token, with or without
 * `Bearer `, must be an RS256 JWT of the issuer signed by a key of its JWKS, unexpired (`exp`, `nbf`), and for
 * one of the audiences: its `aud` when it has one, else its `client_id` (a Cognito access token has no `aud`).
 * The JWKS is fetched with fetch(): aws-jwt-verify's own fetcher speaks HTTPS only, and the local Cognito HTTP.
 */
export function jwtAuthorizer(settings: JwtAuthorizerSettings): JwtAuthorizer {
  const audience = new Set(settings.audience);
  const jwksCache = new SimpleJwksCache({
    fetcher: {
      fetch: async (uri: string) => {
        const response = await fetch(uri, { signal: AbortSignal.timeout(5_000) });
        if (!response.ok) throw new Error(`JWKS ${uri}: HTTP ${response.status}`);
        return response.arrayBuffer();
      },
    },
  });
  const verifier = JwtRsaVerifier.create(
    {
      issuer: settings.issuer,
      jwksUri: `${settings.issuer}/.well-known/jwks.json`,
      audience: null,
      customJwtCheck: ({ payload }) => {
        const given = payload.aud === undefined ? [payload['client_id']] : [payload.aud].flat();
        if (!given.some((value) => typeof value === 'string' && audience.has(value))) {
          throw new Error('the token is not for this audience');
        }
      },
    },
    { jwksCache },
  );
  return async (authorization) => {
    const token = authorization?.replace(/^Bearer\s+/i, '').trim();
    if (!token) return undefined;
    try {
      return apiGatewayClaims(await verifier.verify(token));
    } catch {
      return undefined;
    }
  };
}

/**
 * The claims as API Gateway passes them in `requestContext.authorizer.jwt.claims`: every value a string
 * (numbers and booleans as their text; an array as `[a b c]`; an object as its JSON).
 */
export function apiGatewayClaims(payload: JwtPayload): Record<string, string> {
  const claims: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload)) {
    if (value === undefined || value === null) continue;
    claims[name] = Array.isArray(value)
      ? `[${value.map(String).join(' ')}]`
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  }
  return claims;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.mp4': 'video/mp4',
};
/** Vite's hashed build output: a new build gives new names, so a browser may keep these for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/**
 * The console under /console, as CloudFront serves it from the bucket in AWS: `/console` → 301 to `/console/`;
 * index.html for `/console/` (the SPA routes in the URL's fragment); `config.json` made here; files under assets/ (hashed names) immutable, everything else revalidated.
 * Answers undefined for paths outside /console.
 */
export function consoleServer(settings: LocalConsoleSettings) {
  const configBody = JSON.stringify(settings.config);
  let directory: Promise<string> | undefined;
  const built = () => {
    directory ??= (settings.directory ?? defaultConsoleDirectory)().catch((error: unknown) => {
      directory = undefined; // tried again at the next request
      throw error;
    });
    return directory;
  };
  return async (path: string, search: string): Promise<APIGatewayProxyStructuredResultV2 | undefined> => {
    if (path === '/console') return { statusCode: 301, headers: { location: `/console/${search}` }, body: '' };
    if (!path.startsWith('/console/')) return undefined;
    if (path === '/console/config.json') {
      return {
        statusCode: 200,
        headers: { 'content-type': 'application/json', 'cache-control': REVALIDATE },
        body: configBody,
      };
    }
    let root: string;
    try {
      root = resolve(await built());
    } catch (error) {
      console.error('the console could not be built:', error);
      return envelope(503, `the console could not be built: ${(error as Error).message.split('\n')[0]}`);
    }
    let relative: string;
    try {
      relative = decodeURIComponent(path.slice('/console/'.length));
    } catch {
      return envelope(400, 'malformed path');
    }
    const file = resolve(join(root, relative === '' ? 'index.html' : relative));
    if (file !== root && !file.startsWith(root + sep)) return envelope(404, `no such endpoint: GET ${path}`);
    const found = await stat(file).then(
      (stats) => stats.isFile(),
      () => false,
    );
    if (!found) return envelope(404, `no such file: ${path}`);
    const immutable = file.startsWith(join(root, 'assets') + sep);
    return {
      statusCode: 200,
      headers: {
        'content-type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
        'cache-control': immutable ? IMMUTABLE : REVALIDATE,
      },
      body: (await readFile(file)).toString('base64'),
      isBase64Encoded: true,
    };
  };
}

/** lib/ship/console/build.ts's buildConsole(), loaded only when the console is first asked for. */
async function defaultConsoleDirectory(): Promise<string> {
  // A variable, not a literal: loaded at run time (through tsx), and not a compile-time dependency of the gateway.
  const modulePath = '../../ship/console/build.js';
  const { buildConsole } = (await import(modulePath)) as { buildConsole: () => Promise<string> };
  return buildConsole();
}

/** The gateway's own answers get the id; a function's answer keeps the one it gave (the same). */
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

function envelopeText(code: number, message: string): string {
  return JSON.stringify({ code, message, data: null });
}

function envelope(code: number, message: string): APIGatewayProxyStructuredResultV2 {
  return { statusCode: code, headers: { 'content-type': 'application/json' }, body: envelopeText(code, message) };
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
