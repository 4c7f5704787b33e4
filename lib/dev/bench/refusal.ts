/**
 * Section 6, sustained refusal: the simulated upstream refuses every create (429 QuotaExceeded) for 10 minutes
 * while tasks wait, then recovers. On the service's real clock (cool-downs of up to 5 min, a probe at a time).
 * Counted: the creates sent into the refusal, per account and minute; each waiting task's state transitions
 * and history events; whether every task then succeeds, with the money exact and no slot left taken.
 */
import { HISTORY_EVENT_LIMIT } from '../local/step-functions-server.js';
import { check, fixed, seconds } from './report.js';
import type { Section } from './report.js';
import { getJson } from '../local/stack-child-client.js';
import { env, FAST_TWO_ACCOUNTS, runBurst, sampleEvery, simulatorStats, slotsAndWaiting } from './task-client.js';
import { warmUp, withStack } from './task-client.js';

/** After the first burst: creates per account and minute. */
const REFUSED_PER_MINUTE = 3;
const ACCOUNTS = 2;

export async function runRefusal(log: (line: string) => void): Promise<Section> {
  const [refusalSeconds, count] = [env('BENCH_REFUSAL_SECONDS', 600), env('BENCH_REFUSAL_TASKS', 40)];
  log(`starting the local stack (${ACCOUNTS} accounts of 120 slots; jobs of 0.4 s) ...`);
  return withStack(FAST_TWO_ACCOUNTS, async (stack) => {
    await warmUp(stack, log);
    const before = await simulatorStats(stack);
    const refuse = `${stack.simulator}/simulator/refuse?seconds=${refusalSeconds}&code=QuotaExceeded`;
    const { until } = await getJson<{ until: string }>(refuse, { method: 'POST' });
    const windowEnd = Date.parse(until);
    log(`the upstream refuses every create until ${until}; submitting ${count} tasks at once ...`);
    // Per second: refused creates so far, and the jobs made.
    const marks: { at: number; refused: number; jobs: number }[] = [];
    const stopSampling = sampleEvery(1_000, async () => {
      const [stats, jobs] = await Promise.all([simulatorStats(stack), stack.upstreamJobs()]);
      marks.push({ at: Date.now(), refused: stats.refusedCreates - before.refusedCreates, jobs: jobs.total });
    });
    const progress = () => `${marks.at(-1)?.refused ?? 0} creates refused; `;
    const deadlineSeconds = refusalSeconds + env('BENCH_REFUSAL_RECOVERY_SECONDS', 900);
    const burst = await runBurst(stack, { prefix: 'refusal', count, deadlineSeconds, log }, progress);
    await stopSampling();
    const refused = (await simulatorStats(stack)).refusedCreates - before.refusedCreates;
    const upTo = (end: number) => marks.filter((mark) => mark.at <= end).at(-1)?.refused ?? 0;
    // The first burst: creates refused within 2 s of the first refusal (slots handed out before a 429 came back).
    const firstBurst = upTo((marks.find((mark) => mark.refused > 0)?.at ?? burst.started) + 2_000);
    const perMinute = Array.from({ length: Math.ceil(refusalSeconds / 60) }, (_, minute) => {
      const start = burst.started + minute * 60_000;
      return upTo(start + 60_000) - upTo(start);
    });
    const rate = (refused - firstBurst) / ACCOUNTS / (refusalSeconds / 60);
    const jobsAtEnd = marks.find((mark) => mark.at >= windowEnd)?.jobs ?? 0;
    const firstJob = marks.find((mark) => mark.at >= windowEnd && mark.jobs > jobsAtEnd)?.at ?? Number.NaN;
    const allFinal = burst.started + burst.wallSeconds * 1000;
    const ids = burst.tasks.map((task) => task.task_id);
    const executions = (await stack.executions()).filter((e) => ids.some((id) => e.name.startsWith(id)));
    const transitions = executions.map((e) => e.transitions);
    const historyMax = Math.max(...executions.map((e) => e.historyEvents));
    const history = `${fixed(transitions.reduce((a, b) => a + b, 0) / transitions.length)}; ${Math.max(...transitions)}; ${historyMax}`;
    const underLimit = historyMax < HISTORY_EVENT_LIMIT;
    const end = await slotsAndWaiting(stack);
    const during = `Creates refused during the ${refusalSeconds / 60}-minute refusal, after the first burst`;
    const perAccount = `${refused - firstBurst}: ${fixed(rate, 2)} per account and minute (${ACCOUNTS} accounts)`;
    const recovery = `${seconds((firstJob - windowEnd) / 1000)}; ${seconds((allFinal - windowEnd) / 1000)}`;
    const checks = [
      check(during, perAccount, `≤ ${REFUSED_PER_MINUTE} per account and minute`, rate <= REFUSED_PER_MINUTE),
      check('The first burst (slots handed out before the first 429 came back)', `${firstBurst} of ${count} tasks`),
      check('Refused creates in each minute of the refusal', perMinute.join(', ')),
      ...burst.checks,
      check('Transitions per task (mean; most); history events (most)', history, '< 25,000 events', underLimit),
      check('Slots taken; waiting, at the end', `${end.taken}; ${end.waiting}`, '0; 0', !end.taken && !end.waiting),
      check('Refusal over → first job made; → every task final', recovery),
    ];
    return { checks };
  });
}
