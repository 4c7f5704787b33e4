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
import { ASSUMPTIONS as A, PRICES, PRICES_CHECKED_ON } from './pricing.js';
import type { RefusalResult } from './refusal.js';
import type { BurstResult } from './task-client.js';
import type { TransferRow } from './transfer.js';

export interface BenchResults {
  machine: MachineInfo;
  durationSeconds: number;
  loadAtEnd: number[];
  cold?: ColdStartRow[];
  transfer?: TransferRow[];
  cost?: CostRow[];
  tasks?: BurstResult;
  capacity?: CapacityResult;
  refusal?: RefusalResult;
  completion?: CompletionResult;
  /** Section → the error that stopped it. */
  errors: Record<string, string>;
  /** Sections measured by a later `--only=… --merge` run → when, at which commit, under what load. */
  merged?: Record<string, string>;
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
  /** The capacity burst needs at most this share of the machine's pace (so it measures the code, not the box). */
  paceShare: 1 / 3,
  /** While tasks wait for a slot, the upstream's slots in use: at least this share of them. */
  slotsInUseShare: 0.9,
  capacityWallOverIdeal: 1.15,
  /** Under a sustained refusal, after the first burst: creates per account and minute. */
  refusedPerAccountMinute: 3,
  /** Job succeeded → task success with callbacks, seconds. */
  callbackP50Seconds: 1,
  callbackP99Seconds: 3,
  /** A GET that sees the job finished → success: within the transfer plus this many seconds. */
  querySecondsOverTransfer: 2,
};
const T = TARGETS;

