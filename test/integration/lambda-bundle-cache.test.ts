/**
 * The local stack's bundle cache (lib/ship/build/lambda-bundles.ts) with two processes building into one empty
 * cache at once, as two test workers do after a change: both get the same complete build, nothing half-made
 * is ever seen or left behind, and the next call builds nothing.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import type { LambdaBundles } from '../../lib/ship/build/lambda-bundles.js';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';
import { ALL_FUNCTIONS } from '../../lib/ship/routes.js';

const run = promisify(execFile);
const NODE_22 = join(REPOSITORY_ROOT, 'node_modules', '.bin', 'node');
const cacheDir = mkdtempSync(join(tmpdir(), 'vgs-bundle-cache-'));

afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

/** Two functions: the protocol is the same for every count, and building all of them twice took a minute. */
const FUNCTIONS = ALL_FUNCTIONS.filter(({ id }) => id === 'Health' || id === 'GetBalance');

/** lambdaBundles(cacheDir, FUNCTIONS) in a process of its own. */
async function bundlesInNewProcess(): Promise<LambdaBundles> {
  const module = JSON.stringify(pathToFileURL(join(REPOSITORY_ROOT, 'lib', 'ship', 'build', 'lambda-bundles.ts')).href);
  const script = `const { lambdaBundles } = await import(${module}); console.log(JSON.stringify(await lambdaBundles(process.argv[1], JSON.parse(process.argv[2]))));`;
  const { stdout } = await run(
    NODE_22,
    ['--import', 'tsx', '--input-type=module', '-e', script, cacheDir, JSON.stringify(FUNCTIONS)],
    {
      cwd: REPOSITORY_ROOT,
      timeout: 240_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as LambdaBundles;
}

it('two processes building at once both end with the one complete build; the next finds it', async () => {
  const [first, second] = await Promise.all([bundlesInNewProcess(), bundlesInNewProcess()]);
  expect(first.dir).toBe(second.dir);
  expect(first.built || second.built).toBe(true);
  expect(readdirSync(cacheDir)).toEqual([first.dir.slice(cacheDir.length + 1)]);
  expect(FUNCTIONS).toHaveLength(2);
  expect(Object.keys(first.files)).toEqual(FUNCTIONS.map(({ entry }) => entry));
  for (const { entry } of FUNCTIONS) {
    const file = first.files[entry] as string;
    expect(readFileSync(file, 'utf8').startsWith("import { createRequire } from 'module';"), entry).toBe(true);
    expect(existsSync(`${file}.map`), entry).toBe(true);
  }

  const third = await bundlesInNewProcess();
  expect(third).toMatchObject({ dir: first.dir, built: false });
}, 300_000);

it('a build says so when it starts and when it ends; a cached one says nothing', async () => {
  const own = mkdtempSync(join(tmpdir(), 'vgs-bundle-progress-'));
  const four = ALL_FUNCTIONS.filter(({ id }) => ['Health', 'GetBalance', 'GetOpenApi', 'GetDocs'].includes(id));
  const { lambdaBundles } = await import('../../lib/ship/build/lambda-bundles.js');
  try {
    const lines: string[] = [];
    expect((await lambdaBundles(own, four, (line) => lines.push(line))).built).toBe(true);
    expect(lines.map((line) => line.replace(/\(\d+ s\)/, '(n s)'))).toEqual([
      'Building the 4 Lambda bundles (the first start, or the sources changed; cached after)…',
      '  all 4 bundles built (n s)',
    ]);
    const again: string[] = [];
    expect((await lambdaBundles(own, four, (line) => again.push(line))).built).toBe(false);
    expect(again).toEqual([]);
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
}, 300_000);
