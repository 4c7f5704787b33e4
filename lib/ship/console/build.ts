/**
 * Builds the console SPA with Vite's programmatic API and caches the result by the hash of its sources, so the
 * local gateway and CDK can both call `buildConsole()` and only the first call after a change pays for a build.
 *
 * The cache key covers every file under lib/ship/console, every functions/ file the app imports at run time (the
 * pricing code, followed transitively), and the versions of Vite and Preact. The build goes to a temporary
 * directory that is renamed into place, so concurrent builds (two processes) never leave a half-written output:
 * a reader sees either no directory or a complete one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CONSOLE_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(CONSOLE_DIR, '..', '..', '..');
const DEFAULT_CACHE_ROOT = path.join(REPO_ROOT, 'node_modules', '.cache', 'console');

export interface BuildConsoleOptions {
  /** The cache root holding one `<hash>` directory per build (default node_modules/.cache/console). */
  outDir?: string;
}

/** Older builds kept beside the current one (a running `npm start` may still serve one of them). */
const KEEP_BUILDS = 5;
/** A temporary directory this old is left over from a killed build. */
const STALE_TEMP_MS = 60 * 60 * 1000;

const inProcess = new Map<string, Promise<string>>();

/** The absolute directory of the built SPA (index.html + assets/), built only when its sources changed. */
export async function buildConsole(options: BuildConsoleOptions = {}): Promise<string> {
  const cacheRoot = path.resolve(options.outDir ?? DEFAULT_CACHE_ROOT);
  const key = await consoleSourceHash();
  const finalDir = path.join(cacheRoot, key);
  if (isComplete(finalDir)) return finalDir;
  let pending = inProcess.get(finalDir);
  if (!pending) {
    pending = buildInto(cacheRoot, finalDir).finally(() => inProcess.delete(finalDir));
    inProcess.set(finalDir, pending);
  }
  return pending;
}

function isComplete(dir: string): boolean {
  return existsSync(path.join(dir, 'index.html'));
}

async function buildInto(cacheRoot: string, finalDir: string): Promise<string> {
  const { build } = await import('vite');
  const tempDir = `${finalDir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await build({
      configFile: false,
      // Pinned: the output must depend on the sources only, not on NODE_ENV (vitest sets it to "test", and Vite
      // would then compile JSX in development mode, with absolute source paths in the bundle).
      mode: 'production',
      root: CONSOLE_DIR,
      base: './',
      logLevel: 'warn',
      publicDir: false,
      envDir: false,
      cacheDir: path.join(cacheRoot, '.vite'),
      oxc: { jsx: { runtime: 'automatic', importSource: 'preact', development: false } },
      build: {
        outDir: tempDir,
        emptyOutDir: true,
        sourcemap: false,
        reportCompressedSize: false,
        modulePreload: { polyfill: false },
      },
    });
    await copyDocsRenderer(tempDir);
    if (!isComplete(tempDir)) throw new Error(`the console build left no index.html in ${tempDir}`);
    try {
      await rename(tempDir, finalDir);
    } catch (error) {
      // Another process renamed its identical build into place first: theirs is as good as ours.
      if (!isComplete(finalDir)) throw error;
    }
    await prune(cacheRoot, finalDir).catch(() => undefined);
    return finalDir;
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
}

/**
 * The API reference page's renderer (GET /docs, functions/http/get-docs.ts): Swagger UI's prebuilt files from its
 * npm package, served with the console (locally by the gateway, in AWS from the console's bucket), so the page
 * loads nothing from another origin. Far over a function bundle's 500 KiB, hence here and not in the function.
 */
export const DOCS_RENDERER_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css'] as const;

async function copyDocsRenderer(outDir: string): Promise<void> {
  const from = path.join(REPO_ROOT, 'node_modules', 'swagger-ui-dist');
  await mkdir(path.join(outDir, 'docs'), { recursive: true });
  for (const file of DOCS_RENDERER_FILES) await copyFile(path.join(from, file), path.join(outDir, 'docs', file));
}

/** Removes all but the newest KEEP_BUILDS builds, and temporary directories left by killed builds. */
async function prune(cacheRoot: string, current: string): Promise<void> {
  const entries = await readdir(cacheRoot, { withFileTypes: true });
  const dirs = await Promise.all(
    entries
      .filter((entry) => entry.isDirectory() && /^[0-9a-f]{64}(\.tmp-.+)?$/.test(entry.name))
      .map(async (entry) => {
        const dir = path.join(cacheRoot, entry.name);
        return { dir, temp: entry.name.includes('.tmp-'), mtimeMs: (await stat(dir)).mtimeMs };
      }),
  );
  const now = Date.now();
  const builds = dirs.filter((d) => !d.temp && d.dir !== current).sort((a, b) => b.mtimeMs - a.mtimeMs);
  const doomed = [...builds.slice(KEEP_BUILDS - 1), ...dirs.filter((d) => d.temp && now - d.mtimeMs > STALE_TEMP_MS)];
  await Promise.all(doomed.map((d) => rm(d.dir, { recursive: true, force: true })));
}

/** sha256 over the console's sources, the service files it imports, and the tool versions. */
export async function consoleSourceHash(): Promise<string> {
  const files = await consoleSourceFiles();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(path.relative(REPO_ROOT, file).split(path.sep).join('/'));
    hash.update('\0');
    hash.update(await readFile(file));
    hash.update('\0');
  }
  for (const name of ['vite', 'preact', 'swagger-ui-dist']) {
    const manifest = path.join(REPO_ROOT, 'node_modules', name, 'package.json');
    const version = existsSync(manifest)
      ? (JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version
      : '';
    hash.update(`${name}@${version}\0`);
  }
  return hash.digest('hex');
}

/** Every file under lib/ship/console, plus the files outside it that those import at run time, sorted. */
export async function consoleSourceFiles(): Promise<string[]> {
  const own = await listFiles(CONSOLE_DIR);
  const outside = new Set<string>();
  const queue = own.filter((file) => /\.(ts|tsx)$/.test(file));
  const seen = new Set(queue);
  while (queue.length > 0) {
    const file = queue.pop() as string;
    for (const specifier of runtimeImports(await readFile(file, 'utf8'))) {
      const resolved = resolveSource(path.dirname(file), specifier);
      if (!resolved || seen.has(resolved)) continue;
      seen.add(resolved);
      if (!resolved.startsWith(CONSOLE_DIR + path.sep)) outside.add(resolved);
      queue.push(resolved);
    }
  }
  return [...own, ...[...outside].sort()];
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && !entry.parentPath.split(path.sep).includes('node_modules'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** Relative specifiers of value imports and re-exports (`import type` is erased, so it cannot change the bundle). */
export function runtimeImports(source: string): string[] {
  const pattern = /(?:^|[\s;])(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s*)?['"](\.{1,2}\/[^'"]+)['"]/g;
  return [...source.matchAll(pattern)].map((match) => match[1] as string);
}

function resolveSource(fromDir: string, specifier: string): string | undefined {
  const base = path.resolve(fromDir, specifier);
  const stem = base.replace(/\.(js|jsx|mjs)$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, path.join(base, 'index.ts')];
  return candidates.find((candidate) => statSync(candidate, { throwIfNoEntry: false })?.isFile());
}
