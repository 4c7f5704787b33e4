/**
 * test/bench/RESULTS.md: per section, each figure beside its target with a verdict, the numbers in a table
 * and a Mermaid chart where one helps (GitHub renders them). Tables and charts only, no prose: how to read
 * them is in test/bench/README.md. Formatted by Prettier, so `npm run lint` accepts the file as written.
 */
import { format, resolveConfig } from 'prettier';
import type { CapacityResult } from './capacity.js';
import type { ColdStartRow } from './cold-start.js';
import type { CompletionResult, LatencyFigures } from './completion.js';
import { costLabel } from './lifecycle-cost.js';
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
  capacity?: CapacityResult;
  completion?: CompletionResult;
  /** Section → the error that stopped it. */
  errors: Record<string, string>;
}

export const TARGETS = {
  bundleKiB: 500,
  importMs: 150,
  transferRssMiB: 100,
  /** Flat: the largest size's peak RSS increase within 1.25× the smallest's, for 10× the bytes. */
  transferGrowth: 1.25,
  /** With callbacks (as deployed): a 5-minute task, and a 1-hour one. */
  transitions5min: 12,
  usdPer1000Tasks5min: 0.35,
  transitions60min: 30,
  /** While tasks wait for a slot, the upstream's slots in use: at least this share of them. */
  slotsInUseShare: 0.9,
  /** Wall time of the capacity burst over its ideal (⌈tasks / slots⌉ × generation + transfer). */
  capacityWallOverIdeal: 1.15,
  /** Job succeeded → task success with callbacks, seconds. */
  callbackP50Seconds: 1,
  callbackP99Seconds: 3,
  /** A GET that sees the job finished → success: within the transfer plus this many seconds. */
  querySecondsOverTransfer: 2,
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
  const find = (minutes: number, callbacks: boolean) =>
    rows.find((row) => row.minutes === minutes && row.callbacks === callbacks);
  const five = find(5, true);
  const hour = find(60, true);
  const checks: Check[] = [];
  if (five) {
    checks.push(
      {
        figure: '5-minute task, callbacks: state transitions',
        measured: String(five.transitions),
        target: `≤ ${TARGETS.transitions5min}`,
        pass: five.transitions <= TARGETS.transitions5min,
      },
      {
        figure: '5-minute task, callbacks: AWS per 1,000 tasks',
        measured: usd(five.totalUsd),
        target: `≤ $${TARGETS.usdPer1000Tasks5min.toFixed(2)}`,
        pass: five.totalUsd * 1000 <= TARGETS.usdPer1000Tasks5min,
      },
    );
  }
  if (hour) {
    checks.push({
      figure: '1-hour task, callbacks: state transitions',
      measured: String(hour.transitions),
      target: `≤ ${TARGETS.transitions60min}`,
      pass: hour.transitions <= TARGETS.transitions60min,
    });
  }
  for (const row of rows.filter((r) => !r.callbacks && (r.minutes === 5 || r.minutes === 60))) {
    checks.push({
      figure: `${row.minutes === 60 ? '1-hour' : '5-minute'} task, no callbacks (a look every ${row.checkSeconds} s)`,
      measured: `${row.transitions} transitions, ${usd(row.totalUsd)} per 1,000 tasks`,
      target: '–',
    });
  }
  return checks;
}
function costTables(rows: CostRow[]) {
  const byService = Object.fromEntries(
    rows.map((row) => [costLabel(row), (service: string) => usd(row.usd[service]!, 4)]),
  );
  const five = rows.find((row) => row.minutes === 5 && row.callbacks) ?? rows[0]!;
  const lengths = [...new Set(rows.map((row) => row.minutes))];
  const series = (callbacks: boolean, pick: (row: CostRow) => number) =>
    lengths.map((minutes) => {
      const row = rows.find((r) => r.minutes === minutes && r.callbacks === callbacks);
      return row ? pick(row) : 0;
    });
  const retries = (row: CostRow) =>
    Object.entries(row.transitionsByState)
      .filter(([state]) => !state.endsWith(' (retry)'))
      .map(([state, n]) => {
        const again = row.transitionsByState[`${state} (retry)`];
        return `${state} ${n}${again ? ` + ${again} ${again === 1 ? 'retry' : 'retries'}` : ''}`;
      })
      .join(', ');
  return [
    table(rows, {
      'Upstream takes': (r) => `${r.minutes} min`,
      'Job ends noticed by': (r) =>
        r.callbacks ? `callback (fallback look every ${r.checkSeconds} s)` : `a look every ${r.checkSeconds} s`,
      Looks: (r) => r.checks,
      Callbacks: (r) => r.callbacksDelivered,
      Transitions: (r) => r.transitions,
      'Lambda invocations': (r) => r.lambdaInvocations,
      'API requests': (r) => r.apiRequests,
      'Step Functions API requests': (r) => r.sfnRequests,
      'DynamoDB calls (transactions)': (r) => `${r.dynamoCalls} (${r.transactions})`,
      'Read units': (r) => r.readUnits,
      'Write units': (r) => r.writeUnits,
      'S3 requests': (r) => r.s3Requests,
      'Upstream calls': (r) => r.upstreamCalls,
      'Log KiB': (r) => (r.logBytes / 1024).toFixed(0),
      'Per 1,000 tasks': (r) => usd(r.totalUsd),
    }),
    chart(
      'AWS $ per 1,000 tasks, by how long the upstream takes; bars: callbacks, line: no callbacks',
      lengths.map((minutes) => `${minutes} min`),
      '$',
      series(true, (r) => r.totalUsd * 1000),
      series(false, (r) => r.totalUsd * 1000),
    ),
    chart(
      'State transitions per task; bars: callbacks, line: no callbacks',
      lengths.map((minutes) => `${minutes} min`),
      'transitions',
      series(true, (r) => r.transitions),
      series(false, (r) => r.transitions),
    ),
    table(rows, { Run: costLabel, 'Transitions by state (entered + retries)': retries }),
    table(Object.keys(five.usd), { 'Per 1,000 tasks': (service) => service, ...byService }),
    table(Object.entries(five.steps), {
      [`Function (${costLabel(five)})`]: ([fn]) => fn,
      Invocations: ([, s]) => s.invocations,
      'Storage and Step Functions calls': ([, s]) =>
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
          'Fallback look',
          'AWS defaults: COMPLETION_CHECK_SECONDS 300 with callbacks, COMPLETION_POLL_SECONDS 60 without; +1 s retry interval each',
        ],
        [
          "Upstream's callbacks",
          `${ASSUMPTIONS.progressCallbacks} before the final one (queued, running), as the simulator sends them`,
        ],
        [
          'DynamoDB transactions',
          '2 write units per item and KB (DynamoDB Local reports 1: doubled, index writes too)',
        ],
        [
          'Log bytes',
          `handlers' at INFO + ${ASSUMPTIONS.platformLogBytes} per invocation (+ ${ASSUMPTIONS.errorLogBytes} per error) + ${ASSUMPTIONS.historyEventBytes} per execution event + state data`,
        ],
        ['X-Ray (upper bound)', `one trace per API request and ${ASSUMPTIONS.tracesPerExecution} per execution`],
        [
          'Left out (not per task)',
          "storage, egress, the reconciler, Lambda init, client status queries, the waiting room's waits under a backlog",
        ],
      ],
      { Assumption: ([name]) => name, Value: ([, value]) => value },
    ),
  ];
}

