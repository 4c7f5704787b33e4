/**
 * docs/architecture.md and the README's layout name only real paths: a recipe whose file moved, or a folder
 * the layout still lists after it went, fails here. A `<name>` in a path stands for any one name.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';

const TOP_LEVEL = new Set(readdirSync(REPOSITORY_ROOT).filter((name) => name !== 'node_modules'));

/** Whether a repository path exists; `<…>` parts match any name (a part may mix them with text). */
function exists(path: string, base = REPOSITORY_ROOT): boolean {
  const [head, ...rest] = path.replace(/\/$/, '').split('/');
  if (head === undefined || head === '') return existsSync(base);
  if (!head.includes('<')) return exists(rest.join('/'), join(base, head)) && existsSync(join(base, head));
  const pattern = new RegExp(
    `^${head
      .split(/<[^>]+>/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.+')}$`,
  );
  if (!existsSync(base)) return false;
  return readdirSync(base).some((name) => pattern.test(name) && exists(rest.join('/'), join(base, name)));
}

/** The backticked repository paths of a Markdown text: those that start with a top-level entry. */
function repositoryPaths(markdown: string): string[] {
  return [...markdown.matchAll(/`([^`\s]+)`/g)]
    .map((match) => match[1]!)
    .filter((token) => /^[\w.<>-]+(\/[\w.<>-]*)*$/.test(token) && TOP_LEVEL.has(token.split('/')[0]!));
}

describe('docs/architecture.md', () => {
  const page = readFileSync(join(REPOSITORY_ROOT, 'docs', 'architecture.md'), 'utf8');

  it('names real paths only, every recipe file among them', () => {
    const paths = repositoryPaths(page);
    expect(paths.length).toBeGreaterThan(60);
    expect(paths.filter((path) => !exists(path))).toEqual([]);
  });

  it('has the four recipes, each with its files', () => {
    for (const recipe of ['Add a route', 'Add a workflow step', 'Add a provider', 'Add a console page']) {
      const section = page.split(`### ${recipe}\n`)[1]?.split('\n### ')[0] ?? '';
      expect(repositoryPaths(section).length, recipe).toBeGreaterThanOrEqual(4);
    }
  });

  it("maps every folder of functions/, functions/adapters/, lib/ and lib/'s two parts", () => {
    const folders = ['functions', 'lib'].flatMap((top) =>
      readdirSync(join(REPOSITORY_ROOT, top), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .flatMap((entry) => [
          `${top}/${entry.name}/`,
          ...readdirSync(join(REPOSITORY_ROOT, top, entry.name), { withFileTypes: true })
            .filter((child) => child.isDirectory() && (top === 'lib' || entry.name === 'adapters'))
            .map((child) => `${top}/${entry.name}/${child.name}/`),
        ]),
    );
    expect(folders.filter((folder) => !page.includes(`\`${folder}\``))).toEqual([]);
  });

  it('links only to pages that exist', () => {
    const links = [...page.matchAll(/\]\(([^)#\s]+)/g)].map((match) => match[1]!).filter((l) => !/^[a-z]+:/.test(l));
    expect(links.filter((link) => !existsSync(join(REPOSITORY_ROOT, 'docs', link)))).toEqual([]);
  });
});

describe("the README's layout", () => {
  const readme = readFileSync(join(REPOSITORY_ROOT, 'README.md'), 'utf8');
  const block = readme.split('## Layout\n')[1]?.split('```')[1] ?? '';

  it('names only real paths: each entry, and each folder or file its line names', () => {
    const named: string[] = [];
    let top = '';
    let entry = '';
    for (const line of block.split('\n').filter((l) => l.trim())) {
      const head = /^( {0,2})(\S+)/.exec(line);
      if (head && line.length - line.trimStart().length <= 2) {
        entry = head[1] ? `${top}${head[2]}` : head[2]!;
        if (!head[1]) top = entry;
        named.push(entry);
      }
      const rest = head && line.length - line.trimStart().length <= 2 ? line.slice(head[0].length) : line;
      const base = entry.endsWith('/') ? entry : `${dirname(entry)}/`;
      for (const [, token] of rest.matchAll(
        /(?:^|[\s(])([\w.-]+(?:\/[\w.-]+)*(?:\/|\.(?:ts|json|md)))(?=[\s,;)]|$)/g,
      )) {
        named.push(`${base}${token}`);
      }
    }
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter((path) => !existsSync(join(REPOSITORY_ROOT, path)))).toEqual([]);
  });
});
