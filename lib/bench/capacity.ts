/**
 * Section 5, upstream capacity. First the machine's own pace (whole tasks per second, no slot in the way), then
 * a burst sized so that keeping the slots full needs at most a third of that pace: two accounts whose jobs wait
 * 30 s in the upstream's queue, the simulator's cap set to our capacity. Sampled every 250 ms: jobs queued
 * upstream, our slots taken, the waiting room.
 */
import { cpuTimes } from './machine.js';
import { startStackProcess } from './stack-client.js';
import type { StackProcess } from './stack-client.js';
import { BENCH_ENVIRONMENT, FINAL, mean, measureTransfer, openAccount, pollUntil, runBurst } from './task-client.js';
import { leftOver, sampleEvery, simulatorStats, submitAll } from './task-client.js';

export type CapacityResult = Awaited<ReturnType<typeof runCapacity>>;

const QUEUED_MS = 30_000;
const RUNNING_MS = 300;
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

export async function runCapacity(log: (line: string) => void) {
  const pace = await measurePace(log);
  const queuedSeconds = QUEUED_MS / 1000;
  // A third of the pace, over two accounts, each slot held for the queued time; at most Ark's 120 each.
  const sized = Math.min(120, Math.max(5, Math.floor((pace.tasksPerSecond / 3) * queuedSeconds * 0.5)));
  const capacity = env('BENCH_CAPACITY_SLOTS', sized);
  const accounts = ['a', 'b'].map((name) => ({ name, capacity }));
  const slots = 2 * capacity;
  const count = env('BENCH_CAPACITY_WAVES', 5) * slots;
  const concurrency = env('BENCH_CAPACITY_SUBMIT_CONCURRENCY', 50);
  log(
    `machine pace ${pace.tasksPerSecond.toFixed(1)} tasks/s: 2 accounts of ${capacity} slots, jobs ${queuedSeconds} s ` +
      `queued (needs ${(slots / queuedSeconds).toFixed(2)} tasks/s); starting the local stack ...`,
  );
  const stack = await startStackProcess({
    upstreamAccounts: accounts,
    upstream: { queuedMs: QUEUED_MS, runningMs: RUNNING_MS, maxQueuedPerAccount: capacity },
    environment: BENCH_ENVIRONMENT,
  });
  try {
    const simulator = stack.ready.endpoints.upstreams.ark.baseUrl;
    const transferSeconds = await warmUp(stack, simulator, log);
    log(`submitting ${count} tasks, ${concurrency} at a time; sampling every 250 ms ...`);
    const samples: Sample[] = [];
    const stopSampling = sampleEvery(250, async () => void samples.push(await sample(stack, simulator)));
    const progress = () => {
      const last = samples.at(-1);
      return `upstream ${last?.upstream} queued, ${last?.taken} slots taken, ${last?.waiting} waiting; `;
    };
    const deadlineSeconds = env('BENCH_CAPACITY_DEADLINE_SECONDS', 600);
    const burst = await runBurst(stack, { prefix: 'capacity', count, concurrency, deadlineSeconds, log }, progress);
    await stopSampling();
    const backlog = samples.filter((s) => s.waiting > 0 && s.at >= burst.started);
    const [stats, jobs] = await Promise.all([simulatorStats(simulator), stack.upstreamJobs()]);
    const { accounts: rows, ...atEnd } = await leftOver(stack);
    const runningSeconds = RUNNING_MS / 1000;
    const result = {
      ...burst.result,
      pace,
      accounts,
      slots,
      queuedSeconds,
      runningSeconds,
      neededPerSecond: slots / queuedSeconds,
      submitConcurrency: concurrency,
      transferSeconds,
      idealSeconds: Math.ceil(burst.result.created / slots) * queuedSeconds + runningSeconds + transferSeconds,
      backlogSeconds: backlog.length > 1 ? (backlog.at(-1)!.at - backlog[0]!.at) / 1000 : 0,
      upstreamQueuedMean: mean(backlog.map((s) => s.upstream)),
      slotsTakenMean: mean(backlog.map((s) => s.taken)),
      machineBusyShare: busyShare(backlog),
      peakQueued: Object.fromEntries(stats.accounts.map((a) => [a.account, a.peakQueued])),
      upstreamRefusals: stats.creates - jobs.total,
      accountsTurnedAway: rows
        .filter((account) => (account.cool_streak ?? 0) > 0 || !account.enabled)
        .map((account) => `${account.name}${account.enabled ? ` cooled until ${account.cool_until}` : ' disabled'}`),
      ...atEnd,
      timeline: perSecond(samples, burst.started),
    };
    log(
      `${(result.wallSeconds / result.idealSeconds).toFixed(2)}× the ideal ${result.idealSeconds.toFixed(1)} s; ` +
        `queued upstream while tasks waited: ${result.upstreamQueuedMean.toFixed(0)} of ${slots} on average ` +
        `(${result.backlogSeconds.toFixed(0)} s); peak queued ${JSON.stringify(result.peakQueued)}`,
    );
    return result;
  } finally {
    await stack.stop();
  }
}

