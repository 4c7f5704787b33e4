/**
 * CDK app code is synchronous and the builds it needs (the Lambda bundles, the console) are not: each runs
 * in a child Node with tsx, awaiting one export of a module of this repository, and its JSON answer is read
 * back. The child's output goes to stderr: a CDK app's stdout is the CLI's.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPOSITORY_ROOT } from '../repository-root.js';

/** `await (await import(module))[name]()`, in a child process: its JSON result. */
export function awaitInChild<T>(module: string, name: string): T {
  const work = mkdtempSync(join(tmpdir(), 'vgs-cdk-build-'));
  const result = join(work, 'result.json');
  try {
    const script = [
      "import { writeFileSync } from 'node:fs';",
      `const module = await import(${JSON.stringify(pathToFileURL(module).href)});`,
      `writeFileSync(process.env.CDK_BUILD_RESULT, JSON.stringify(await module[${JSON.stringify(name)}]()));`,
    ].join('\n');
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
      cwd: REPOSITORY_ROOT,
      env: { ...process.env, CDK_BUILD_RESULT: result },
      stdio: ['ignore', 2, 2],
    });
    return JSON.parse(readFileSync(result, 'utf8')) as T;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
