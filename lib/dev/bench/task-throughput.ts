/**
 * Section 4, whole tasks: 1,000 submits at once on one account, through the local stack (in a child process, the
 * simulated upstream fast) to their end, held to what every burst is held to (lib/dev/bench/task-client.ts).
 */
import { check, fixed, seconds } from './report.js';
import { env, runBurst, withStack } from './task-client.js';

export async function runTaskThroughput(log: (line: string) => void) {
  log('starting the local stack (simulated upstream: 150 ms queued, 300 ms running, calling back) ...');
  return withStack({ upstream: { queuedMs: 150, runningMs: 300 } }, async (stack) => {
    const [count, deadlineSeconds] = [env('BENCH_TASKS', 1_000), env('BENCH_TASKS_DEADLINE_SECONDS', 180)];
    log(`submitting ${count} tasks at once ...`);
    const b = await runBurst(stack, { prefix: 'throughput', count, deadlineSeconds, log });
    const last = `${seconds(b.wallSeconds)} (${fixed(b.succeeded / b.wallSeconds)} tasks/s)`;
    return { checks: [...b.checks, check('Last task final', last)] };
  });
}
