/**
 * test/bench/RESULTS.md: per section, each figure beside its target with a verdict, the numbers in a table
 * and a Mermaid chart where one helps (GitHub renders them). Tables and charts only, no prose: how to read
 * them is in test/bench/README.md. Formatted by Prettier, so `npm run lint` accepts the file as written.
 */
import { format, resolveConfig } from 'prettier';
import type { ColdStartRow } from './cold-start.js';
import type { CostRow } from './lifecycle-cost.js';
import type { MachineInfo } from './machine.js';
import { ASSUMPTIONS, PRICES, PRICES_CHECKED_ON } from './pricing.js';
import type { ThroughputResult } from './task-throughput.js';
import type { TransferRow } from './transfer.js';

export interface BenchResults {
  machine: MachineInfo;
  durationSeconds: number;
  loadAtEnd: number[];
  cold?: ColdStartRow[];
  transfer?: TransferRow[];
  cost?: CostRow[];
  tasks?: ThroughputResult;
  /** Section → the error that stopped it. */
  errors: Record<string, string>;
}

export const TARGETS = {
  bundleKiB: 500,
  importMs: 150,
  transferRssMiB: 100,
  /** Flat: the largest size's peak RSS increase within 1.25× the smallest's, for 10× the bytes. */
  transferGrowth: 1.25,
  transitions5min: 40,
  usdPer1000Tasks5min: 0.5,
};

/** Figure, measured, target, verdict (undefined: a figure without a target). */
type Check = { figure: string; measured: string; target: string; pass?: boolean };
const MiB = 2 ** 20;

/** A Markdown table: one column per entry, header → the cell of a row. */
function table<T>(rows: T[], columns: Record<string, (row: T) => string | number | undefined>): string {
  const line = (cells: unknown[]) =>
    `| ${cells.map((cell) => String(cell ?? '–').replaceAll('|', '\\|')).join(' | ')} |`;
  const headers = Object.keys(columns);
  return [
    line(headers),
    line(headers.map(() => '---')),
    ...rows.map((row) => line(headers.map((h) => columns[h]!(row)))),
  ].join('\n');
}

const checkTable = (checks: Check[]) =>
  table(checks, {
    Figure: (c) => c.figure,
    Measured: (c) => c.measured,
    Target: (c) => c.target,
    Verdict: (c) => (c.pass === undefined ? '–' : c.pass ? '✅ met' : '❌ missed'),
  });

/** Rounded up to two significant digits: the y-axis' top. */
const top = (value: number) => {
  const step = 10 ** (Math.floor(Math.log10(value)) - 1);
  return Number((Math.ceil(value / step) * step).toPrecision(2));
};
/** A Mermaid xychart: bars, and optionally a line (a target, or a second series named in the title). */
function chart(title: string, labels: string[], axis: string, bars: number[], line?: number[], horizontal = false) {
  const list = (values: number[]) => `[${values.map((value) => Number(value.toPrecision(4))).join(', ')}]`;
  return [
    '```mermaid',
    `xychart-beta${horizontal ? ' horizontal' : ''}`,
    `  title "${title}"`,
    `  x-axis [${labels.map((label) => `"${label}"`).join(', ')}]`,
    `  y-axis "${axis}" 0 --> ${top(Math.max(...bars, ...(line ?? [])) * 1.1)}`,
    `  bar ${list(bars)}`,
    ...(line ? [`  line ${list(line)}`] : []),
    '```',
  ].join('\n');
}

function coldChecks(rows: ColdStartRow[]): Check[] {
  const kib = (row: ColdStartRow) => Math.round(row.bundleBytes / 1024);
  const biggest = rows.reduce((a, b) => (kib(b) > kib(a) ? b : a));
  const slowest = rows.reduce((a, b) => (b.importMs > a.importMs ? b : a));
  const failed = rows.filter((row) => row.error).map((row) => row.id);
  return [
    {
      figure: 'Largest bundle',
      measured: `${kib(biggest)} KiB (${biggest.id})`,
      target: `≤ ${TARGETS.bundleKiB} KiB each`,
      pass: kib(biggest) <= TARGETS.bundleKiB,
    },
    {
      figure: 'Slowest import (median)',
      measured: `${slowest.importMs.toFixed(0)} ms (${slowest.id})${failed.length ? `; failed: ${failed.join(', ')}` : ''}`,
      target: `≤ ${TARGETS.importMs} ms each`,
      pass: slowest.importMs <= TARGETS.importMs && failed.length === 0,
    },
  ];
}
const coldTables = (rows: ColdStartRow[]) => [
  table(rows, {
    Handler: (r) => r.id,
    'Bundle (KiB)': (r) => Math.round(r.bundleBytes / 1024),
    'Import (ms)': (r) => (r.error ? `failed: ${r.error}` : r.importMs.toFixed(0)),
    'Import CPU time (ms)': (r) => r.importCpuMs.toFixed(0),
  }),
  chart(
    `Bundle size (KiB); line: the ${TARGETS.bundleKiB} KiB target`,
    rows.map((row) => row.id),
    'KiB',
    rows.map((row) => row.bundleBytes / 1024),
    rows.map(() => TARGETS.bundleKiB),
    true,
  ),
];

