/**
 * Every command a person runs answers `--help` with its usage and exit code 0, and an unknown option with the
 * usage and exit code 2, never a stack trace. No stack needed: `--help` is answered before anything starts.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';

const run = promisify(execFile);
const NODE_22 = join(REPOSITORY_ROOT, 'node_modules', '.bin', 'node');

/** The script as its npm script runs it (tsx), with these arguments: exit code and output. */
async function command(script: string, args: string[]) {
  try {
    const { stdout, stderr } = await run(NODE_22, ['--import', 'tsx', join('bin', script), ...args], {
      cwd: REPOSITORY_ROOT,
      timeout: 120_000,
      env: { ...process.env, NODE_OPTIONS: '--disable-warning=ExperimentalWarning' },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

it.each([
  ['npm run bench', 'bench.ts', /^usage: npm run bench/m],
  ['npm run admin', 'admin.ts', /usage/i],
  ['npm run sam:env', 'sam-env.ts', /^usage: npm run --silent sam:env/m],
  ['npm start', 'local.ts', /^usage: npm start/m],
])('%s -- --help: usage, exit 0', async (_name, script, usage) => {
  const { code, output } = await command(script, ['--help']);
  expect(output).toMatch(usage);
  expect(output).not.toMatch(/\n\s+at /);
  expect(code).toBe(0);
});

it.each([
  ['npm run bench', 'bench.ts'],
  ['npm run sam:env', 'sam-env.ts'],
  ['npm start', 'local.ts'],
])('%s with an unknown option: the usage, exit 2, no stack trace', async (_name, script) => {
  const { code, output } = await command(script, ['--no-such-option']);
  expect(output).toMatch(/usage/);
  expect(output).not.toMatch(/\n\s+at /);
  expect(code).toBe(2);
});
