/**
 * Section 2, cold start: every handler of lib/routes.ts (API_ROUTES, DEFAULT_ROUTE, WORKFLOW_FUNCTIONS,
 * SCHEDULED_FUNCTIONS, the webhook consumer and the task starter) bundled with esbuild the way lib/cdk/service-function.ts
 * has CDK bundle it for Lambda (ESM, platform node, target node22, minified, the AWS SDK inside, the
 * createRequire banner, an external source map), then imported in a fresh Node 22 process, outside the
 * repository and with dummy configuration, ten times: the median import time is the cold start's share
 * that is ours (Lambda adds its runtime's own start). The same again with NODE_OPTIONS=--enable-source-maps,
 * which the deployed functions set (median of fewer runs, to keep the bench short).
 */
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { physicalNames, resourceEnvironment, TASK_STARTS, WEBHOOK_QUEUE } from '../resource-definitions.js';
import { API_ROUTES, DEFAULT_ROUTE, SCHEDULED_FUNCTIONS, WORKFLOW_FUNCTIONS } from '../routes.js';
import { NODE_22 } from './child.js';
import { median } from './stats.js';

const run = promisify(execFile);
const ESM_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

export interface ColdStartRow {
  id: string;
  entry: string;
  bundleBytes: number;
  sourceMapBytes: number;
  /** Median over the runs, in ms: `await import(bundle)` alone. */
  importMs: number;
  /** Median: process start to handler loaded (Node's own start + import). */
  processMs: number;
  /** Median import time with NODE_OPTIONS=--enable-source-maps, as deployed. */
  importWithSourceMapsMs: number;
  /** The three biggest inputs of the bundle (bytes in the output). */
  biggestInputs: { path: string; bytes: number }[];
  error?: string;
}

export interface ColdStartResult {
  runs: number;
  sourceMapRuns: number;
  rows: ColdStartRow[];
}

/** Dummy values for everything a handler reads at load (resource names, endpoints, keys). */
function dummyEnvironment(): Record<string, string> {
  return {
    ...resourceEnvironment(physicalNames('bench')),
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:bench-task-lifecycle',
    ARK_BASE_URL: 'https://ark.example.com',
    ARK_API_KEY: 'bench-ark-key',
    [WEBHOOK_QUEUE.envVar]: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench-webhooks',
    POWERTOOLS_SERVICE_NAME: 'video-generation',
    POWERTOOLS_LOG_LEVEL: 'INFO',
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
    PATH: process.env['PATH'] ?? '',
  };
}

export function handlerEntries(): { id: string; entry: string }[] {
  return [
    ...API_ROUTES.map((route) => ({ id: route.id, entry: route.entry })),
    { id: DEFAULT_ROUTE.id, entry: DEFAULT_ROUTE.entry },
    ...WORKFLOW_FUNCTIONS.map((fn) => ({ id: fn.id, entry: fn.entry })),
    ...SCHEDULED_FUNCTIONS.map((fn) => ({ id: fn.id, entry: fn.entry })),
    { id: WEBHOOK_QUEUE.consumer.id, entry: WEBHOOK_QUEUE.consumer.entry },
    { id: TASK_STARTS.starter.id, entry: TASK_STARTS.starter.entry },
  ];
}

const PROBE =
  'const t0 = performance.now(); const m = await import(process.argv[1]); const t1 = performance.now();' +
  "if (typeof m.handler !== 'function') { console.error('no handler export'); process.exit(3); }" +
  'console.log(JSON.stringify({ importMs: t1 - t0, processMs: t1 }));';

export async function runColdStart(log: (line: string) => void): Promise<ColdStartResult> {
  const runs = Number(process.env['BENCH_COLD_RUNS'] ?? 10);
  const sourceMapRuns = Number(process.env['BENCH_COLD_SOURCEMAP_RUNS'] ?? 5);
  const outRoot = mkdtempSync(join(tmpdir(), 'vgs-bench-bundles-'));
  const env = dummyEnvironment();
  const rows: ColdStartRow[] = [];
  try {
    for (const { id, entry } of handlerEntries()) {
      const dir = join(outRoot, id);
      const outfile = join(dir, 'index.mjs');
      const result = await build({
        entryPoints: [join(REPOSITORY_ROOT, entry)],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node22',
        mainFields: ['module', 'main'],
        banner: { js: ESM_REQUIRE_BANNER },
        minify: true,
        sourcemap: true,
        sourcesContent: false,
        metafile: true,
        logLevel: 'silent',
      });
      const inputs = Object.entries(
        result.metafile.outputs[Object.keys(result.metafile.outputs).find((o) => o.endsWith('.mjs'))!]!.inputs,
      )
        .map(([path, info]) => ({ path: packageOf(path), bytes: info.bytesInOutput }))
        .reduce<Map<string, number>>(
          (byPackage, input) => byPackage.set(input.path, (byPackage.get(input.path) ?? 0) + input.bytes),
          new Map(),
        );
      const biggestInputs = [...inputs.entries()]
        .map(([path, bytes]) => ({ path, bytes }))
        .sort((a, b) => b.bytes - a.bytes)
        .slice(0, 3);
      const row: ColdStartRow = {
        id,
        entry,
        bundleBytes: statSync(outfile).size,
        sourceMapBytes: statSync(`${outfile}.map`).size,
        importMs: Number.NaN,
        processMs: Number.NaN,
        importWithSourceMapsMs: Number.NaN,
        biggestInputs,
      };
      try {
        const plain = await importTimes(outfile, dir, env, runs);
        const mapped = await importTimes(outfile, dir, { ...env, NODE_OPTIONS: '--enable-source-maps' }, sourceMapRuns);
        row.importMs = median(plain.map((sample) => sample.importMs));
        row.processMs = median(plain.map((sample) => sample.processMs));
        row.importWithSourceMapsMs = median(mapped.map((sample) => sample.importMs));
      } catch (error) {
        row.error = String((error as { stderr?: string }).stderr || error).slice(0, 400);
      }
      rows.push(row);
      log(
        `${id.padEnd(16)} ${(row.bundleBytes / 1024).toFixed(0).padStart(5)} KiB  import ${row.importMs.toFixed(0)} ms` +
          ` (with source maps ${row.importWithSourceMapsMs.toFixed(0)} ms)${row.error ? `  ERROR ${row.error}` : ''}`,
      );
    }
  } finally {
    rmSync(outRoot, { recursive: true, force: true });
  }
  return { runs, sourceMapRuns, rows };
}

async function importTimes(file: string, cwd: string, env: Record<string, string>, runs: number) {
  const samples: { importMs: number; processMs: number }[] = [];
  for (let i = 0; i < runs; i += 1) {
    const { stdout } = await run(NODE_22, ['--input-type=module', '-e', PROBE, pathToFileURL(file).href], {
      cwd,
      env,
      timeout: 30_000,
    });
    samples.push(JSON.parse(stdout.trim().split('\n').pop()!) as { importMs: number; processMs: number });
  }
  return samples;
}

/** `node_modules/@aws-sdk/client-s3/dist-es/x.js` → `@aws-sdk/client-s3`; our files → `(our code)`. */
function packageOf(path: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return match?.[1] ?? '(our code)';
}
