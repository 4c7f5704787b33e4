/**
 * Section 4, whole tasks: 1,000 submits at once on one account, through the local stack (in a child process, the
 * simulated upstream fast) to their end, held to what every burst is held to (lib/dev/bench/task-client.ts); and
 * the workflow process's peak memory, as the burst reaches `transferring` together.
 */
import { check, fixed, seconds } from './report.js';
import { env, runBurst, withStack } from './task-client.js';
import { workflowPeakRssMiB } from './workflow-memory.js';

/** The workflow process's peak RSS through the burst: TransferVideo held to its 50 (docs/local-stack.md). */
const PEAK_RSS_MIB = 1024;

export async function runTaskThroughput(log: (line: string) => void) {
  log('starting the local stack (simulated upstream: 150 ms queued, 300 ms running, calling back) ...');
  return withStack({ upstream: { queuedMs: 150, runningMs: 300 } }, async (stack) => {
    const [count, deadlineSeconds] = [env('BENCH_TASKS', 1_000), env('BENCH_TASKS_DEADLINE_SECONDS', 180)];
    log(`submitting ${count} tasks at once ...`);
    const b = await runBurst(stack, { prefix: 'throughput', count, deadlineSeconds, log });
    const last = `${seconds(b.wallSeconds)} (${fixed(b.succeeded / b.wallSeconds)} tasks/s)`;
    const peak = workflowPeakRssMiB(stack);
    const rss = check(
      'Workflow process peak RSS',
      `${fixed(peak, 0)} MiB`,
      `≤ ${PEAK_RSS_MIB} MiB`,
      peak <= PEAK_RSS_MIB,
    );
    return { checks: [...b.checks, check('Last task final', last), rss] };
  });
}
