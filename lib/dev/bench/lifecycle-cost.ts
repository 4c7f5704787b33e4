/**
 * Section 3, lifecycle cost model: what one task costs in AWS when its upstream takes 1, 5, 30 or 60 minutes,
 * with the upstream's callbacks (the fallback look every COMPLETION_CHECK_SECONDS) and without (a look every
 * COMPLETION_POLL_SECONDS). lib/dev/bench/lifecycle-probe.ts counts what the real handlers and ASL do; here the
 * counts are priced.
 */
import { forkLocalProcess } from '../local/forked-process.js';
import type { ProbeRun, StepUsage } from './lifecycle-probe.js';
import { ASSUMPTIONS as A, PRICES, PRICES_CHECKED_ON } from './pricing.js';
import { chart, check, fixed, table, usd } from './report.js';
import type { Section } from './report.js';

/** With callbacks (as deployed): a 5-minute task's transitions and AWS $ per 1,000 tasks; a 1-hour task's transitions. */
const [T5, USD5, T60] = [12, 0.35, 30];
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
type Row = ReturnType<typeof price>;
const perTask = (r: Row) => `${r.transitions} transitions, ${usd(r.totalUsd)} per 1,000 tasks`;

export async function runLifecycleCost(log: (line: string) => void): Promise<Section> {
  log('running tasks through the real handlers and ASL (DynamoDB Local and fauxqs start first) ...');
  const entry = 'lib/dev/bench/lifecycle-probe.ts';
  const options = { name: entry, entry, config: {}, timeoutMs: 240_000, group: true };
  const probe = await forkLocalProcess<{ runs: ProbeRun[] }>(options);
  await probe.stop(5_000);
  const rows = probe.ready.runs.map(price);
  for (const r of rows) log(`${r.label.padEnd(24)}: ${perTask(r)}`);
  return report(rows);
}

/** One task priced: its counts, USD per task by service. */
function price(run: ProbeRun) {
  const steps = Object.entries(run.steps);
  const total = (pick: (step: StepUsage) => number) => sum(steps.map(([, step]) => pick(step)));
  const calls = (prefix: string, only = (_call: string) => true) =>
    total((step) => sum(Object.entries(step.calls).map(([c, n]) => (c.startsWith(prefix) && only(c) ? n : 0))));
  // Billed time: the local time plus what AWS adds (the upstream's round trips, the cross-region video download).
  const gbSeconds = sum(
    steps.flatMap(([fn, step]) =>
      step.ms.map((ms) => {
        const extra =
          (step.upstreamCalls / step.invocations) * A.upstreamCallMs +
          (fn === 'TransferVideo' ? (run.videoBytes / 2 ** 20) * A.transferMsPerMiB : 0);
        return (Math.ceil(ms + extra) / 1000) * (A.memoryMb(fn) / 1024);
      }),
    ),
  );
  const counts = {
    lambdaInvocations: total((step) => step.invocations),
    sfnRequests: calls('SFN '),
    dynamoCalls: calls('DynamoDB '),
    transactions: calls('DynamoDB TransactWriteItems'),
    readUnits: total((step) => step.readUnits),
    writeUnits: total((step) => step.writeUnits),
    s3Requests: calls('S3 '),
    upstreamCalls: total((step) => step.upstreamCalls),
    logBytes:
      total((step) => step.logBytes + step.errors * A.errorLogBytes) +
      total((step) => step.invocations) * A.platformLogBytes +
      run.executionLogBytes,
  };
  const s3Gets = calls('S3 ', (call) => call === 'S3 GET' || call === 'S3 HEAD');
  const usd: Record<string, number> = {
    'Step Functions': run.transitions * PRICES.transition.usd,
    'Step Functions API': counts.sfnRequests * PRICES.sfnApiRequest.usd,
    'Lambda requests': counts.lambdaInvocations * PRICES.lambdaRequest.usd,
    'Lambda duration': gbSeconds * PRICES.lambdaGbSecond.usd,
    DynamoDB: counts.readUnits * PRICES.readUnit.usd + counts.writeUnits * PRICES.writeUnit.usd,
    'API Gateway': run.apiRequests * PRICES.apiRequest.usd,
    'S3 requests': (counts.s3Requests - s3Gets) * PRICES.s3Put.usd + s3Gets * PRICES.s3Get.usd,
    SQS: calls('SQS ') * PRICES.sqsRequest.usd,
    'CloudWatch Logs': (counts.logBytes / 2 ** 30) * PRICES.logGb.usd,
    'X-Ray (upper bound)': (run.apiRequests + A.tracesPerExecution) * PRICES.trace.usd,
  };
  const label = `${run.minutes} min, ${run.callbacks ? 'callbacks' : 'no callbacks'}`;
  return { ...run, ...counts, label, usd, totalUsd: sum(Object.values(usd)) };
}

