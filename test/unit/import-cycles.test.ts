/**
 * No import circles in functions/, lib/ or bin/ (type-only imports included). A test, not an ESLint
 * plugin: the plugins' resolvers need native packages the registry here does not serve for every platform.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports and re-exports of a file, resolved to .ts files. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s+'(\.{1,2}\/[^']+)'/g)]
    .map((match) => resolve(dirname(file), (match[1] as string).replace(/\.js$/, '.ts')))
    .filter((path) => existsSync(path));
}

function cyclesIn(files: string[]): string[][] {
  const graph = new Map(files.map((file) => [file, importsOf(file)]));
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push(path.slice(path.indexOf(next)).concat(next));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return cycles.map((cycle) => cycle.map((file) => relative(REPOSITORY_ROOT, file)));
}

it('finds a circle when there is one (the check itself works)', () => {
  const dir = join(REPOSITORY_ROOT, 'test/unit/fixtures/import-cycle');
  expect(cyclesIn(sources(dir))).toHaveLength(1);
});

it('functions/, lib/ and bin/ import in no circle', () => {
  const files = ['functions', 'lib', 'bin'].flatMap((dir) => sources(join(REPOSITORY_ROOT, dir)));
  expect(files.length).toBeGreaterThan(100);
  expect(cyclesIn(files)).toEqual([]);
});
