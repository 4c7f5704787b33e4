/**
 * `npm run bench`: benchmarks and failure evidence anyone can rerun (issue 6). Starts what it measures
 * itself (the local stack in child processes), prints progress, and writes test/bench/RESULTS.md (and the
 * raw numbers in test/bench/results.json). Not part of `npm test`; about 4.5 minutes on 2 cores.
 *
 *   npm run bench                         every section, writes the report
 *   npm run bench -- --only=api,cost      some sections (api, cold, transfer, cost, tasks); prints the report only
 *   npm run bench -- --render             no measuring: rewrites RESULTS.md from results.json (after a report change)
 *
 * Knobs (environment): BENCH_API_SECONDS (4), BENCH_COLD_RUNS (10),
 * BENCH_COLD_SOURCEMAP_RUNS (5), BENCH_TRANSFER_MIB (100,500,1024), BENCH_COST_MINUTES (1,5,30),
 * BENCH_COST_VIDEO_MIB (5), BENCH_TASKS (1000), BENCH_TASKS_DEADLINE_SECONDS (180). See test/bench/README.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { runApiOverhead } from '../lib/bench/api-overhead.js';
import { runColdStart } from '../lib/bench/cold-start.js';
import { runLifecycleCost } from '../lib/bench/lifecycle-cost.js';
import { machineInfo } from '../lib/bench/machine.js';
import { renderReport } from '../lib/bench/report.js';
import type { BenchResults } from '../lib/bench/report.js';
import { runTaskThroughput } from '../lib/bench/task-throughput.js';
import { runTransfer } from '../lib/bench/transfer.js';
import { REPOSITORY_ROOT } from '../lib/repository-root.js';

const SECTIONS = ['api', 'cold', 'transfer', 'cost', 'tasks'] as const;
type Section = (typeof SECTIONS)[number];

const { values } = parseArgs({ options: { only: { type: 'string' }, render: { type: 'boolean', default: false } } });
const reportFile = join(REPOSITORY_ROOT, 'test', 'bench', 'RESULTS.md');
const rawFile = join(REPOSITORY_ROOT, 'test', 'bench', 'results.json');
if (values.render) {
  const saved = JSON.parse(readFileSync(rawFile, 'utf8')) as BenchResults;
  writeFileSync(reportFile, await renderReport(saved, reportFile));
  console.log('rewrote test/bench/RESULTS.md from test/bench/results.json');
  process.exit(0);
}
const selected = (values.only?.split(',').map((name) => name.trim()) ?? [...SECTIONS]) as Section[];
const unknown = selected.filter((name) => !SECTIONS.includes(name));
if (unknown.length > 0) {
  console.error(`unknown section(s): ${unknown.join(', ')}; choose from ${SECTIONS.join(', ')}`);
  process.exit(2);
}
const full = SECTIONS.every((name) => selected.includes(name));

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s`;
const logger = (section: string) => (line: string) => console.log(`[${elapsed()}] ${section.padEnd(8)} ${line}`);

const results: BenchResults = { machine: machineInfo(), loadAtEnd: [], durationSeconds: 0, errors: {} };
console.log(
  `bench: ${selected.join(', ')} on ${results.machine.cores} cores (${results.machine.cpuModel}), ` +
    `load ${results.machine.loadAverage.map((l) => l.toFixed(2)).join(' ')}, commit ${results.machine.commit.slice(0, 12)}`,
);

async function section<T>(name: Section, title: string, run: (log: (line: string) => void) => Promise<T>) {
  if (!selected.includes(name)) return undefined;
  const log = logger(name);
  log(`— ${title}`);
  try {
    return await run(log);
  } catch (error) {
    results.errors[name] = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`FAILED: ${results.errors[name]}`);
    return undefined;
  }
}

results.api = await section('api', '1. API overhead (ours vs a bare node:http baseline)', runApiOverhead);
results.cold = await section('cold', '2. Cold start (bundle size, import time)', runColdStart);
results.transfer = await section('transfer', '3. Transfer (throughput, peak RSS)', runTransfer);
results.cost = await section('cost', '4. Lifecycle cost model', runLifecycleCost);
results.throughput = await section('tasks', '5. Throughput of whole tasks', runTaskThroughput);
results.loadAtEnd = loadavg();
results.commitAtEnd = machineInfo().commit;
results.durationSeconds = (Date.now() - started) / 1000;

const report = await renderReport(results, reportFile);
if (full) {
  writeFileSync(reportFile, report);
  const raw = await format(JSON.stringify(results), { ...((await resolveConfig(rawFile)) ?? {}), filepath: rawFile });
  writeFileSync(rawFile, raw);
  console.log(`\n[${elapsed()}] wrote test/bench/RESULTS.md and test/bench/results.json`);
} else {
  console.log(`\n${report}`);
  console.log(`[${elapsed()}] partial run (--only): test/bench/RESULTS.md left as it was`);
}
process.exit(Object.keys(results.errors).length > 0 ? 1 : 0);
