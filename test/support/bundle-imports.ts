/**
 * Imports Lambda bundles in one Node 22 (the devDependency, Lambda's runtime), each after the process's
 * environment and working directory are replaced by its own: what its function's runtime would give it. One
 * process for all, not one per bundle: a bundle carries all of its code, so none can lean on another's
 * (docs/testing.md has the cost of each way).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';

const NODE_22 = join(REPOSITORY_ROOT, 'node_modules', '.bin', 'node');

export interface BundleImport {
  /** Names the bundle in the answer. */
  name: string;
  /** The bundle's `index.mjs`. */
  file: string;
  /** The whole environment it is imported with. */
  environment: Record<string, string>;
  /** Its working directory (Lambda's is the bundle's). */
  cwd: string;
}

const SCRIPT = `
  const failures = {};
  for (const job of JSON.parse(process.argv[1])) {
    for (const name of Object.keys(process.env)) delete process.env[name];
    Object.assign(process.env, job.environment);
    process.chdir(job.cwd);
    try {
      const m = await import(job.url);
      if (typeof m.handler !== 'function') failures[job.name] = 'no handler export';
    } catch (error) {
      failures[job.name] = String(error?.stack ?? error);
    }
  }
  process.stdout.write(JSON.stringify(failures));`;

/** Imports each bundle in turn and checks it exports `handler`; answers the failures by name ({} when none). */
export async function importEachInNode22(jobs: readonly BundleImport[]): Promise<Record<string, string>> {
  // Node evaluates a module once per process: a second import of a file would not see its environment.
  const files = jobs.map(({ file }) => file);
  if (new Set(files).size !== files.length) throw new Error('each bundle file can be imported once per process');
  const list = jobs.map(({ file, ...job }) => ({ ...job, url: pathToFileURL(file).href }));
  const { stdout } = await promisify(execFile)(NODE_22, ['--input-type=module', '-e', SCRIPT, JSON.stringify(list)], {
    cwd: REPOSITORY_ROOT,
    env: {},
    timeout: 170_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Record<string, string>;
}
