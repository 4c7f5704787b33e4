/**
 * The console's single-page app under /console of the local gateway, as CloudFront serves it from the bucket
 * in AWS, with its config.json made from the local Cognito's settings (lib/dev/local/local-stack.ts).
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { envelope } from './gateway-envelope.js';

/** What the console's SPA reads from its config.json (the console contract). */
export interface ConsoleConfig {
  cognito: { endpoint: string; region: string; userPoolId: string; clientId: string };
  apiBase: string;
  /** `simulator` when top-ups go to the local Alipay simulator (the Top-up page shows its pay button). */
  payments?: 'alipay' | 'simulator';
}

export interface LocalConsoleSettings {
  config: ConsoleConfig;
  /**
   * The built SPA's directory (index.html + assets/); by default `buildConsole()` of lib/ship/console/build.ts,
   * called at the first request under /console (a second call is instant: it is cached).
   */
  directory?: () => Promise<string>;
}

/** Answers a GET or HEAD of `path`; undefined for paths outside /console. */
export type ConsoleFiles = (path: string, search: string) => Promise<APIGatewayProxyStructuredResultV2 | undefined>;

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
export function consoleServer(settings: LocalConsoleSettings): ConsoleFiles {
  const configBody = JSON.stringify(settings.config);
  let directory: Promise<string> | undefined;
  const built = () => {
    directory ??= (settings.directory ?? defaultConsoleDirectory)().catch((error: unknown) => {
      directory = undefined; // tried again at the next request
      throw error;
    });
    return directory;
  };
  return async (path, search) => {
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