const cny = (units: number) => (units / 10_000).toFixed(4);
const counts = (values: Record<string, number>) =>
  Object.entries(values)
    .map(([what, n]) => `; ${n}× ${what.replaceAll('`', "'")}`)
    .join('');

function tasksChecks(t: ThroughputResult): Check[] {
  const [others, errors] = [counts(t.notSucceeded), counts(t.submitErrors)];
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

function machineBusy(share: number | undefined): string {
  if (share === undefined || Number.isNaN(share)) return 'not measured';
  const percent = `${(share * 100).toFixed(0)} % of the CPU`;
  return share >= 0.9 ? `${percent}: the machine, not the slots, held the waves back` : percent;
}

function capacityChecks(c: CapacityResult): Check[] {
  const share = c.upstreamInUseMean / c.slots;
  const ratio = c.wallSeconds / c.idealSeconds;
  const peaks = Object.entries(c.peakQueued ?? {});
  return [
    {
      figure: 'Tasks succeeded; refunded',
      measured: `${c.succeeded} / ${c.tasks}; ${c.refunded}${counts(c.notSucceeded)}${counts(c.failureReasons ?? {})}`,
      target: `all; 0`,
      pass: c.succeeded === c.tasks && c.refunded === 0,
    },
    {
      figure: 'Balance; key spend',
      measured: `${cny(c.balanceUnits)} CNY (expected ${cny(c.expectedBalanceUnits)}); ${cny(c.keySpentUnits)}`,
      target: 'exact to 0.0001',
      pass: c.balanceExact,
    },
    {
      figure: `Upstream slots in use while tasks waited (${c.backlogSeconds.toFixed(0)} s)`,
      measured: `${c.upstreamInUseMean.toFixed(0)} of ${c.slots} on average (${(share * 100).toFixed(0)} %)`,
      target: `≥ ${TARGETS.slotsInUseShare * 100} %`,
      pass: share >= TARGETS.slotsInUseShare,
    },
    {
      figure: 'First submit → last success',
      measured:
        `${c.wallSeconds.toFixed(1)} s; ideal ${c.idealSeconds.toFixed(1)} s ` +
        `(⌈${c.created} / ${c.slots}⌉ × ${c.generationSeconds} s + ${(c.transferSeconds * 1000).toFixed(0)} ms transfer): ${ratio.toFixed(2)}×`,
      target: `≤ ${TARGETS.capacityWallOverIdeal}× the ideal`,
      pass: ratio <= TARGETS.capacityWallOverIdeal,
    },
    {
      figure: 'Most jobs queued upstream per account at once',
      measured:
        peaks.map(([name, n]) => `${name}: ${n}`).join(', ') +
        (c.accountsTurnedAway.length
          ? `; turned away: ${c.accountsTurnedAway.join(', ')}`
          : '; no account turned away'),
      target: `≤ ${c.maxQueuedPerAccount} (the cap), never a 429`,
      pass: peaks.every(([, n]) => n <= c.maxQueuedPerAccount) && c.accountsTurnedAway.length === 0,
    },
    {
      figure: 'Slots taken; tasks waiting, at the end',
      measured: `${c.slotsTakenAtEnd}; ${c.waitingAtEnd}`,
      target: '0; 0',
      pass: c.slotsTakenAtEnd === 0 && c.waitingAtEnd === 0,
    },
    {
      figure: 'Tasks with one upstream job',
      measured: `${c.tasksWithOneJob} / ${c.created}`,
      target: 'all',
      pass: c.tasksWithOneJob === c.created,
    },
    {
      figure: `Submits answered 200 (${c.submitConcurrency} at a time)`,
      measured: `${c.accepted} / ${c.tasks} in ${c.submitSeconds.toFixed(1)} s${counts(c.submitErrors)}; ${c.created} tasks made`,
      target: '–',
    },
    {
      figure: 'Upstream slots in use, first submit → last job made',
      measured: `${c.upstreamInUseMeanUntilLastStart.toFixed(0)} of ${c.slots} (${((c.upstreamInUseMeanUntilLastStart / c.slots) * 100).toFixed(0)} %, the ramp included); our slots taken while tasks waited: ${c.slotsTakenMean.toFixed(0)}`,
      target: '–',
    },
    {
      figure: 'Latency, created → success',
      measured: `p50 ${c.latencyP50Seconds.toFixed(1)} s, p99 ${c.latencyP99Seconds.toFixed(1)} s`,
      target: '–',
    },
    {
      figure: 'Machine busy while tasks waited (all cores, everything on it)',
      measured: machineBusy(c.machineBusyShare),
      target: '–',
    },
  ];
}
function capacityTables(c: CapacityResult) {
  // At most 100 bars: seconds grouped, each bar the group's mean.
  const size = Math.max(1, Math.ceil(c.timeline.length / 100));
  const groups = Array.from({ length: Math.ceil(c.timeline.length / size) }, (_, i) =>
    c.timeline.slice(i * size, (i + 1) * size),
  );
  const mean = (group: typeof c.timeline, pick: (point: (typeof c.timeline)[number]) => number) =>
    Math.round(group.reduce((sum, point) => sum + pick(point), 0) / group.length);
  return [
    chart(
      `Every ${size === 1 ? 'second' : `${size} s`} since the first submit; bars: upstream jobs unfinished (of ${c.slots}), line: tasks in the waiting room`,
      groups.map((group) => String(group[0]!.second)),
      'tasks',
      groups.map((group) => mean(group, (point) => point.upstream)),
      groups.map((group) => mean(group, (point) => point.waiting)),
    ),
  ];
}

const latency = (l: LatencyFigures) =>
  `p50 ${l.p50.toFixed(2)} s, p99 ${l.p99.toFixed(2)} s, max ${l.max.toFixed(2)} s (${l.count} tasks)`;
function completionChecks(c: CompletionResult): Check[] {
  const queryLimit = c.transferSeconds + TARGETS.querySecondsOverTransfer;
  return [
    {
      figure: 'Callbacks: job succeeded → success, p50',
      measured: `${c.callback.latency.p50.toFixed(2)} s`,
      target: `≤ ${TARGETS.callbackP50Seconds} s`,
      pass: c.callback.latency.p50 <= TARGETS.callbackP50Seconds,
    },
    {
      figure: 'Callbacks: job succeeded → success, p99',
      measured: `${c.callback.latency.p99.toFixed(2)} s`,
      target: `≤ ${TARGETS.callbackP99Seconds} s`,
      pass: c.callback.latency.p99 <= TARGETS.callbackP99Seconds,
    },
    {
      figure: 'A GET that sees the job finished → success (no callback)',
      measured: `${latency(c.query.latency)}; the GET itself p50 ${c.query.answer.p50.toFixed(2)} s`,
      target: `≤ ${queryLimit.toFixed(2)} s each (transfer ${(c.transferSeconds * 1000).toFixed(0)} ms + ${TARGETS.querySecondsOverTransfer} s)`,
      pass: c.query.latency.count > 0 && c.query.latency.max <= queryLimit,
    },
    {
      figure: 'Tasks succeeded (callbacks; queries; fallback)',
      measured: `${c.callback.succeeded} / ${c.callback.tasks}; ${c.query.succeeded} / ${c.query.tasks}; ${c.polling.succeeded} / ${c.polling.tasks}`,
      target: 'all',
      pass:
        c.callback.succeeded === c.callback.tasks &&
        c.query.succeeded === c.query.tasks &&
        c.polling.succeeded === c.polling.tasks,
    },
    {
      figure: `No callback, nobody asks: the look every ${c.polling.checkSeconds} s`,
      measured: `${latency(c.polling.latency)}, mean ${c.polling.latency.mean.toFixed(1)} s`,
      target: '–',
    },
    {
      figure: 'Callbacks: final callback acknowledged at its first attempt',
      measured: `${c.callback.finalCallbacksAcknowledged} / ${c.callback.tasks} (one task submitted every ${c.callback.submitEveryMs} ms)`,
      target: '–',
    },
    {
      figure: 'Queries: answered; settled before the GET (not measured)',
      measured: `${Object.entries(c.query.answeredStatus)
        .map(([status, n]) => `${n}× ${status}`)
        .join(', ')}; ${c.query.settledBeforeQuery}`,
      target: '–',
    },
  ];
}
const completionTables = (c: CompletionResult) => [
  table(
    [
      ['Callback', c.callback.latency],
      ['GET that sees the job finished (from the GET)', c.query.latency],
      [`Fallback look every ${c.polling.checkSeconds} s`, c.polling.latency],
    ] as [string, LatencyFigures][],
    {
      'Job end noticed by': ([name]) => name,
      Tasks: ([, l]) => l.count,
      'p50 (s)': ([, l]) => l.p50.toFixed(2),
      'p99 (s)': ([, l]) => l.p99.toFixed(2),
      'Max (s)': ([, l]) => l.max.toFixed(2),
      'Mean (s)': ([, l]) => l.mean.toFixed(2),
    },
  ),
];

export async function renderReport(results: BenchResults, file: string): Promise<string> {
  const { cold, transfer, cost, tasks, capacity, completion } = results;
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
    {
      name: 'capacity',
      title: '5. Upstream capacity: 1,000 tasks at once, 2 accounts of 120 slots',
      checks: capacity && capacityChecks(capacity),
      tables: capacity && capacityTables(capacity),
    },
    {
      name: 'completion',
      title: '6. Completion latency: job succeeded → task success',
      checks: completion && completionChecks(completion),
      tables: completion && completionTables(completion),
    },
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
