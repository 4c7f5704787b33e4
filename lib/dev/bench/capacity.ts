/**
 * Section 5, upstream capacity. First the machine's own pace (whole tasks per second, no slot in the way), then
 * a burst sized so that keeping the slots full needs at most a third of that pace: two accounts whose jobs wait
 * 30 s in the upstream's queue, the simulator's cap set to our capacity. Sampled every 250 ms: jobs queued
 * upstream, our slots taken, the waiting room, the machine's CPU.
 */
import { cpus } from 'node:os';
import { chart, check, fixed, percent, seconds } from './report.js';
import type { Section } from './report.js';
import type { StackProcess } from '../local/stack-child-client.js';
import { env, FAST_TWO_ACCOUNTS, mean, runBurst, sampleEvery, simulatorStats, slotsAndWaiting } from './task-client.js';
import { warmUp, withStack } from './task-client.js';

const [QUEUED_SECONDS, RUNNING_SECONDS] = [30, 0.3];

export async function runCapacity(log: (line: string) => void): Promise<Section> {
  const pace = await measurePace(log);
  // A third of the pace, over two accounts, each slot held for the queued time; at most Ark's 120 each.
  const sized = Math.min(120, Math.max(5, Math.floor((pace.perSecond / 3) * QUEUED_SECONDS * 0.5)));
  const capacity = env('BENCH_CAPACITY_SLOTS', sized);
  const slots = 2 * capacity;
  const [count, concurrency] = [env('BENCH_CAPACITY_WAVES', 5) * slots, env('BENCH_CAPACITY_SUBMIT_CONCURRENCY', 50)];
  const needed = slots / QUEUED_SECONDS;
  log(`2 accounts of ${capacity} slots (needs ${fixed(needed, 2)} tasks/s); starting the local stack ...`);
  const [queuedMs, runningMs] = [QUEUED_SECONDS * 1000, RUNNING_SECONDS * 1000];
  const upstream = { queuedMs, runningMs, maxQueuedPerAccount: capacity };
  const upstreamAccounts = ['a', 'b'].map((name) => ({ name, capacity }));
  return withStack({ upstreamAccounts, upstream }, async (stack) => {
    const transferSeconds = await warmUp(stack, log, true);
    log(`submitting ${count} tasks, ${concurrency} at a time; sampling every 250 ms ...`);
    const samples: Sample[] = [];
    const stopSampling = sampleEvery(250, async () => void samples.push(await sample(stack)));
    const progress = (s = samples.at(-1)) =>
      `upstream ${s?.upstream} queued, ${s?.taken} slots taken, ${s?.waiting} waiting; `;
    const deadlineSeconds = env('BENCH_CAPACITY_DEADLINE_SECONDS', 600);
    const burst = await runBurst(stack, { prefix: 'capacity', count, concurrency, deadlineSeconds, log }, progress);
    await stopSampling();
    const backlog = samples.filter((s) => s.waiting > 0 && s.at >= burst.started);
    const [stats, jobs, end] = await Promise.all([simulatorStats(stack), stack.upstreamJobs(), slotsAndWaiting(stack)]);
    const ideal = Math.ceil(burst.created / slots) * QUEUED_SECONDS + RUNNING_SECONDS + transferSeconds;
    const waves = `⌈${burst.created} / ${slots}⌉ × ${QUEUED_SECONDS} s queued + ${RUNNING_SECONDS} s running`;
    const [ratio, paceShare] = [burst.wallSeconds / ideal, needed / pace.perSecond];
    const queued = mean(backlog.map((s) => s.upstream));
    const [first, last] = [backlog[0], backlog.at(-1)];
    const busy =
      first && last && last.cpu.totalMs > first.cpu.totalMs
        ? `${percent((last.cpu.busyMs - first.cpu.busyMs) / (last.cpu.totalMs - first.cpu.totalMs))} of the CPU`
        : 'not measured';
    const peaks = stats.accounts.map((a) => [a.account, a.peakQueued] as const);
    const refused = stats.creates - jobs.total;
    const away = end.accounts
      .filter((account) => (account.cool_streak ?? 0) > 0 || !account.enabled)
      .map((account) => `${account.name}${account.enabled ? ` cooled until ${account.cool_until}` : ' disabled'}`);
    const m = {
      pace: `${fixed(needed, 2)} of ${fixed(pace.perSecond)} tasks/s (${pace.succeeded} tasks of 0.4 s, free slots): ${percent(paceShare)}`,
      inUse: `${fixed(queued)} of ${slots} queued on average (${percent(queued / slots)})`,
      wall: `${seconds(burst.wallSeconds)}; ideal ${seconds(ideal)} (${waves} + ${fixed(transferSeconds * 1000, 0)} ms transfer): ${fixed(ratio, 2)}×`,
      peaks: `${peaks.map(([name, n]) => `${name}: ${n}`).join(', ')}; ${refused}${away.length ? `; turned away: ${away.join(', ')}` : ''}`,
      cap: `≤ ${capacity} (the cap); 0`,
      backlog: seconds(last && first ? (last.at - first.at) / 1000 : 0, 0),
    };
    const capped = peaks.every(([, n]) => n <= capacity) && refused === 0 && !away.length;
    const checks = [
      check("Pace the slots need (slots / queued time), of the machine's", m.pace, '≤ 33 %', paceShare <= 1 / 3 + 1e-9),
      ...burst.checks,
      check(`Upstream slots in use while tasks waited (${m.backlog})`, m.inUse, '≥ 90 %', queued / slots >= 0.9),
      check('First submit → last success', m.wall, '≤ 1.15× the ideal', ratio <= 1.15),
      check('Most jobs queued upstream per account at once; creates refused', m.peaks, m.cap, capped),
      check('Slots taken; waiting, at the end', `${end.taken}; ${end.waiting}`, '0; 0', !end.taken && !end.waiting),
      check('Our slots taken while tasks waited (mean)', `${fixed(mean(backlog.map((s) => s.taken)))} of ${slots}`),
      check('Machine busy while tasks waited (all cores, everything on it)', busy),
    ];
    // Since the first submit, at most 100 bars of `size` seconds, each the mean of its samples.
    const since = samples.filter((s) => s.at >= burst.started);
    const size = Math.max(1, Math.ceil(((since.at(-1)?.at ?? burst.started) - burst.started) / 100_000));
    const buckets = new Map<number, Sample[]>();
    for (const s of since) {
      const start = Math.floor((s.at - burst.started) / 1000 / size) * size;
      buckets.set(start, [...(buckets.get(start) ?? []), s]);
    }
    const series = (pick: (s: Sample) => number) => [...buckets.values()].map((g) => Math.round(mean(g.map(pick))));
    const title = `Every ${size === 1 ? 'second' : `${size} s`} since the first submit; bars: jobs queued upstream (of ${slots}), line: tasks waiting`;
    const labels = [...buckets.keys()].map(String);
    const [upstreamQueued, waiting] = [series((s) => s.upstream), series((s) => s.waiting)];
    const timelineChart = chart(title, 'tasks', labels, upstreamQueued, waiting);
    const heading = `5. Upstream capacity: ${count} tasks at once, 2 accounts of ${capacity} slots, jobs queued upstream ${QUEUED_SECONDS} s`;
    return { title: heading, checks, blocks: [timelineChart] };
  });
}