function report(rows: Row[]): Section {
  const find = (minutes: number) => rows.find((row) => row.minutes === minutes && row.callbacks);
  const [five, hour] = [find(5), find(60)];
  const name = (r: Row) => `${r.minutes === 60 ? '1-hour' : '5-minute'} task, ${r.callbacks ? '' : 'no '}callbacks`;
  const transitions = (r: Row | undefined, most: number) =>
    r && check(`${name(r)}: state transitions`, `${r.transitions}`, `≤ ${most}`, r.transitions <= most);
  const noCallbacks = rows.filter((r) => !r.callbacks && [5, 60].includes(r.minutes));
  const checks = [
    transitions(five, T5),
    five && check(`${name(five)}: AWS per 1,000 tasks`, usd(five.totalUsd), `≤ $${USD5}`, five.totalUsd * 1000 <= USD5),
    transitions(hour, T60),
    ...noCallbacks.map((r) => check(`${name(r)} (a look every ${r.checkSeconds} s)`, perTask(r))),
  ].filter((c) => c !== undefined);
  const sample = five ?? rows[0]!;
  const lengths = [...new Set(rows.map((row) => row.minutes))];
  const byLength = (title: string, axis: string, pick: (row: Row) => number) => {
    const series = (callbacks: boolean) =>
      lengths.map((m) => rows.filter((r) => r.minutes === m && r.callbacks === callbacks).map(pick)[0] ?? 0);
    const labels = lengths.map((m) => `${m} min`);
    return chart(`${title}; bars: callbacks, line: no callbacks`, axis, labels, series(true), series(false));
  };
  const retries = (row: Row) =>
    Object.entries(row.transitionsByState)
      .filter(([state]) => !state.endsWith(' (retry)'))
      .map(([state, n]) => {
        const again = row.transitionsByState[`${state} (retry)`];
        return `${state} ${n}${again ? ` + ${again} ${again === 1 ? 'retry' : 'retries'}` : ''}`;
      })
      .join(', ');
  const assumptions = [
    ['Lambda memory (lib/ship/cdk/service-functions.ts), arm64', '512 MB; TransferVideo 1,024 MB'],
    ['Billed Lambda time', `local + ${A.upstreamCallMs} ms per upstream call + ${A.transferMsPerMiB} ms per MiB`],
    ['Fallback look', 'AWS defaults: COMPLETION_CHECK_SECONDS 300 with callbacks, COMPLETION_POLL_SECONDS 60 without'],
    ["Upstream's callbacks", `${A.progressCallbacks} before the final one (queued, running), as the simulator sends`],
    ['DynamoDB transactions', '2 write units per item and KB (DynamoDB Local reports 1: doubled, index writes too)'],
    ['Log bytes', `handlers' at INFO + ${A.platformLogBytes} per invocation (+ ${A.errorLogBytes} per error)`],
    ['Execution log bytes', `${A.historyEventBytes} per execution event + the state data`],
    ['X-Ray (upper bound)', `one trace per API request and ${A.tracesPerExecution} per execution`],
    ['Left out (not per task)', 'storage, egress, the reconciler, Lambda init, client queries, waits under a backlog'],
  ];
  const calls = (s: StepUsage) => Object.entries(s.calls).map(([call, n]) => `${n}× ${call}`);
  const blocks = [
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
    table(rows, { Run: (r) => r.label, 'Transitions by state (entered + retries)': retries }),
    table(Object.keys(sample.usd), {
      'Per 1,000 tasks': (service) => service,
      ...Object.fromEntries(rows.map((row) => [row.label, (service: string) => usd(row.usd[service]!, 4)])),
    }),
    table(Object.entries(sample.steps), {
      [`Function (${sample.label})`]: ([fn]) => fn,
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
  return { checks, blocks };
}