function transferChecks(rows: TransferRow[]): Check[] {
  const ours = rows.filter((row) => row.mode === 'ours');
  const [first, last] = [ours[0]!, ours.at(-1)!];
  const growth = last.peakIncreaseBytes / first.peakIncreaseBytes;
  return [
    ...ours.map((row) => ({
      figure: `Peak RSS increase, ${row.bytes / MiB} MiB`,
      measured: `+${(row.peakIncreaseBytes / MiB).toFixed(1)} MiB`,
      target: `≤ ${TARGETS.transferRssMiB} MiB`,
      pass: row.peakIncreaseBytes <= TARGETS.transferRssMiB * MiB,
    })),
    {
      figure: `Growth of the increase, ${first.bytes / MiB} → ${last.bytes / MiB} MiB`,
      measured: `${growth.toFixed(2)}×`,
      target: `≤ ${TARGETS.transferGrowth}× (flat)`,
      pass: growth <= TARGETS.transferGrowth,
    },
  ];
}
function transferTables(rows: TransferRow[]) {
  const increase = (mode: TransferRow['mode']) =>
    rows.filter((row) => row.mode === mode).map((row) => row.peakIncreaseBytes / MiB);
  const sizes = [...new Set(rows.map((row) => `${row.bytes / MiB} MiB`))];
  return [
    table(rows, {
      Size: (r) => `${r.bytes / MiB} MiB`,
      Mode: (r) => r.mode,
      'Peak RSS increase (MiB)': (r) => (r.peakIncreaseBytes / MiB).toFixed(1),
      'RSS before (MiB)': (r) => (r.rssBeforeBytes / MiB).toFixed(0),
      'MiB/s': (r) => (r.bytes / MiB / r.seconds).toFixed(0),
    }),
    chart(
      'Peak RSS increase (MiB); bars: ours, line: plain Upload',
      sizes,
      'MiB',
      increase('ours'),
      increase('plain Upload'),
    ),
  ];
}

const usd = (value: number, digits = 3) => `$${(value * 1000).toFixed(digits)}`;
function costChecks(rows: CostRow[]): Check[] {
  const five = rows.find((row) => row.minutes === 5);
  if (!five) return [];
  return [
    {
      figure: '5-minute task: state transitions',
      measured: String(five.transitions),
      target: `≤ ${TARGETS.transitions5min}`,
      pass: five.transitions <= TARGETS.transitions5min,
    },
    {
      figure: '5-minute task: AWS per 1,000 tasks',
      measured: usd(five.totalUsd),
      target: `≤ $${TARGETS.usdPer1000Tasks5min.toFixed(2)}`,
      pass: five.totalUsd * 1000 <= TARGETS.usdPer1000Tasks5min,
    },
  ];
}
function costTables(rows: CostRow[]) {
  const length = (row: CostRow) => `${row.minutes} min`;
  const byService = Object.fromEntries(
    rows.map((row) => [length(row), (service: string) => usd(row.usd[service]!, 4)]),
  );
  const five = rows.find((row) => row.minutes === 5) ?? rows[0]!;
  return [
    table(rows, {
      'Upstream takes': length,
      Polls: (r) => r.polls,
      Transitions: (r) => r.transitions,
      'Lambda invocations': (r) => r.lambdaInvocations,
      'DynamoDB calls': (r) => r.dynamoCalls,
      'Read units': (r) => r.readUnits,
      'Write units': (r) => r.writeUnits,
      'S3 requests': (r) => r.s3Requests,
      'SQS requests': (r) => r.sqsRequests,
      'Upstream calls': (r) => r.upstreamCalls,
      'Log KiB': (r) => (r.logBytes / 1024).toFixed(0),
      'Per 1,000 tasks': (r) => usd(r.totalUsd),
    }),
    chart(
      'AWS $ per 1,000 tasks, by how long the upstream takes',
      rows.map(length),
      '$',
      rows.map((r) => r.totalUsd * 1000),
    ),
    table(Object.keys(five.usd), { 'Per 1,000 tasks': (service) => service, ...byService }),
    table(Object.entries(five.steps), {
      [`Function (${length(five)} task)`]: ([fn]) => fn,
      Invocations: ([, s]) => s.invocations,
      'Storage calls': ([, s]) =>
        Object.entries(s.calls)
          .map(([call, n]) => `${n}× ${call}`)
          .join(', ') || '–',
      'Read units': ([, s]) => s.readUnits,
      'Write units': ([, s]) => s.writeUnits,
      'Upstream calls': ([, s]) => s.upstreamCalls,
    }),
    table(Object.values(PRICES), {
      [`Price (us-east-1 list, as of ${PRICES_CHECKED_ON})`]: (p) => p.text,
      Source: (p) => p.source,
    }),
    table(
      [
        ['Lambda memory (lib/cdk/service-functions.ts), arm64', '512 MB; TransferVideo 1,024 MB'],
        [
          'Billed Lambda time',
          `local + ${ASSUMPTIONS.upstreamCallMs} ms per upstream call + ${ASSUMPTIONS.transferMsPerMiB} ms per MiB of video`,
        ],
        [
          'Log bytes',
          `handlers' at INFO + ${ASSUMPTIONS.platformLogBytes} per invocation (+ ${ASSUMPTIONS.errorLogBytes} per error) + ${ASSUMPTIONS.historyEventBytes} per execution event + state data`,
        ],
        ['X-Ray (upper bound)', `${ASSUMPTIONS.tracesPerTask} traces per task`],
        ['Left out (not per task)', 'storage, egress, the reconciler, Lambda init, client status queries'],
      ],
      { Assumption: ([name]) => name, Value: ([, value]) => value },
    ),
  ];
}

