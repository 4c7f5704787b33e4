/**
 * Section 4, whole tasks: 1,000 submits at once on one account, through the local stack (in a child
 * process, the simulated upstream fast) to their end. Every task must succeed with exactly one upstream
 * job, and the balance and the key's spend must be exact to the unit (0.0001 CNY).
 */
import { randomUUID } from 'node:crypto';
import { startStackProcess } from './stack-client.js';
import { checkMoney, countBy, percentile, submitAll } from './task-client.js';

export interface ThroughputResult {
  tasks: number;
  accepted: number;
  /** Answers other than 2xx: status and the start of the body (or why none came) → how many. */
  submitErrors: Record<string, number>;
  succeeded: number;
  /** Final but not succeeded, or still in flight at the deadline: `status` → how many. */
  notSucceeded: Record<string, number>;
  tasksWithOneJob: number;
  submitSeconds: number;
  /** Submits sent → the last task final. */
  totalSeconds: number;
  latencyP50Seconds: number;
  latencyP99Seconds: number;
  /** In units of 0.0001 CNY: opening − Σ cost of the tasks that succeeded or are in flight. */
  expectedBalanceUnits: number;
  balanceUnits: number;
  keySpentUnits: number;
  balanceExact: boolean;
}

const FINAL = ['success', 'failed', 'refunded'];

export async function runTaskThroughput(log: (line: string) => void): Promise<ThroughputResult> {
  const count = Number(process.env['BENCH_TASKS'] ?? 1_000);
  log('starting the local stack (simulated upstream: 150 ms queued, 300 ms running, calling back) ...');
  const stack = await startStackProcess({
    upstream: { queuedMs: 150, runningMs: 300 },
    pollIntervalSeconds: 1,
    environment: { DEFAULT_RATE_LIMIT_PER_SECOND: '1000000', POWERTOOLS_LOG_LEVEL: 'ERROR' },
  });
  try {
    const accountId = `throughput-${randomUUID().slice(0, 8)}`;
    const openingUnits = 100_000 * 10_000;
    await stack.admin.createAccount(accountId, '100000');
    const { key } = await stack.admin.createKey({ accountId, ratePerSecond: 1_000_000 });
    log(`submitting ${count} tasks at once ...`);
    const started = Date.now();
    const deadline = started + Number(process.env['BENCH_TASKS_DEADLINE_SECONDS'] ?? 180) * 1000;
    const prompts = Array.from({ length: count }, (_, i) => `${accountId} #${i}`);
    const answers = await submitAll(stack.ready.baseUrl, key, prompts);
    const failed = answers.filter((answer) => answer.outcome !== 'ok');
    const submitErrors = countBy(failed, (answer) => answer.outcome);
    const accepted = count - failed.length;
    const submitSeconds = (Date.now() - started) / 1000;
    log(
      `${accepted} accepted in ${submitSeconds.toFixed(1)} s ${JSON.stringify(submitErrors)}; waiting for the tasks ...`,
    );

    let tasks = await stack.tasks(accountId);
    while (tasks.some((task) => !FINAL.includes(task.status)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      tasks = await stack.tasks(accountId);
      log(`${((Date.now() - started) / 1000).toFixed(0)} s: ${JSON.stringify(countBy(tasks, (task) => task.status))}`);
    }
    const succeeded = tasks.filter((task) => task.status === 'success');
    const notSucceeded = countBy(
      tasks.filter((t) => t.status !== 'success'),
      (task) => task.status,
    );
    const latencies = succeeded.map((task) => (Date.parse(task.finished_at!) - Date.parse(task.created_at)) / 1000);
    const lastFinish = Math.max(...tasks.map((task) => Date.parse(task.finished_at ?? task.updated_at)));
    const money = await checkMoney(stack, key, tasks, openingUnits);
    const jobs = await stack.upstreamJobs();
    const result: ThroughputResult = {
      tasks: count,
      accepted,
      submitErrors,
      succeeded: succeeded.length,
      notSucceeded,
      tasksWithOneJob: tasks.filter((task) => jobs.prompts[task.generation.prompt] === 1).length,
      submitSeconds,
      totalSeconds: (lastFinish - started) / 1000,
      latencyP50Seconds: percentile(latencies, 0.5),
      latencyP99Seconds: percentile(latencies, 0.99),
      ...money,
    };
    log(
      `${result.succeeded}/${count} succeeded in ${result.totalSeconds.toFixed(1)} s, ` +
        `balance ${result.balanceExact ? 'exact' : 'NOT exact'}`,
    );
    return result;
  } finally {
    await stack.stop();
  }
}
