/**
 * Section 1, cold start: every handler of lib/ship/routes.ts bundled with the esbuild options CDK ships
 * (lib/ship/build/lambda-bundle-options.ts), then imported in fresh Node 22 processes outside the repository with dummy
 * configuration: the median import time is the part of a Lambda cold start that is ours.
 */
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { physicalNames } from '../../../functions/adapters/runtime/resources.js';
import { everyProviderAt, localHandlerEnvironment } from '../../ship/sam-local/handler-environment.js';
import { LAMBDA_ESBUILD_OPTIONS } from '../../ship/build/lambda-bundle-options.js';
import { REPOSITORY_ROOT } from '../../ship/repository-root.js';
import { ALL_FUNCTIONS } from '../../ship/routes.js';
import { chart, check, fixed, NODE_22, table } from './report.js';
import type { Section } from './report.js';
import { env, median } from './task-client.js';

const [BUNDLE_KIB, IMPORT_MS] = [500, 150];
// Wall time, and CPU time (user + system): the gap is other work on this machine's cores.
const PROBE =
  'const t = performance.now(), c = process.cpuUsage(); const m = await import(process.argv[1]);' +
  "if (typeof m.handler !== 'function') throw new Error('no handler export');" +
  'const { user, system } = process.cpuUsage(c); console.log(performance.now() - t, (user + system) / 1000);';

export async function runColdStart(log: (line: string) => void): Promise<Section> {
  const runs = env('BENCH_COLD_RUNS', 10);
  // Every variable CDK sets, every provider's included; the endpoints are placeholders nothing calls at import.
  const nowhere = 'https://bench.example.com';
  const environment = {
    ...localHandlerEnvironment(physicalNames('bench'), {
      ...{ dynamodb: nowhere, s3AndSqs: nowhere, sfn: nowhere, webhookQueueUrl: nowhere },
      upstreams: everyProviderAt(nowhere, 'bench'),
      stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:bench',
    }),
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
  };
  const dir = mkdtempSync(join(tmpdir(), 'vgs-bench-bundles-'));
  const rows: { id: string; bytes: number; kib: number; importMs: number; cpuMs: number; error?: string }[] = [];
  try {
    for (const { id, entry } of ALL_FUNCTIONS) {
      const outfile = join(dir, id, 'index.mjs');
      const entryPoints = [join(REPOSITORY_ROOT, entry)];
      await build({ ...LAMBDA_ESBUILD_OPTIONS, entryPoints, outfile, bundle: true, logLevel: 'silent' });
      const bytes = statSync(outfile).size;
      const kib = Math.round(bytes / 1024);
      const samples: number[][] = [];
      try {
        for (let i = 0; i < runs; i += 1) {
          const options = { cwd: dir, env: environment, timeout: 30_000 };
          const { stdout } = await promisify(execFile)(NODE_22, ['--input-type=module', '-e', PROBE, outfile], options);
          samples.push(stdout.trim().split('\n').pop()!.split(' ').map(Number));
        }
      } catch (error) {
        // A handler that cannot load is a finding, not the end of the section.
        const message = String((error as { stderr?: string }).stderr || error);
        rows.push({ id, bytes, kib, importMs: 0, cpuMs: 0, error: message.match(/^\w*Error.*$/m)?.[0] ?? message });
        log(`${id.padEnd(16)} import FAILED: ${rows.at(-1)!.error}`);
        continue;
      }
      const [importMs, cpuMs] = [0, 1].map((i) => median(samples.map((sample) => sample[i]!))) as [number, number];
      rows.push({ id, bytes, kib, importMs, cpuMs });
      const cpu = `(CPU ${fixed(cpuMs, 0)} ms)`;
      log(`${id.padEnd(16)} ${String(kib).padStart(4)} KiB, import ${fixed(importMs, 0)} ms ${cpu}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const big = rows.reduce((a, b) => (b.kib > a.kib ? b : a));
  const slow = rows.reduce((a, b) => (b.importMs > a.importMs ? b : a));
  const failed = rows.filter((row) => row.error).map((row) => row.id);
  const time = `${fixed(slow.importMs, 0)} ms (${slow.id})${failed.length ? `; failed: ${failed.join(', ')}` : ''}`;
  const checks = [
    check('Largest bundle', `${big.kib} KiB (${big.id})`, `≤ ${BUNDLE_KIB} KiB each`, big.kib <= BUNDLE_KIB),
    check('Slowest import (median)', time, `≤ ${IMPORT_MS} ms each`, slow.importMs <= IMPORT_MS && !failed.length),
  ];
  const bundles = table(rows, {
    Handler: (r) => r.id,
    'Bundle (KiB)': (r) => r.kib,
    'Import (ms)': (r) => (r.error ? `failed: ${r.error}` : fixed(r.importMs, 0)),
    'Import CPU time (ms)': (r) => fixed(r.cpuMs, 0),
  });
  const [ids, kib, target] = [rows.map((r) => r.id), rows.map((r) => r.bytes / 1024), rows.map(() => BUNDLE_KIB)];
  const sizes = chart(`Bundle size (KiB); line: the ${BUNDLE_KIB} KiB target`, 'KiB', ids, kib, target, true);
  return { checks, blocks: [bundles, sizes] };
}