/** Whole tasks per second with slots to spare: a burst on a stack of its own, jobs of 0.4 s. */
async function measurePace(log: (line: string) => void) {
  const count = env('BENCH_CAPACITY_PACE_TASKS', 300);
  log(`measuring the machine's pace: ${count} tasks of 0.4 s, 50 at a time, 2 accounts of 120 slots ...`);
  return withStack(FAST_TWO_ACCOUNTS, async (stack) => {
    await warmUp(stack, log);
    const burst = { prefix: 'pace', count, concurrency: 50, deadlineSeconds: 300, log };
    const { succeeded, wallSeconds } = await runBurst(stack, burst);
    log(`machine pace: ${fixed(succeeded / wallSeconds)} tasks/s`);
    return { succeeded, perSecond: succeeded / wallSeconds };
  });
}

type Sample = Awaited<ReturnType<typeof sample>>;
const sample = async (stack: StackProcess) => {
  const at = Date.now();
  const [stats, ours] = await Promise.all([simulatorStats(stack), slotsAndWaiting(stack)]);
  const upstream = stats.accounts.reduce((sum, account) => sum + account.queued, 0);
  return { at, upstream, taken: ours.taken, waiting: ours.waiting, cpu: cpuTimes() };
};

/** All cores' time since boot, in ms: busy (anything but idle) and in all. Two readings give a window's load. */
function cpuTimes() {
  const all = cpus().map(({ times: t }) => ({ idle: t.idle, total: t.user + t.nice + t.sys + t.irq + t.idle }));
  const totalMs = all.reduce((sum, core) => sum + core.total, 0);
  return { busyMs: totalMs - all.reduce((sum, core) => sum + core.idle, 0), totalMs };
}