/** Figure, measured, target, verdict (undefined: a figure without a target). */
type Check = { figure: string; measured: string; target: string; pass?: boolean };
const check = (figure: string, measured: string, target = '–', pass?: boolean): Check => ({
  figure,
  measured,
  target,
  pass,
});
const MiB = 2 ** 20;
const fixed = (value: number, digits = 1) => value.toFixed(digits);
const seconds = (value: number, digits = 1) => `${value.toFixed(digits)} s`;
const percent = (share: number) => `${(share * 100).toFixed(0)} %`;
const cny = (units: number) => (units / 10_000).toFixed(4);
const usd = (value: number, digits = 3) => `$${(value * 1000).toFixed(digits)}`;
const counts = (values: Record<string, number>) =>
  Object.entries(values)
    .map(([what, n]) => `; ${n}× ${what.replaceAll('`', "'")}`)
    .join('');

/** A Markdown table: one column per entry, header → the cell of a row. */
function table<R>(rows: R[], columns: Record<string, (row: R) => string | number | undefined>): string {
  const line = (cells: unknown[]) => `| ${cells.map((c) => String(c ?? '–').replaceAll('|', '\\|')).join(' | ')} |`;
  const headers = Object.keys(columns);
  const body = rows.map((row) => line(headers.map((h) => columns[h]!(row))));
  return [line(headers), line(headers.map(() => '---')), ...body].join('\n');
}
const checkTable = (checks: Check[]) =>
  table(checks, {
    Figure: (c) => c.figure,
    Measured: (c) => c.measured,
    Target: (c) => c.target,
    Verdict: (c) => (c.pass === undefined ? '–' : c.pass ? '✅ met' : '❌ missed'),
  });

/** A Mermaid xychart: bars, and optionally a line (a target, or a second series named in the title). */
function chart(title: string, labels: string[], axis: string, bars: number[], line?: number[], horizontal = false) {
  const list = (values: number[]) => `[${values.map((value) => Number(value.toPrecision(4))).join(', ')}]`;
  const highest = Math.max(1, ...bars, ...(line ?? [])) * 1.1;
  const step = 10 ** (Math.floor(Math.log10(highest)) - 1);
  const top = Number((Math.ceil(highest / step) * step).toPrecision(2));
  const axes = [`  x-axis [${labels.map((label) => `"${label}"`).join(', ')}]`, `  y-axis "${axis}" 0 --> ${top}`];
  const series = [`  bar ${list(bars)}`, ...(line ? [`  line ${list(line)}`] : [])];
  const kind = `xychart-beta${horizontal ? ' horizontal' : ''}`;
  return ['```mermaid', kind, `  title "${title}"`, ...axes, ...series, '```'].join('\n');
}

function coldSection(rows: ColdStartRow[]) {
  const kib = (row: ColdStartRow) => Math.round(row.bundleBytes / 1024);
  const big = rows.reduce((a, b) => (kib(b) > kib(a) ? b : a));
  const slow = rows.reduce((a, b) => (b.importMs > a.importMs ? b : a));
  const failed = rows.filter((row) => row.error).map((row) => row.id);
  const time = `${fixed(slow.importMs, 0)} ms (${slow.id})${failed.length ? `; failed: ${failed.join(', ')}` : ''}`;
  const checks = [
    check('Largest bundle', `${kib(big)} KiB (${big.id})`, `≤ ${T.bundleKiB} KiB each`, kib(big) <= T.bundleKiB),
    check('Slowest import (median)', time, `≤ ${T.importMs} ms each`, slow.importMs <= T.importMs && !failed.length),
  ];
  const tables = [
    table(rows, {
      Handler: (r) => r.id,
      'Bundle (KiB)': kib,
      'Import (ms)': (r) => (r.error ? `failed: ${r.error}` : fixed(r.importMs, 0)),
      'Import CPU time (ms)': (r) => fixed(r.importCpuMs, 0),
    }),
    chart(
      `Bundle size (KiB); line: the ${T.bundleKiB} KiB target`,
      rows.map((row) => row.id),
      'KiB',
      rows.map((row) => row.bundleBytes / 1024),
      rows.map(() => T.bundleKiB),
      true,
    ),
  ];
  return { checks, tables };
}

function transferSection(rows: TransferRow[]) {
  const of = (mode: TransferRow['mode']) => rows.filter((row) => row.mode === mode);
  const [first, last] = [of('ours')[0]!, of('ours').at(-1)!];
  const growth = last.peakIncreaseBytes / first.peakIncreaseBytes;
  const mib = (bytes: number) => `${bytes / MiB} MiB`;
  const checks = [
    ...of('ours').map((r) => {
      const increase = `+${fixed(r.peakIncreaseBytes / MiB)} MiB`;
      const pass = r.peakIncreaseBytes <= T.transferRssMiB * MiB;
      return check(`Peak RSS increase, ${mib(r.bytes)}`, increase, `≤ ${T.transferRssMiB} MiB`, pass);
    }),
    check(
      `Growth of the increase, ${first.bytes / MiB} → ${mib(last.bytes)}`,
      `${fixed(growth, 2)}×`,
      `≤ ${T.transferGrowth}× (flat)`,
      growth <= T.transferGrowth,
    ),
  ];
  const increase = (mode: TransferRow['mode']) => of(mode).map((row) => row.peakIncreaseBytes / MiB);
  const tables = [
    table(rows, {
      Size: (r) => mib(r.bytes),
      Mode: (r) => r.mode,
      'Peak RSS increase (MiB)': (r) => fixed(r.peakIncreaseBytes / MiB),
      'RSS before (MiB)': (r) => fixed(r.rssBeforeBytes / MiB, 0),
      'MiB/s': (r) => fixed(r.bytes / MiB / r.seconds, 0),
    }),
    chart(
      'Peak RSS increase (MiB); bars: ours, line: plain Upload',
      [...new Set(rows.map((row) => mib(row.bytes)))],
      'MiB',
      increase('ours'),
      increase('plain Upload'),
    ),
  ];
  return { checks, tables };
}

function costSection(rows: CostRow[]) {
  const find = (minutes: number) => rows.find((row) => row.minutes === minutes && row.callbacks);
  const [five, hour] = [find(5), find(60)];
  const checks = [
    ...(five
      ? [
          check('5-minute task, callbacks: state transitions', String(five.transitions), `≤ ${T.transitions5min}`),
          check('5-minute task, callbacks: AWS per 1,000 tasks', usd(five.totalUsd), `≤ $${T.usdPer1000Tasks5min}`),
        ]
      : []),
    ...(hour
      ? [check('1-hour task, callbacks: state transitions', String(hour.transitions), `≤ ${T.transitions60min}`)]
      : []),
    ...rows
      .filter((r) => !r.callbacks && (r.minutes === 5 || r.minutes === 60))
      .map((r) =>
        check(
          `${r.minutes === 60 ? '1-hour' : '5-minute'} task, no callbacks (a look every ${r.checkSeconds} s)`,
          `${r.transitions} transitions, ${usd(r.totalUsd)} per 1,000 tasks`,
        ),
      ),
  ];
  if (five) checks[0]!.pass = five.transitions <= T.transitions5min;
  if (five) checks[1]!.pass = five.totalUsd * 1000 <= T.usdPer1000Tasks5min;
  if (hour) checks[five ? 2 : 0]!.pass = hour.transitions <= T.transitions60min;
  const sample = five ?? rows[0]!;
  const lengths = [...new Set(rows.map((row) => row.minutes))];
  const byLength = (title: string, axis: string, pick: (row: CostRow) => number) => {
    const series = (callbacks: boolean) =>
      lengths.map((m) => {
        const row = rows.find((r) => r.minutes === m && r.callbacks === callbacks);
        return row ? pick(row) : 0;
      });
    const labels = lengths.map((m) => `${m} min`);
    return chart(`${title}; bars: callbacks, line: no callbacks`, labels, axis, series(true), series(false));
  };
  const retries = (row: CostRow) =>
    Object.entries(row.transitionsByState)
      .filter(([state]) => !state.endsWith(' (retry)'))
      .map(([state, n]) => {
        const again = row.transitionsByState[`${state} (retry)`];
        return `${state} ${n}${again ? ` + ${again} ${again === 1 ? 'retry' : 'retries'}` : ''}`;
      })
      .join(', ');
  const assumptions = [
    ['Lambda memory (lib/cdk/service-functions.ts), arm64', '512 MB; TransferVideo 1,024 MB'],
    [
      'Billed Lambda time',
      `local + ${A.upstreamCallMs} ms per upstream call + ${A.transferMsPerMiB} ms per MiB of video`,
    ],
    ['Fallback look', 'AWS defaults: COMPLETION_CHECK_SECONDS 300 with callbacks, COMPLETION_POLL_SECONDS 60 without'],
    ["Upstream's callbacks", `${A.progressCallbacks} before the final one (queued, running), as the simulator sends`],
    ['DynamoDB transactions', '2 write units per item and KB (DynamoDB Local reports 1: doubled, index writes too)'],
    ['Log bytes', `handlers' at INFO + ${A.platformLogBytes} per invocation (+ ${A.errorLogBytes} per error)`],
    ['Execution log bytes', `${A.historyEventBytes} per execution event + the state data`],
    ['X-Ray (upper bound)', `one trace per API request and ${A.tracesPerExecution} per execution`],
    ['Left out (not per task)', 'storage, egress, the reconciler, Lambda init, client queries, waits under a backlog'],
  ];
  const calls = (s: CostRow['steps'][string]) => Object.entries(s.calls).map(([call, n]) => `${n}× ${call}`);
  const tables = [
    table(rows, {
      'Upstream takes': (r) => `${r.minutes} min`,
      'Job ends noticed by': (r) => `${r.callbacks ? 'callback (fallback look' : '(a look'} every ${r.checkSeconds} s)`,
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
      'Log KiB': (r) => fixed(r.logBytes / 1024, 0),
      'Per 1,000 tasks': (r) => usd(r.totalUsd),
    }),
    byLength('AWS $ per 1,000 tasks, by how long the upstream takes', '$', (r) => r.totalUsd * 1000),
    byLength('State transitions per task', 'transitions', (r) => r.transitions),
    table(rows, { Run: costLabel, 'Transitions by state (entered + retries)': retries }),
    table(Object.keys(sample.usd), {
      'Per 1,000 tasks': (service) => service,
      ...Object.fromEntries(rows.map((row) => [costLabel(row), (service: string) => usd(row.usd[service]!, 4)])),
    }),
    table(Object.entries(sample.steps), {
      [`Function (${costLabel(sample)})`]: ([fn]) => fn,
      Invocations: ([, s]) => s.invocations,
      'Storage and Step Functions calls': ([, s]) => calls(s).join(', ') || '–',
      'Read units': ([, s]) => s.readUnits,
      'Write units': ([, s]) => s.writeUnits,
      'Upstream calls': ([, s]) => s.upstreamCalls,
    }),
    table(Object.values(PRICES), {
      [`Price (us-east-1 list, as of ${PRICES_CHECKED_ON})`]: (p) => p.text,
      Source: (p) => p.source,
    }),
    table(assumptions, { Assumption: ([name]) => name, Value: ([, value]) => value }),
  ];
  return { checks, tables };
}

/** What every burst of tasks is held to: all succeed, none refunded, the money exact, one upstream job each. */
function burstChecks(b: BurstResult, concurrency?: number): Check[] {
  const outcome = `${b.succeeded} / ${b.tasks}; ${b.refunded}${counts(b.notSucceeded)}${counts(b.failureReasons)}`;
  const money = `${cny(b.balanceUnits)} CNY (expected ${cny(b.expectedBalanceUnits)}); ${cny(b.keySpentUnits)}`;
  const submits = `${b.accepted} / ${b.tasks} in ${seconds(b.submitSeconds)}${counts(b.submitErrors)}`;
  return [
    check('Tasks succeeded; refunded', outcome, 'all; 0', b.succeeded === b.tasks && b.refunded === 0),
    check('Balance; key spend', money, 'exact to 0.0001', b.balanceExact),
    check('Tasks with one upstream job', `${b.tasksWithOneJob} / ${b.created}`, 'all', b.tasksWithOneJob === b.created),
    check(`Submits answered 200 (${concurrency ?? 'all'} at a time)`, `${submits}; ${b.created} tasks made`),
    check('Latency, created → success', `p50 ${seconds(b.latencyP50Seconds)}, p99 ${seconds(b.latencyP99Seconds)}`),
  ];
}

const tasksSection = (t: BurstResult) => ({
  checks: [
    ...burstChecks(t),
    check('Last task final', `${seconds(t.wallSeconds)} (${fixed(t.succeeded / t.wallSeconds)} tasks/s)`),
  ],
});

function capacitySection(c: CapacityResult) {
  const [share, ratio, needed] = [c.upstreamQueuedMean / c.slots, c.wallSeconds / c.idealSeconds, c.neededPerSecond];
  const cap = c.accounts[0]?.capacity ?? 0;
  const peaks = Object.entries(c.peakQueued);
  const away = c.accountsTurnedAway.length ? `; turned away: ${c.accountsTurnedAway.join(', ')}` : '';
  const pace = `${fixed(c.pace.tasksPerSecond)} tasks/s (${c.pace.succeeded} tasks of 0.4 s, free slots)`;
  const waves = `⌈${c.created} / ${c.slots}⌉ × ${c.queuedSeconds} s queued + ${c.runningSeconds} s running`;
  const ideal = `ideal ${seconds(c.idealSeconds)} (${waves} + ${fixed(c.transferSeconds * 1000, 0)} ms transfer)`;
  const busy = Number.isNaN(c.machineBusyShare) ? 'not measured' : `${percent(c.machineBusyShare)} of the CPU`;
  const checks = [
    check(
      "Pace the slots need (slots / queued time), of the machine's",
      `${fixed(needed, 2)} of ${pace}: ${percent(needed / c.pace.tasksPerSecond)}`,
      `≤ ${percent(T.paceShare)}`,
      needed / c.pace.tasksPerSecond <= T.paceShare + 1e-9,
    ),
    ...burstChecks(c, c.submitConcurrency),
    check(
      `Upstream slots in use while tasks waited (${seconds(c.backlogSeconds, 0)})`,
      `${fixed(c.upstreamQueuedMean)} of ${c.slots} queued on average (${percent(share)})`,
      `≥ ${percent(T.slotsInUseShare)}`,
      share >= T.slotsInUseShare,
    ),
    check(
      'First submit → last success',
      `${seconds(c.wallSeconds)}; ${ideal}: ${fixed(ratio, 2)}×`,
      `≤ ${T.capacityWallOverIdeal}× the ideal`,
      ratio <= T.capacityWallOverIdeal,
    ),
    check(
      'Most jobs queued upstream per account at once; creates refused',
      `${peaks.map(([name, n]) => `${name}: ${n}`).join(', ')}; ${c.upstreamRefusals}${away}`,
      `≤ ${cap} (the cap); 0`,
      peaks.every(([, n]) => n <= cap) && c.upstreamRefusals === 0 && !away,
    ),
    check('Slots taken; waiting, at the end', `${c.slotsTakenAtEnd}; ${c.waitingAtEnd}`, '0; 0', !c.slotsTakenAtEnd),
    check('Our slots taken while tasks waited (mean)', `${fixed(c.slotsTakenMean)} of ${c.slots}`),
    check('Machine busy while tasks waited (all cores, everything on it)', busy),
  ];
  checks.at(-3)!.pass = c.slotsTakenAtEnd === 0 && c.waitingAtEnd === 0;
  // At most 100 bars: seconds grouped, each bar the group's mean.
  const size = Math.max(1, Math.ceil(c.timeline.length / 100));
  const groups = Array.from({ length: Math.ceil(c.timeline.length / size) }, (_, i) =>
    c.timeline.slice(i * size, (i + 1) * size),
  );
  const mean = (pick: (point: CapacityResult['timeline'][number]) => number) =>
    groups.map((group) => Math.round(group.reduce((sum, point) => sum + pick(point), 0) / group.length));
  const every = size === 1 ? 'second' : `${size} s`;
  const title = `Every ${every} since the first submit; bars: jobs queued upstream (of ${c.slots}), line: tasks waiting`;
  const labels = groups.map((group) => String(group[0]!.second));
  return {
    checks,
    tables: [
      chart(
        title,
        labels,
        'tasks',
        mean((p) => p.upstream),
        mean((p) => p.waiting),
      ),
    ],
  };
}

function refusalSection(r: RefusalResult) {
  const after = r.refusedCreates - r.firstBurst;
  const rate = `${after}: ${fixed(r.perAccountPerMinute, 2)} per account and minute (${r.accounts} accounts)`;
  const history = `${fixed(r.transitionsMean)}; ${r.transitionsMax}; ${r.historyEventsMax}`;
  const ends = `${r.slotsTakenAtEnd}; ${r.waitingAtEnd}`;
  const checks = [
    check(
      `Creates refused during the ${r.refusalSeconds / 60}-minute refusal, after the first burst`,
      rate,
      `≤ ${T.refusedPerAccountMinute} per account and minute`,
      r.perAccountPerMinute <= T.refusedPerAccountMinute,
    ),
    check('The first burst (slots handed out before the first 429 came back)', `${r.firstBurst} of ${r.tasks} tasks`),
    check('Refused creates in each minute of the refusal', r.refusedPerMinute.join(', ')),
    ...burstChecks(r),
    check(
      'Transitions per task (mean; most); history events (most)',
      history,
      '< 25,000 events',
      r.historyEventsMax < 25_000,
    ),
    check('Slots taken; waiting, at the end', ends, '0; 0', r.slotsTakenAtEnd === 0 && r.waitingAtEnd === 0),
    check(
      'Refusal over → first job made; → every task final',
      `${seconds(r.firstJobAfterSeconds)}; ${seconds(r.allFinalAfterSeconds)}`,
    ),
  ];
  return { checks };
}

function completionSection(c: CompletionResult) {
  const limit = c.transferSeconds + T.querySecondsOverTransfer;
  const { callback: cb, query: q, polling: p } = c;
  const latency = (l: LatencyFigures) =>
    `p50 ${seconds(l.p50, 2)}, p99 ${seconds(l.p99, 2)}, max ${seconds(l.max, 2)} (${l.count} tasks)`;
  const all = cb.succeeded === cb.tasks && q.succeeded === q.tasks && p.succeeded === p.tasks;
  const answered = Object.entries(q.answeredStatus).map(([status, n]) => `${n}× ${status}`);
  const checks = [
    check('Callbacks: job succeeded → success, p50', seconds(cb.latency.p50, 2), `≤ ${T.callbackP50Seconds} s`),
    check('Callbacks: job succeeded → success, p99', seconds(cb.latency.p99, 2), `≤ ${T.callbackP99Seconds} s`),
    check(
      'A GET that sees the job finished → success (no callback)',
      `${latency(q.latency)}; the GET itself p50 ${seconds(q.answer.p50, 2)}`,
      `≤ ${seconds(limit, 2)} each (transfer ${fixed(c.transferSeconds * 1000, 0)} ms + ${T.querySecondsOverTransfer} s)`,
      q.latency.count > 0 && q.latency.max <= limit,
    ),
    check(
      'Tasks succeeded (callbacks; queries; fallback)',
      `${cb.succeeded} / ${cb.tasks}; ${q.succeeded} / ${q.tasks}; ${p.succeeded} / ${p.tasks}`,
      'all',
      all,
    ),
    check(
      `No callback, nobody asks: the look every ${p.checkSeconds} s`,
      `${latency(p.latency)}, mean ${seconds(p.latency.mean)}`,
    ),
    check(
      'Callbacks: final callback acknowledged at its first attempt',
      `${cb.finalCallbacksAcknowledged} / ${cb.tasks}`,
    ),
    check(
      'Queries: answered; settled before the GET (not measured)',
      `${answered.join(', ')}; ${q.settledBeforeQuery}`,
    ),
  ];
  checks[0]!.pass = cb.latency.p50 <= T.callbackP50Seconds;
  checks[1]!.pass = cb.latency.p99 <= T.callbackP99Seconds;
  const groups: [string, LatencyFigures][] = [
    ['Callback', cb.latency],
    ['GET that sees the job finished (from the GET)', q.latency],
    [`Fallback look every ${p.checkSeconds} s`, p.latency],
  ];
  const tables = [
    table(groups, {
      'Job end noticed by': ([name]) => name,
      Tasks: ([, l]) => l.count,
      'p50 (s)': ([, l]) => fixed(l.p50, 2),
      'p99 (s)': ([, l]) => fixed(l.p99, 2),
      'Max (s)': ([, l]) => fixed(l.max, 2),
      'Mean (s)': ([, l]) => fixed(l.mean, 2),
    }),
  ];
  return { checks, tables };
}

export async function renderReport(results: BenchResults, file: string): Promise<string> {
  const r = results;
  const c = r.capacity;
  const burst = c ? `${c.tasks} tasks at once, 2 accounts of ${c.accounts[0]?.capacity} slots` : 'a burst';
  const sections = [
    ['cold', '1. Cold start: bundle size and import time', r.cold && coldSection(r.cold)],
    ['transfer', '2. Transfer memory: a video streamed into S3', r.transfer && transferSection(r.transfer)],
    ['cost', '3. Lifecycle cost model', r.cost && costSection(r.cost)],
    ['tasks', '4. Whole tasks: 1,000 at once', r.tasks && tasksSection(r.tasks)],
    ['capacity', `5. Upstream capacity: ${burst}, jobs queued upstream ${c?.queuedSeconds} s`, c && capacitySection(c)],
    ['refusal', '6. Sustained refusal: every create refused, then recovery', r.refusal && refusalSection(r.refusal)],
    [
      'completion',
      '7. Completion latency: job succeeded → task success',
      r.completion && completionSection(r.completion),
    ],
  ] as const;
  const judged = sections.flatMap(([, , s]) => s?.checks ?? []).filter((check) => check.pass !== undefined);
  const failed = sections.filter(([name]) => r.errors[name]).map(([name]) => name);
  const m = r.machine;
  const header = [
    `${m.date.slice(0, 16).replace('T', ' ')} UTC`,
    `commit \`${m.commit.slice(0, 10)}\`${m.uncommitted ? ` (+${m.uncommitted} uncommitted paths)` : ''}`,
    `${m.cpu}, ${m.cores} cores, ${fixed(m.memoryGiB, 0)} GiB, Node ${m.node}`,
    `load ${fixed(m.loadAverage[0]!)} → ${r.loadAtEnd[0]?.toFixed(1)}`,
    seconds(r.durationSeconds, 0),
    `**${judged.filter((check) => check.pass).length} of ${judged.length} targets met${failed.length ? `; failed: ${failed.join(', ')}` : ''}**`,
    '[how to read](README.md)',
  ].join(' · ');
  const merged = Object.entries(r.merged ?? {}).map(([name, when]) => `Section ${name} measured later: ${when}.`);
  const body = sections.map(([name, title, section]) => {
    const error = r.errors[name];
    if (!section) return `## ${title}\n\n${error ? `Failed:\n\n\`\`\`\n${error}\n\`\`\`` : 'Not run.'}`;
    return [`## ${title}`, checkTable(section.checks), ...('tables' in section ? section.tables : [])].join('\n\n');
  });
  return format(['# Bench results', header, ...merged, ...body].join('\n\n'), {
    ...(await resolveConfig(file)),
    filepath: file,
  });
}
