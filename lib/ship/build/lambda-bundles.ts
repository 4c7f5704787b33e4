/**
 * The Lambda bundles the local stack runs, built by esbuild from the options CDK deploys with
 * (lib/ship/build/lambda-bundle-options.ts). A build is kept by content: its directory is named by a hash of what it
 * is made of, so a run rebuilds only after a change. Each build is made in a temporary directory and
 * renamed into place: two test workers starting at once never see half a build.
 */
import { build, stop as stopEsbuild, version as esbuildVersion } from 'esbuild';
import type { BuildOptions } from 'esbuild';
import { createHash, randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { LAMBDA_ESBUILD_OPTIONS } from './lambda-bundle-options.js';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { ALL_FUNCTIONS } from '../routes.js';

export const BUNDLE_CACHE_DIR = join(REPOSITORY_ROOT, 'node_modules', '.cache', 'lambda-bundles');
/** The repository's files a bundle may be built from; node_modules is pinned by package-lock.json. */
const SOURCE_DIR = 'functions';
const CONFIG_FILES = ['package.json', 'package-lock.json', 'tsconfig.json'];
/** Builds kept whatever their age; older ones go once unused for an hour (a running stack keeps its own fresh). */
const KEEP_NEWEST = 3;
const UNUSED_MS = 3_600_000;

export interface LambdaBundles {
  /** The build's directory: one `<function id>/index.mjs` (and its `.map`) per function. */
  dir: string;
  /** Each function's bundle by its entry (lib/ship/routes.ts), as an absolute path. */
  files: Record<string, string>;
  /** Whether this call built it (a cache miss), and how long it took. */
  built: boolean;
  ms: number;
}

/**
 * esbuild's options for a build of `functions`: the shared ones, one entry each, written to
 * `<outdir>/<function id>/index.mjs`. One build for all of them parses each shared module once: 37 separate
 * builds took about eight times as long.
 */
export function bundleBuildOptions(functions: FunctionList, outdir: string): BuildOptions {
  return {
    ...LAMBDA_ESBUILD_OPTIONS,
    entryPoints: functions.map(({ id, entry }) => ({ in: join(REPOSITORY_ROOT, entry), out: `${id}/index` })),
    bundle: true,
    outdir,
    outExtension: { '.js': '.mjs' },
    absWorkingDir: REPOSITORY_ROOT,
    logLevel: 'warning',
  };
}

/** Calls under way, by build directory: stacks started at once in one process share one build. */
const underWay = new Map<string, Promise<LambdaBundles>>();
let building = 0;

type FunctionList = readonly { id: string; entry: string }[];

/**
 * Every function's bundle for the sources as they are now: from the cache, or built in one esbuild run.
 * `functions`: a few of them instead (the cache's own test: the protocol does not depend on how many).
 */
export function lambdaBundles(
  cacheDir = BUNDLE_CACHE_DIR,
  functions: FunctionList = ALL_FUNCTIONS,
  progress?: (line: string) => void,
): Promise<LambdaBundles> {
  const started = Date.now();
  const dir = join(cacheDir, contentKey(functions));
  let bundles = underWay.get(dir);
  if (!bundles) {
    bundles = findOrBuild(dir, functions, started, progress).finally(() => underWay.delete(dir));
    underWay.set(dir, bundles);
  }
  return bundles;
}

async function findOrBuild(
  dir: string,
  functions: FunctionList,
  started: number,
  progress?: (line: string) => void,
): Promise<LambdaBundles> {
  const files = Object.fromEntries(functions.map(({ id, entry }) => [entry, join(dir, id, 'index.mjs')]));
  if (markUsed(dir)) return { dir, files, built: false, ms: Date.now() - started };
  progress?.(
    `Building the ${functions.length} Lambda bundles (the first start, or the sources changed; cached after)…`,
  );
  const cacheDir = dirname(dir);
  mkdirSync(cacheDir, { recursive: true });
  const temporary = join(cacheDir, `.tmp-${basename(dir)}-${randomUUID()}`);
  building += 1;
  try {
    await buildAll(functions, temporary);
    progress?.(`  all ${functions.length} bundles built (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    try {
      renameSync(temporary, dir);
    } catch (error) {
      // Another process renamed the same build into place first: theirs is as good.
      if (!['ENOTEMPTY', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  } finally {
    rmSync(temporary, { recursive: true, force: true });
    // esbuild's service process would outlive the build: nothing else here needs it.
    if (--building === 0) await stopEsbuild();
  }
  prune(dir);
  return { dir, files, built: true, ms: Date.now() - started };
}

async function buildAll(functions: FunctionList, outdir: string): Promise<void> {
  const result = await build({ ...bundleBuildOptions(functions, outdir), metafile: true });
  // The key hashes the source directory only: a bundle that takes in another file of ours would go stale.
  // esbuild names files by their real path: a node_modules that is a symlink (a git worktree's) lies elsewhere.
  const modules = realpathSync(join(REPOSITORY_ROOT, 'node_modules'));
  const outside = Object.keys(result.metafile.inputs).filter(
    (input) =>
      !input.startsWith(`${SOURCE_DIR}/`) &&
      !input.startsWith('node_modules/') &&
      !resolve(REPOSITORY_ROOT, input).startsWith(`${modules}${sep}`),
  );
  if (outside.length > 0) {
    throw new Error(
      `the bundles take in ${outside.join(', ')}: lib/ship/build/lambda-bundles.ts hashes ${SOURCE_DIR}/ only`,
    );
  }
}

/**
 * A hash of everything a build is made of: the build options, esbuild's version, the functions, every file
 * under functions/ (path and content) and the package and compiler config. A few milliseconds.
 */
function contentKey(functions: FunctionList): string {
  const hash = createHash('sha256');
  const add = (label: string, value: string | Buffer) => hash.update(`${label}\0${value.length}\0`).update(value);
  add('options', JSON.stringify(bundleBuildOptions(functions, '<outdir>')));
  add('esbuild', esbuildVersion);
  add('functions', JSON.stringify(functions));
  const sources = readdirSync(join(REPOSITORY_ROOT, SOURCE_DIR), { recursive: true, encoding: 'utf8' })
    .map((path) => join(SOURCE_DIR, path))
    .filter((path) => statSync(join(REPOSITORY_ROOT, path), { throwIfNoEntry: false })?.isFile())
    .sort();
  for (const path of [...sources, ...CONFIG_FILES]) add(path, readFileSync(join(REPOSITORY_ROOT, path)));
  return hash.digest('hex').slice(0, 16);
}

/** Marks a build as used now (pruning goes by that); false if there is no such build. */
export function markUsed(dir: string): boolean {
  if (!existsSync(dir)) return false;
  const now = new Date();
  try {
    utimesSync(dir, now, now);
    return true;
  } catch {
    // Pruned by another process just now.
    return false;
  }
}

/** Drops builds (and leftovers of interrupted ones) unused for an hour, except the newest few and `current`. */
function prune(current: string): void {
  const cacheDir = dirname(current);
  const entries = readdirSync(cacheDir)
    .map((name) => ({ path: join(cacheDir, name), temporary: name.startsWith('.tmp-') }))
    .filter(({ path }) => path !== current)
    .map((entry) => ({ ...entry, usedAt: statSync(entry.path, { throwIfNoEntry: false })?.mtimeMs ?? Infinity }))
    .sort((a, b) => b.usedAt - a.usedAt);
  const builds = entries.filter((entry) => !entry.temporary);
  const old = (entry: { usedAt: number }) => Date.now() - entry.usedAt > UNUSED_MS;
  for (const entry of [...builds.slice(KEEP_NEWEST - 1), ...entries.filter((entry) => entry.temporary)]) {
    if (old(entry)) rmSync(entry.path, { recursive: true, force: true });
  }
}