/** Whole tasks per second with slots to spare: a burst on a stack of its own, jobs of 0.4 s. */
async function measurePace(log: (line: string) => void) {
  const tasks = env('BENCH_CAPACITY_PACE_TASKS', 300);
  log(`measuring the machine's pace: ${tasks} tasks of 0.4 s, 50 at a time, 2 accounts of 120 slots ...`);
  const stack = await startStackProcess({
    upstreamAccounts: ['a', 'b'].map((name) => ({ name, capacity: 120 })),
    upstream: { queuedMs: 100, runningMs: 300 },
    environment: BENCH_ENVIRONMENT,
  });
  try {
    await warmUp(stack, undefined, log);
    const { result } = await runBurst(stack, {
      prefix: 'pace',
      count: tasks,
      concurrency: 50,
      deadlineSeconds: 300,
      log,
    });
    return {
      tasks,
      succeeded: result.succeeded,
      wallSeconds: result.wallSeconds,
      tasksPerSecond: result.succeeded / result.wallSeconds,
    };
  } finally {
    await stack.stop();
  }
}

/** A few tasks first (another account): the bundles load; with `simulator`, one transfer is timed on its own. */
export async function warmUp(stack: StackProcess, simulator: string | undefined, log: (line: string) => void) {
  const { accountId, key } = await openAccount(stack, 'warm');
  log('warming up: 8 tasks ...');
  const prompts = Array.from({ length: 8 }, (_, i) => `${accountId} #${i}`);
  await submitAll(stack.ready.baseUrl, key, prompts);
  const tasks = await pollUntil(
    () => stack.tasks(accountId),
    (all) => all.every((task) => FINAL.includes(task.status)),
    500,
    Date.now() + 180_000,
  );
  const done = tasks.find((task) => task.status === 'success' && task.upstream_job_id);
  if (!done) throw new Error(`warm-up: no task succeeded (${tasks.map((t) => t.status).join(', ')})`);
  if (!simulator) return 0;
  const transfer = await measureTransfer(stack, simulator, done.upstream_job_id!);
  log(`warm-up done; one transfer of the ${transfer.bytes}-byte video: ${(transfer.seconds * 1000).toFixed(0)} ms`);
  return transfer.seconds;
}

interface Sample {
  at: number;
  upstream: number;
  taken: number;
  waiting: number;
  cpu: { busyMs: number; totalMs: number };
}

async function sample(stack: StackProcess, simulator: string): Promise<Sample> {
  const at = Date.now();
  const [stats, { accounts, waiting }] = await Promise.all([simulatorStats(simulator), stack.admin.upstreamAccounts()]);
  return {
    at,
    upstream: stats.accounts.reduce((sum, account) => sum + account.queued, 0),
    taken: accounts.reduce((sum, account) => sum + account.in_use, 0),
    waiting: Object.values(waiting).reduce((sum, n) => sum + n, 0),
    cpu: cpuTimes(),
  };
}

function busyShare(window: Sample[]): number {
  const [first, last] = [window[0]?.cpu, window.at(-1)?.cpu];
  if (!first || !last || last.totalMs <= first.totalMs) return Number.NaN;
  return (last.busyMs - first.busyMs) / (last.totalMs - first.totalMs);
}

function perSecond(samples: Sample[], started: number) {
  const buckets = new Map<number, Sample[]>();
  for (const s of samples.filter((s) => s.at >= started)) {
    const second = Math.floor((s.at - started) / 1000);
    buckets.set(second, [...(buckets.get(second) ?? []), s]);
  }
  return [...buckets.entries()].map(([second, group]) => ({
    second,
    upstream: Math.round(mean(group.map((s) => s.upstream))),
    waiting: Math.round(mean(group.map((s) => s.waiting))),
  }));
}
