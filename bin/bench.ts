/**
 * `npm run bench`: cold start, transfer memory, the lifecycle cost model, 1,000 whole tasks, upstream capacity,
 * a sustained refusal and completion latency, measured on this machine with progress lines; writes
 * lib/dev/bench/RESULTS.md and results.json (how to read them, the knobs: lib/dev/bench/README.md). `--only=cold,cost`
 * runs some sections (`--merge`: into the files); `--render` rewrites RESULTS.md from results.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { BenchResults, Section, SectionName } from '../lib/dev/bench/report.js';
import { REPOSITORY_ROOT } from '../lib/ship/repository-root.js';
import { commandOptions } from '../lib/ship/command-line.js';

type Run = (log: (line: string) => void) => Promise<Section>;

// Each section (and the report, which loads Prettier) is imported when it runs: `--help` and a mistyped
// option answer at once.
const SECTIONS: Record<SectionName, Run> = {
  cold: async (log) => (await import('../lib/dev/bench/cold-start.js')).runColdStart(log),
  transfer: async (log) => (await import('../lib/dev/bench/transfer.js')).runTransfer(log),
  cost: async (log) => (await import('../lib/dev/bench/lifecycle-cost.js')).runLifecycleCost(log),
  tasks: async (log) => (await import('../lib/dev/bench/task-throughput.js')).runTaskThroughput(log),
  capacity: async (log) => (await import('../lib/dev/bench/capacity.js')).runCapacity(log),
  submits: async (log) => (await import('../lib/dev/bench/submit-burst.js')).runSubmitBurst(log),
  refusal: async (log) => (await import('../lib/dev/bench/refusal.js')).runRefusal(log),
  completion: async (log) => (await import('../lib/dev/bench/completion.js')).runCompletion(log),
};

const USAGE = `usage: npm run bench -- [--only=SECTIONS] [--render] [--help]
  --only=a,b  run some sections and leave RESULTS.md and results.json alone; sections: ${Object.keys(SECTIONS).join(', ')}
  --merge     with --only: put those sections into results.json (the others kept) and rewrite RESULTS.md
  --render    rewrite lib/dev/bench/RESULTS.md from lib/dev/bench/results.json, measuring nothing
  --help      this text
All sections take about 35 minutes on 2 cores (the refusal alone 15 to 25); the knobs (environment variables) are in lib/dev/bench/README.md.`;

const values = commandOptions(USAGE, {
  only: { type: 'string' },
  render: { type: 'boolean', default: false },
  merge: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' },
});
const { machineInfo, renderReport, verdict } = await import('../lib/dev/bench/report.js');
const reportFile = join(REPOSITORY_ROOT, 'lib', 'dev', 'bench', 'RESULTS.md');
const rawFile = join(REPOSITORY_ROOT, 'lib', 'dev', 'bench', 'results.json');
if (values.render) {
  writeFileSync(reportFile, await renderReport(JSON.parse(readFileSync(rawFile, 'utf8')) as BenchResults, reportFile));
  console.log('rewrote lib/dev/bench/RESULTS.md from lib/dev/bench/results.json');
  process.exit(0);
}
const selected = (values.only?.split(',').map((name) => name.trim()) ?? Object.keys(SECTIONS)) as SectionName[];
const unknown = selected.filter((name) => !(name in SECTIONS));
if (unknown.length > 0) {
  console.error(`unknown section(s): ${unknown.join(', ')}; choose from ${Object.keys(SECTIONS).join(', ')}`);
  process.exit(2);
}

const started = Date.now();
const results: BenchResults = { machine: machineInfo(), durationSeconds: 0, loadAtEnd: [], errors: {} };
const { machine } = results;
console.log(
  `bench: ${selected.join(', ')} on ${machine.cores} cores (${machine.cpu}), load ${machine.loadAverage[0]!.toFixed(2)}, ` +
    `commit ${machine.commit.slice(0, 10)}`,
);
for (const name of selected) {
  const log = (line: string) =>
    console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${name.padEnd(8)} ${line}`);
  try {
    const section = (results[name] = await SECTIONS[name](log));
    for (const c of section.checks)
      log(`${c.figure}: ${c.measured}${c.target ? ` (target ${c.target}: ${verdict(c)})` : ''}`);
  } catch (error) {
    results.errors[name] = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`FAILED: ${results.errors[name]}`);
  }
}
results.durationSeconds = (Date.now() - started) / 1000;
results.loadAtEnd = loadavg();

// --only leaves the files alone, even when it names every section (usage above).
const all = values.only === undefined;
if (all || values.merge) {
  let saved = results;
  if (!all) {
    // The earlier run's header stays; each merged section says when and where it was measured.
    saved = JSON.parse(readFileSync(rawFile, 'utf8')) as BenchResults;
    const when = `${machine.date.slice(0, 16).replace('T', ' ')} UTC, commit \`${machine.commit.slice(0, 10)}\`, load ${machine.loadAverage[0]!.toFixed(1)} → ${results.loadAtEnd[0]!.toFixed(1)}`;
    for (const name of selected) {
      saved[name] = results[name];
      saved.errors = { ...saved.errors, [name]: results.errors[name] } as Record<string, string>;
      if (!results.errors[name]) delete saved.errors[name];
      saved.merged = { ...saved.merged, [name]: when };
    }
  }
  writeFileSync(reportFile, await renderReport(saved, reportFile));
  const { format, resolveConfig } = await import('prettier');
  const options = { ...(await resolveConfig(rawFile)), filepath: rawFile };
  writeFileSync(rawFile, await format(JSON.stringify(saved), options));
  console.log(
    `wrote lib/dev/bench/RESULTS.md and lib/dev/bench/results.json in ${results.durationSeconds.toFixed(0)} s`,
  );
} else {
  console.log(`\n${await renderReport(results, reportFile)}\n(partial run: lib/dev/bench/RESULTS.md left as it was)`);
}
process.exit(Object.keys(results.errors).length > 0 ? 1 : 0);
