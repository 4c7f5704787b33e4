/**
 * Section 5, upstream capacity: 1,000 tasks submitted at once against two upstream accounts of 120 slots each,
 * the simulator holding Ark's documented cap (120 unfinished jobs per key, 429 beyond) and generating for 10 s.
 * The waiting room must start every task, in waves that keep the slots busy, and refund none. Sampled every
 * 250 ms: the simulator's unfinished jobs per key, our slots in use and the waiting room.
 */
import { randomUUID } from 'node:crypto';
import { cpuTimes } from './machine.js';
import { startStackProcess } from './stack-client.js';
import type { StackProcess } from './stack-client.js';
import {
  checkMoney,
  countBy,
  measureTransfer,
  percentile,
  pollUntil,
  simulatorStats,
  submitAll,
} from './task-client.js';
import type { MoneyCheck } from './task-client.js';

export interface CapacityResult extends MoneyCheck {
  tasks: number;
  accounts: { name: string; capacity: number }[];
  /** Σ capacity: the slots there are. */
  slots: number;
  /** The simulator's cap on queued jobs per master account (Ark's documented 120). */
  maxQueuedPerAccount: number;
  /** Queued + running: one job's time upstream. */
  generationSeconds: number;
  submitConcurrency: number;
  accepted: number;
  /** Answers other than 2xx: status and the start of the body (or why none came) → how many. */
  submitErrors: Record<string, number>;
  /** Tasks the account holds (a submit answered 500 may still have made one). */
  created: number;
  succeeded: number;
  refunded: number;
  /** Final but not succeeded, or still in flight at the deadline: `status` → how many. */
  notSucceeded: Record<string, number>;
  /** Why tasks failed (their error_message, shortened) → how many. */
  failureReasons: Record<string, number>;
  tasksWithOneJob: number;
  submitSeconds: number;
  /** First submit sent → the last task's success (its finished_at). */
  wallSeconds: number;
  /** One transfer of the simulator's video into the bucket, on its own (median): the ideal's "plus transfer". */
  transferSeconds: number;
  /** ⌈created / slots⌉ × generation + transfer. */
  idealSeconds: number;
  /** Samples while tasks waited in the waiting room, and how long that lasted. */
  backlogSamples: number;
  backlogSeconds: number;
  /** Mean over those samples of the simulator's unfinished jobs, all keys together. */
  upstreamInUseMean: number;
  /** The same over every sample from the first submit to the last job created (the ramp included). */
  upstreamInUseMeanUntilLastStart: number;
  /** Mean over the backlog samples of our slots taken (the accounts' in_use). */
  slotsTakenMean: number;
  /** The machine's CPU busy (all cores, everything on it) from the first to the last backlog sample: 0..1. */
  machineBusyShare: number;
  /** Per account: the most jobs it held queued at once (simulator). */
  peakQueued: Record<string, number>;
  /** Accounts the upstream turned away (a 429 cools one down, a 401/403 disables it): none expected. */
  accountsTurnedAway: string[];
  /** After the run: slots still taken, tasks still waiting (both 0 when nothing leaked). */
  slotsTakenAtEnd: number;
  waitingAtEnd: number;
  latencyP50Seconds: number;
  latencyP99Seconds: number;
  /** Per second since the first submit: mean upstream jobs unfinished, mean tasks waiting. */
  timeline: { second: number; upstream: number; waiting: number }[];
}

const FINAL = ['success', 'failed', 'refunded'];
const ACCOUNTS = [
  { name: 'a', capacity: 120 },
  { name: 'b', capacity: 120 },
];
const QUEUED_MS = 100;
const RUNNING_MS = 10_000;

interface Sample {
  at: number;
  upstream: number;
  taken: number;
  waiting: number;
  jobs: number;
  cpu: { busyMs: number; totalMs: number };
}