function tasksChecks(t: ThroughputResult): Check[] {
  const cny = (units: number) => (units / 10_000).toFixed(4);
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([what, n]) => `; ${n}× ${what.replaceAll('`', "'")}`)
      .join('');
  const [others, errors] = [list(t.notSucceeded), list(t.submitErrors)];
  return [
    {
      figure: 'Tasks succeeded',
      measured: `${t.succeeded} / ${t.tasks}${others}`,
      target: 'all',
      pass: t.succeeded === t.tasks,
    },
    {
      figure: 'Balance; key spend',
      measured: `${cny(t.balanceUnits)} CNY (expected ${cny(t.expectedBalanceUnits)}); ${cny(t.keySpentUnits)}`,
      target: 'exact to 0.0001',
      pass: t.balanceExact,
    },
    {
      figure: 'Tasks with one upstream job',
      measured: `${t.tasksWithOneJob} / ${t.tasks}`,
      target: 'all',
      pass: t.tasksWithOneJob === t.tasks,
    },
    {
      figure: 'Submits answered 200',
      measured: `${t.accepted} / ${t.tasks} in ${t.submitSeconds.toFixed(1)} s${errors}`,
      target: '–',
    },
    {
      figure: 'Last task final',
      measured: `${t.totalSeconds.toFixed(1)} s (${(t.succeeded / t.totalSeconds).toFixed(1)} tasks/s)`,
      target: '–',
    },
    {
      figure: 'Latency, created → success',
      measured: `p50 ${t.latencyP50Seconds.toFixed(1)} s, p99 ${t.latencyP99Seconds.toFixed(1)} s`,
      target: '–',
    },
  ];
}

export async function renderReport(results: BenchResults, file: string): Promise<string> {
  const { cold, transfer, cost, tasks } = results;
  const sections = [
    {
      name: 'cold',
      title: '1. Cold start: bundle size and import time',
      checks: cold && coldChecks(cold),
      tables: cold && coldTables(cold),
    },
    {
      name: 'transfer',
      title: '2. Transfer memory: a video streamed into S3',
      checks: transfer && transferChecks(transfer),
      tables: transfer && transferTables(transfer),
    },
    {
      name: 'cost',
      title: '3. Lifecycle cost model',
      checks: cost && costChecks(cost),
      tables: cost && costTables(cost),
    },
    { name: 'tasks', title: '4. Whole tasks: 1,000 at once', checks: tasks && tasksChecks(tasks), tables: [] },
  ];
  const judged = sections.flatMap((s) => s.checks ?? []).filter((check) => check.pass !== undefined);
  const failed = sections.filter((s) => results.errors[s.name]).map((s) => s.name);
  const m = results.machine;
  const header = [
    `${m.date.slice(0, 16).replace('T', ' ')} UTC`,
    `commit \`${m.commit.slice(0, 10)}\`${m.uncommitted ? ` (+${m.uncommitted} uncommitted paths)` : ''}`,
    `${m.cpu}, ${m.cores} cores, ${m.memoryGiB.toFixed(0)} GiB, Node ${m.node}`,
    `load ${m.loadAverage[0]!.toFixed(1)} → ${results.loadAtEnd[0]?.toFixed(1)}`,
    `${results.durationSeconds.toFixed(0)} s`,
    `**${judged.filter((check) => check.pass).length} of ${judged.length} targets met${failed.length ? `; failed: ${failed.join(', ')}` : ''}**`,
    '[how to read](README.md)',
  ].join(' · ');
  const body = sections.map(({ name, title, checks, tables }) => {
    const error = results.errors[name];
    if (!checks) return `## ${title}\n\n${error ? `Failed:\n\n\`\`\`\n${error}\n\`\`\`` : 'Not run.'}`;
    return [`## ${title}`, checkTable(checks), ...(tables ?? [])].join('\n\n');
  });
  return format(['# Bench results', header, ...body].join('\n\n'), { ...(await resolveConfig(file)), filepath: file });
}
