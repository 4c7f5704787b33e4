/**
 * lib/ship/console/build.ts: the SPA builds with Vite into a directory keyed by its sources' hash; a second call finds
 * it and does not build again; two processes building at once leave one complete directory and no temporary ones.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, consoleSourceFiles, consoleSourceHash, runtimeImports } from '../../lib/ship/console/build.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILD_MODULE = fileURLToPath(new URL('../../lib/ship/console/build.ts', import.meta.url));

describe('buildConsole', () => {
  let cacheRoot: string;
  let dir: string;

  /** Earlier builds (oldest first) and a temporary directory a killed build left two hours ago. */
  const earlier = Array.from({ length: 6 }, (_, i) => String(i).repeat(64));
  const leftover = `${'f'.repeat(64)}.tmp-1234-abcd`;

  beforeAll(async () => {
    cacheRoot = await mkdtemp(path.join(tmpdir(), 'console-build-'));
    const now = Date.now() / 1000;
    for (const [i, name] of [...earlier, leftover].entries()) {
      await mkdir(path.join(cacheRoot, name));
      await writeFile(path.join(cacheRoot, name, 'index.html'), '<!doctype html>');
      const age = name === leftover ? 7200 : 600 - i * 60;
      await utimes(path.join(cacheRoot, name), now - age, now - age);
    }
    dir = await buildConsole({ outDir: cacheRoot });
  });

  afterAll(async () => {
    await rm(cacheRoot, { recursive: true, force: true });
  });

  it('builds into <cache root>/<sha256 of the sources>', async () => {
    expect(path.isAbsolute(dir)).toBe(true);
    expect(dir).toBe(path.join(cacheRoot, await consoleSourceHash()));
    expect(path.basename(dir)).toMatch(/^[0-9a-f]{64}$/);
    // Nothing half-written is left beside it.
    expect((await readdir(cacheRoot)).filter((name) => name.includes('.tmp-'))).toEqual([]);
  });

  it('keeps the newest earlier builds and removes the rest and stale temporary directories', async () => {
    const left = (await readdir(cacheRoot)).filter((name) => name !== '.vite').sort();
    expect(left).toEqual([...earlier.slice(2), path.basename(dir)].sort());
  });

  it('writes an index.html whose script is an existing JS asset, with relative URLs', async () => {
    const html = await readFile(path.join(dir, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script[^>]+src="([^"]+)"/g)].map((match) => match[1] as string);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src).toMatch(/^\.\/assets\/.+\.js$/);
      expect(existsSync(path.join(dir, src))).toBe(true);
    }
    expect(html).not.toContain('/src/main.tsx');
  });

  it('ships no secrets, no process.env, no Node built-ins and no local paths', async () => {
    const assets = await readdir(path.join(dir, 'assets'));
    const js = assets.filter((name) => name.endsWith('.js'));
    expect(js.length).toBeGreaterThan(0);
    for (const name of assets) {
      const text = await readFile(path.join(dir, 'assets', name), 'utf8');
      expect(text).not.toContain('process.env');
      // A built-in is imported by its specifier, a string (`{node:x}` is only an object's key).
      expect(text).not.toMatch(/["'`]node:[a-z]/);
      expect(text).not.toContain(REPO_ROOT);
      expect(text).not.toMatch(/AKIA[0-9A-Z]{16}/);
      expect(text).not.toMatch(/\bbc_[A-Za-z0-9_-]{16,}/);
      expect(text).not.toMatch(/whsec_[A-Za-z0-9+/=]{16,}/);
      expect(text).not.toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----/);
    }
  });

  it('a second call returns the same directory without building again', async () => {
    const html = path.join(dir, 'index.html');
    const before = (await stat(html)).mtimeMs;
    const assetsBefore = await readdir(path.join(dir, 'assets'));
    await expect(buildConsole({ outDir: cacheRoot })).resolves.toBe(dir);
    expect((await stat(html)).mtimeMs).toBe(before);
    expect(await readdir(path.join(dir, 'assets'))).toEqual(assetsBefore);
  });

  it('two processes building at once leave one complete directory', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'console-race-'));
    try {
      const script = path.join(root, 'build-once.mts');
      await writeFile(
        script,
        `import { buildConsole } from ${JSON.stringify(BUILD_MODULE)};\n` +
          `process.stdout.write(await buildConsole({ outDir: ${JSON.stringify(path.join(root, 'cache'))} }));\n`,
      );
      const tsx = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
      const run = () => promisify(execFile)(tsx, [script], { cwd: REPO_ROOT });
      const [first, second] = await Promise.all([run(), run()]);
      expect(first.stdout).toBe(second.stdout);
      expect(existsSync(path.join(first.stdout, 'index.html'))).toBe(true);
      expect(await readdir(path.join(root, 'cache'))).toEqual([path.basename(first.stdout)]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('the cache key', () => {
  it('covers the service code the console imports at run time (the pricing), not type-only imports', async () => {
    const files = (await consoleSourceFiles()).map((file) => path.relative(REPO_ROOT, file).split(path.sep).join('/'));
    expect(files).toContain('lib/ship/console/index.html');
    expect(files).toContain('functions/core/pricing.ts');
    expect(files).toContain('functions/core/decimal.ts');
    expect(files).not.toContain('functions/core/use-cases/list-models.ts');
  });

  it('reads value imports and re-exports, skipping `import type`', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import './c.css';",
      "export { d } from '../d.js';",
      'import {\n  e,\n  f,\n} from "./ef.js";',
      "import { g } from 'preact';",
    ].join('\n');
    expect(runtimeImports(source)).toEqual(['./a.js', './c.css', '../d.js', './ef.js']);
  });
});