export async function runCapacity(log: (line: string) => void): Promise<CapacityResult> {
  const count = Number(process.env['BENCH_CAPACITY_TASKS'] ?? 1_000);
  const concurrency = Number(process.env['BENCH_CAPACITY_SUBMIT_CONCURRENCY'] ?? 50);
  log(
    `starting the local stack (accounts ${ACCOUNTS.map((a) => `${a.name}: ${a.capacity}`).join(', ')}; ` +
      `simulated upstream: ${QUEUED_MS} ms queued, ${RUNNING_MS / 1000} s running, Ark's cap per key, calling back) ...`,
  );
  const stack = await startStackProcess({
    upstreamAccounts: ACCOUNTS,
    upstream: { queuedMs: QUEUED_MS, runningMs: RUNNING_MS },
    environment: { DEFAULT_RATE_LIMIT_PER_SECOND: '1000000', POWERTOOLS_LOG_LEVEL: 'ERROR' },
  });
  try {
    const simulator = stack.ready.endpoints.upstreams.ark.baseUrl;
    const transferSeconds = await warmUp(stack, simulator, log);

    const accountId = `capacity-${randomUUID().slice(0, 8)}`;
    const openingUnits = 100_000 * 10_000;
    await stack.admin.createAccount(accountId, '100000');
    const { key } = await stack.admin.createKey({ accountId, ratePerSecond: 1_000_000 });
    const prompts = Array.from({ length: count }, (_, i) => `${accountId} #${i}`);

    log(`submitting ${count} tasks, ${concurrency} at a time; sampling the slots every 250 ms ...`);
    const jobsBefore = (await stack.upstreamJobs()).total;
    const started = Date.now();
    const samples: Sample[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const tick = Date.now();
        samples.push(await sample(stack, simulator, jobsBefore));
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 250 - (Date.now() - tick))));
      }
    })();
    const answers = await submitAll(stack.ready.baseUrl, key, prompts, concurrency);
    const submitSeconds = (Date.now() - started) / 1000;
    const failed = answers.filter((answer) => answer.outcome !== 'ok');
    const submitErrors = countBy(failed, (answer) => answer.outcome);
    log(`${count - failed.length} accepted in ${submitSeconds.toFixed(1)} s ${JSON.stringify(submitErrors)}`);

    const deadline = started + Number(process.env['BENCH_CAPACITY_DEADLINE_SECONDS'] ?? 300) * 1000;
    let lastLog = 0;
    const tasks = await pollUntil(
      async () => {
        const all = await stack.tasks(accountId);
        if (Date.now() - lastLog >= 5_000) {
          lastLog = Date.now();
          const last = samples.at(-1);
          log(
            `${((Date.now() - started) / 1000).toFixed(0)} s: upstream ${last?.upstream ?? '?'} unfinished, ` +
              `${last?.taken ?? '?'} slots taken, ${last?.waiting ?? '?'} waiting, ${last?.jobs ?? '?'} jobs made; ` +
              JSON.stringify(countBy(all, (task) => task.status)),
          );
        }
        return all;
      },
      (all) => all.length >= count - failed.length && all.every((task) => FINAL.includes(task.status)),
      2_000,
      deadline,
    );
    sampling = false;
    await sampler;

    const succeeded = tasks.filter((task) => task.status === 'success');
    const finishedAt = succeeded.map((task) => Date.parse(task.finished_at!));
    const wallSeconds = (Math.max(...finishedAt) - started) / 1000;
    const slots = ACCOUNTS.reduce((sum, account) => sum + account.capacity, 0);
    const generationSeconds = (QUEUED_MS + RUNNING_MS) / 1000;
    const idealSeconds = Math.ceil(tasks.length / slots) * generationSeconds + transferSeconds;
    const backlog = samples.filter((s) => s.waiting > 0);
    const lastStart = samples.findIndex((s) => s.jobs >= tasks.length);
    const untilLastStart = samples.slice(0, lastStart < 0 ? samples.length : lastStart + 1);
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const stats = await simulatorStats(simulator);
    const { accounts, waiting } = await stack.admin.upstreamAccounts();
    const jobs = await stack.upstreamJobs();
    const latencies = succeeded.map((task) => (Date.parse(task.finished_at!) - Date.parse(task.created_at)) / 1000);
    const result: CapacityResult = {
      tasks: count,
      accounts: ACCOUNTS,
      slots,
      maxQueuedPerAccount: stats.maxQueuedPerAccount,
      generationSeconds,
      submitConcurrency: concurrency,
      accepted: count - failed.length,
      submitErrors,
      created: tasks.length,
      succeeded: succeeded.length,
      refunded: tasks.filter((task) => task.status === 'refunded' || task.status === 'failed').length,
      notSucceeded: countBy(
        tasks.filter((task) => task.status !== 'success'),
        (task) => task.status,
      ),
      failureReasons: countBy(
        tasks.filter((task) => task.status === 'failed' || task.status === 'refunded'),
        (task) => (task.error_message ?? '(none)').slice(0, 160),
      ),
      tasksWithOneJob: tasks.filter((task) => jobs.prompts[task.generation.prompt] === 1).length,
      ...(await checkMoney(stack, key, tasks, openingUnits)),
      submitSeconds,
      wallSeconds,
      transferSeconds,
      idealSeconds,
      backlogSamples: backlog.length,
      backlogSeconds: backlog.length > 0 ? (backlog.at(-1)!.at - backlog[0]!.at) / 1000 : 0,
      upstreamInUseMean: mean(backlog.map((s) => s.upstream)),
      upstreamInUseMeanUntilLastStart: mean(untilLastStart.map((s) => s.upstream)),
      slotsTakenMean: mean(backlog.map((s) => s.taken)),
      machineBusyShare: busyShare(backlog),
      peakQueued: Object.fromEntries(
        ACCOUNTS.map((account, i) => [account.name, stats.accounts[i]?.peakQueued ?? Number.NaN]),
      ),
      accountsTurnedAway: accounts
        .filter((account) => (account.cool_streak ?? 0) > 0 || account.cool_until !== undefined || !account.enabled)
        .map((account) => `${account.name}${account.enabled ? ` cooled until ${account.cool_until}` : ' disabled'}`),
      slotsTakenAtEnd: accounts.reduce((sum, account) => sum + account.in_use, 0),
      waitingAtEnd: Object.values(waiting).reduce((sum, n) => sum + n, 0),
      latencyP50Seconds: percentile(latencies, 0.5),
      latencyP99Seconds: percentile(latencies, 0.99),
      timeline: perSecond(samples, started),
    };
    if (result.refunded > 0) log(`failed: ${JSON.stringify(result.failureReasons)}`);
    log(
      `${result.succeeded}/${count} succeeded, ${result.refunded} refunded, balance ${result.balanceExact ? 'exact' : 'NOT exact'}; ` +
        `${result.wallSeconds.toFixed(1)} s (ideal ${idealSeconds.toFixed(1)} s: ${(wallSeconds / idealSeconds).toFixed(2)}×); ` +
        `upstream slots in use while tasks waited: ${result.upstreamInUseMean.toFixed(0)} of ${slots} on average ` +
        `(${result.backlogSeconds.toFixed(0)} s); peak queued per account ${JSON.stringify(result.peakQueued)}`,
    );
    return result;
  } finally {
    await stack.stop();
  }
}

