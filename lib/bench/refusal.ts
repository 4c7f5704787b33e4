/**
 * Section 6, sustained refusal: the simulated upstream refuses every create (429 QuotaExceeded) for 10 minutes
 * while tasks wait, then recovers. On the service's real clock (cool-downs of up to 5 min, a probe at a time).
 * Counted: the creates sent into the refusal, per account and minute; each waiting task's state transitions
 * and history events; whether every task then succeeds, with the money exact and no slot left taken.
 */
import { warmUp } from './capacity.js';
import { startStackProcess } from './stack-client.js';
import { BENCH_ENVIRONMENT, leftOver, runBurst, sampleEvery, simulatorStats } from './task-client.js';

export type RefusalResult = Awaited<ReturnType<typeof runRefusal>>;

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ACCOUNTS = ['a', 'b'].map((name) => ({ name, capacity: 120 }));

export async function runRefusal(log: (line: string) => void) {
  const refusalSeconds = env('BENCH_REFUSAL_SECONDS', 600);
  const count = env('BENCH_REFUSAL_TASKS', 40);
  log('starting the local stack (2 accounts of 120 slots; jobs of 0.4 s) ...');
  const stack = await startStackProcess({
    upstreamAccounts: ACCOUNTS,
    upstream: { queuedMs: 100, runningMs: 300 },
    environment: BENCH_ENVIRONMENT,
  });
  try {
    const simulator = stack.ready.endpoints.upstreams.ark.baseUrl;
    await warmUp(stack, undefined, log);
    const before = await simulatorStats(simulator);
    const refuse = await fetch(`${simulator}/simulator/refuse?seconds=${refusalSeconds}&code=QuotaExceeded`, {
      method: 'POST',
    });
    const { until } = (await refuse.json()) as { until: string };
    const windowEnd = Date.parse(until);
    log(`the upstream refuses every create until ${until}; submitting ${count} tasks at once ...`);
    // Per second: refused creates so far, and the jobs made.
    const marks: { at: number; refused: number; jobs: number }[] = [];
    const stopSampling = sampleEvery(1_000, async () => {
      const [stats, jobs] = await Promise.all([simulatorStats(simulator), stack.upstreamJobs()]);
      marks.push({ at: Date.now(), refused: stats.refusedCreates - before.refusedCreates, jobs: jobs.total });
    });
    const progress = () => `${marks.at(-1)?.refused ?? 0} creates refused; `;
    const deadlineSeconds = refusalSeconds + env('BENCH_REFUSAL_RECOVERY_SECONDS', 900);
    const burst = await runBurst(stack, { prefix: 'refusal', count, deadlineSeconds, log }, progress);
    await stopSampling();
    const { refusedCreates } = await simulatorStats(simulator);
    const refused = refusedCreates - before.refusedCreates;
    // The first burst: creates refused within the first 2 s of refusals (slots handed out before a 429 returned).
    const firstAt = marks.find((mark) => mark.refused > 0)?.at ?? burst.started;
    const firstBurst = marks.filter((mark) => mark.at <= firstAt + 2_000).at(-1)?.refused ?? 0;
    const minutes = Math.ceil(refusalSeconds / 60);
    const refusedPerMinute = Array.from({ length: minutes }, (_, minute) => {
      const upTo = (end: number) => marks.filter((mark) => mark.at <= end).at(-1)?.refused ?? 0;
      return upTo(burst.started + (minute + 1) * 60_000) - upTo(burst.started + minute * 60_000);
    });
    const jobsAtEnd = marks.find((mark) => mark.at >= windowEnd)?.jobs ?? 0;
    const firstJob = marks.find((mark) => mark.at >= windowEnd && mark.jobs > jobsAtEnd)?.at ?? Number.NaN;
    const ids = new Set(burst.tasks.map((task) => task.task_id));
    const executions = (await stack.executions()).filter((e) => [...ids].some((id) => e.name.startsWith(id)));
    const transitions = executions.map((e) => e.transitions);
    const atEnd = await leftOver(stack);
    const result = {
      ...burst.result,
      refusalSeconds,
      accounts: ACCOUNTS.length,
      refusedCreates: refused,
      firstBurst,
      refusedPerMinute,
      perAccountPerMinute: (refused - firstBurst) / ACCOUNTS.length / (refusalSeconds / 60),
      firstJobAfterSeconds: (firstJob - windowEnd) / 1000,
      allFinalAfterSeconds: (burst.started + burst.result.wallSeconds * 1000 - windowEnd) / 1000,
      transitionsMean: transitions.reduce((a, b) => a + b, 0) / transitions.length,
      transitionsMax: Math.max(...transitions),
      historyEventsMax: Math.max(...executions.map((e) => e.historyEvents)),
      slotsTakenAtEnd: atEnd.slotsTakenAtEnd,
      waitingAtEnd: atEnd.waitingAtEnd,
    };
    log(
      `${refused} creates refused in ${refusalSeconds} s (first burst ${firstBurst}; then ` +
        `${result.perAccountPerMinute.toFixed(2)} per account and minute); transitions per task: mean ` +
        `${result.transitionsMean.toFixed(1)}, max ${result.transitionsMax}`,
    );
    return result;
  } finally {
    await stack.stop();
  }
}
