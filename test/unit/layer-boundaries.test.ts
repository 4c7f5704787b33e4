/**
 * The layer boundaries of eslint.config.js (docs/architecture.md, "Folders") hold for `import()` as for
 * `import`: the linter itself is asked about a crossing of each kind, and about a permitted import.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';

const eslint = new ESLint({ cwd: REPOSITORY_ROOT });

async function boundaryErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? [])
    .filter((message) => ['no-restricted-imports', 'no-restricted-syntax'].includes(message.ruleId ?? ''))
    .map((message) => message.message);
}

const crossings: [string, string, string][] = [
  ['lib/ship/admin/probe.ts', '../../dev/local/local-stack.js', 'shipping code reaching local code'],
  ['lib/ship/cdk/probe.ts', '../../dev/bench/report.js', 'CDK reaching the bench'],
  ['functions/http/probe.ts', '../adapters/dynamodb/accounts.js', 'a handler reaching an adapter past its wiring'],
  ['functions/core/probe.ts', 'node:fs', 'the core doing I/O'],
  ['functions/core/probe.ts', '../providers/ark/contract.js', 'the core naming a provider'],
  ['functions/providers/ark/probe.ts', '../model-studio/contract.js', 'a provider reaching another'],
  ['functions/catalog.ts', './adapters/wiring/service-dependencies.js', 'the catalog loading code that runs'],
  [
    'lib/ship/console/src/probe.ts',
    '../../../../functions/adapters/runtime/config.js',
    'the console reaching adapters',
  ],
  [
    'lib/dev/simulators/ark/probe.ts',
    '../../../../functions/providers/ark/contract.js',
    'a simulator reading our code',
  ],
];

describe('layer boundaries', () => {
  it.each(crossings)('%s may not import %s (%s): refused as import and as import()', async (file, target) => {
    const imported = await boundaryErrors(file, `import { x } from '${target}';\nexport const y = x;\n`);
    const loaded = await boundaryErrors(file, `export const y = await import('${target}');\n`);
    expect(imported).toHaveLength(1);
    expect(loaded).toEqual([expect.stringContaining('import() crosses a layer boundary')]);
  });

  it('lets a handler load its wiring, and local code load shipping code, either way', async () => {
    const wiring = '../adapters/wiring/service-dependencies.js';
    expect(await boundaryErrors('functions/http/probe.ts', `export const y = await import('${wiring}');\n`)).toEqual(
      [],
    );
    const routes = '../../ship/routes.js';
    expect(
      await boundaryErrors('lib/dev/local/probe.ts', `import { x } from '${routes}';\nexport const y = x;\n`),
    ).toEqual([]);
  });
});