/** A few tasks first (another account): the bundles load, and a finished job gives the transfer's time. */
async function warmUp(stack: StackProcess, simulator: string, log: (line: string) => void): Promise<number> {
  const accountId = `capacity-warm-${randomUUID().slice(0, 8)}`;
  await stack.admin.createAccount(accountId, '1000');
  const { key } = await stack.admin.createKey({ accountId, ratePerSecond: 1_000_000 });
  log('warming up: 8 tasks ...');
  await submitAll(
    stack.ready.baseUrl,
    key,
    Array.from({ length: 8 }, (_, i) => `${accountId} #${i}`),
  );
  const tasks = await pollUntil(
    () => stack.tasks(accountId),
    (all) => all.every((task) => FINAL.includes(task.status)),
    500,
    Date.now() + 120_000,
  );
  const done = tasks.find((task) => task.status === 'success' && task.upstream_job_id);
  if (!done) throw new Error(`warm-up: no task succeeded (${JSON.stringify(countBy(tasks, (t) => t.status))})`);
  const transfer = await measureTransfer(stack, simulator, done.upstream_job_id!);
  log(`warm-up done; one transfer of the ${transfer.bytes}-byte video: ${(transfer.seconds * 1000).toFixed(0)} ms`);
  return transfer.seconds;
}

async function sample(stack: StackProcess, simulator: string, jobsBefore: number): Promise<Sample> {
  const at = Date.now();
  const [stats, { accounts, waiting }, jobs] = await Promise.all([
    simulatorStats(simulator),
    stack.admin.upstreamAccounts(),
    stack.upstreamJobs(),
  ]);
  return {
    at,
    upstream: stats.keys.reduce((sum, key) => sum + key.unfinished, 0),
    taken: accounts.reduce((sum, account) => sum + account.in_use, 0),
    waiting: Object.values(waiting).reduce((sum, n) => sum + n, 0),
    jobs: jobs.total - jobsBefore,
    cpu: cpuTimes(),
  };
}

function busyShare(window: Sample[]): number {
  const first = window[0]?.cpu;
  const last = window.at(-1)?.cpu;
  if (!first || !last || last.totalMs <= first.totalMs) return Number.NaN;
  return (last.busyMs - first.busyMs) / (last.totalMs - first.totalMs);
}

function perSecond(samples: Sample[], started: number): CapacityResult['timeline'] {
  const buckets = new Map<number, Sample[]>();
  for (const s of samples) {
    const second = Math.floor((s.at - started) / 1000);
    buckets.set(second, [...(buckets.get(second) ?? []), s]);
  }
  return [...buckets.entries()].map(([second, group]) => ({
    second,
    upstream: Math.round(group.reduce((sum, s) => sum + s.upstream, 0) / group.length),
    waiting: Math.round(group.reduce((sum, s) => sum + s.waiting, 0) / group.length),
  }));
}
