/**
 * Section 4, whole tasks: 1,000 submits at once on one account, through the local stack (in a child process,
 * the simulated upstream fast) to their end. Every task must succeed with exactly one upstream job, and the
 * balance and the key's spend must be exact to the unit (0.0001 CNY).
 */
import { startStackProcess } from './stack-client.js';
import { BENCH_ENVIRONMENT, runBurst } from './task-client.js';

export async function runTaskThroughput(log: (line: string) => void) {
  const count = Number(process.env['BENCH_TASKS'] ?? 1_000);
  log('starting the local stack (simulated upstream: 150 ms queued, 300 ms running, calling back) ...');
  const stack = await startStackProcess({
    upstream: { queuedMs: 150, runningMs: 300 },
    environment: BENCH_ENVIRONMENT,
  });
  try {
    log(`submitting ${count} tasks at once ...`);
    const deadlineSeconds = Number(process.env['BENCH_TASKS_DEADLINE_SECONDS'] ?? 180);
    return (await runBurst(stack, { prefix: 'throughput', count, deadlineSeconds, log })).result;
  } finally {
    await stack.stop();
  }
}
