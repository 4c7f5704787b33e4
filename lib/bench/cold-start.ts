/**
 * Section 1, cold start: every handler of lib/routes.ts bundled with the esbuild options CDK ships
 * (lib/lambda-bundle-options.ts), then imported in fresh Node 22 processes outside the repository with dummy
 * configuration: the median import time is the part of a Lambda cold start that is ours.
 */
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { physicalNames, resourceEnvironment, WEBHOOK_QUEUE } from '../../functions/adapters/resources.js';
import { LAMBDA_ESBUILD_OPTIONS } from '../lambda-bundle-options.js';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { ALL_FUNCTIONS } from '../routes.js';
import { NODE_22 } from './child.js';

export interface ColdStartRow {
  id: string;
  bundleBytes: number;
  /** Medians of the runs, of `await import(bundle)` alone: wall time, and the CPU time it took. */
  importMs: number;
  importCpuMs: number;
  /** Why the bundle could not be imported (the import figures are then 0). */
  error?: string;
}

const run = promisify(execFile);
// Wall time, and CPU time (user + system): the gap is other work on this machine's cores.
const PROBE =
  'const t = performance.now(), c = process.cpuUsage(); const m = await import(process.argv[1]);' +
  "if (typeof m.handler !== 'function') throw new Error('no handler export');" +
  'const { user, system } = process.cpuUsage(c); console.log(performance.now() - t, (user + system) / 1000);';

export async function runColdStart(log: (line: string) => void): Promise<ColdStartRow[]> {
  const runs = Number(process.env['BENCH_COLD_RUNS'] ?? 10);
  const names = physicalNames('bench');
  const env = {
    ...resourceEnvironment(names),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:bench',
    ARK_BASE_URL: 'https://ark.example.com',
    ARK_API_KEY: 'bench',
    [WEBHOOK_QUEUE.envVar]: `https://sqs.us-east-1.amazonaws.com/000000000000/${names.webhookQueue}`,
    POWERTOOLS_SERVICE_NAME: 'video-generation',
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
  };
  const dir = mkdtempSync(join(tmpdir(), 'vgs-bench-bundles-'));
  const rows: ColdStartRow[] = [];
  try {
    for (const { id, entry } of ALL_FUNCTIONS) {
      const outfile = join(dir, id, 'index.mjs');
      const options = {
        entryPoints: [join(REPOSITORY_ROOT, entry)],
        outfile,
        bundle: true,
        logLevel: 'silent' as const,
      };
      await build({ ...LAMBDA_ESBUILD_OPTIONS, ...options });
      const bundleBytes = statSync(outfile).size;
      const samples: number[][] = [];
      try {
        for (let i = 0; i < runs; i += 1) {
          const options = { cwd: dir, env, timeout: 30_000 };
          const { stdout } = await run(NODE_22, ['--input-type=module', '-e', PROBE, outfile], options);
          samples.push(stdout.trim().split('\n').pop()!.split(' ').map(Number));
        }
      } catch (error) {
        // A handler that cannot load is a finding, not the end of the section.
        const message = String((error as { stderr?: string }).stderr || error);
        const reason = message.match(/^\w*Error.*$/m)?.[0] ?? message;
        rows.push({ id, bundleBytes, importMs: 0, importCpuMs: 0, error: reason });
        log(`${id.padEnd(16)} import FAILED: ${rows.at(-1)!.error}`);
        continue;
      }
      const median = (index: number) => samples.map((sample) => sample[index]!).sort((a, b) => a - b)[(runs - 1) >> 1]!;
      const row = { id, bundleBytes, importMs: median(0), importCpuMs: median(1) };
      rows.push(row);
      const kib = (row.bundleBytes / 1024).toFixed(0).padStart(4);
      log(`${id.padEnd(16)} ${kib} KiB, import ${row.importMs.toFixed(0)} ms (CPU ${row.importCpuMs.toFixed(0)} ms)`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
