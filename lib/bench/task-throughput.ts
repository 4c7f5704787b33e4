/**
 * Section 4, whole tasks: 1,000 submits at once on one account, through the local stack (in a child
 * process, the simulated upstream fast) to their end. Every task must succeed with exactly one upstream
 * job, and the balance and the key's spend must be exact to the unit (0.0001 CNY).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { hashApiKey } from '../../functions/core/api-key.js';
import { startStackProcess } from './stack-client.js';

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
  log('starting the local stack (simulated upstream: 150 ms queued, 300 ms running; polls every second) ...');
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
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    log(`submitting ${count} tasks at once ...`);
    const started = Date.now();
    const deadline = started + Number(process.env['BENCH_TASKS_DEADLINE_SECONDS'] ?? 180) * 1000;
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        fetch(`${stack.ready.baseUrl}/api/v1/video/generate`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            model: 'seedance-1.0-lite-i2v',
            prompt: `${accountId} #${i}`,
            duration: 5,
            // An image-to-video model: an image is required; the simulator never fetches it.
            image_urls: ['https://93.184.215.14/boat.png'],
          }),
        }).then(
          async (response) => (response.ok ? 'ok' : `${response.status} ${(await response.text()).slice(0, 100)}`),
          (error: Error) => `no answer: ${String(error.cause ?? error.message)}`,
        ),
      ),
    );
    const submitErrors: Record<string, number> = {};
    for (const answer of answers.filter((a) => a !== 'ok')) submitErrors[answer] = (submitErrors[answer] ?? 0) + 1;
    const accepted = count - answers.filter((a) => a !== 'ok').length;
    const submitSeconds = (Date.now() - started) / 1000;
    log(
      `${accepted} accepted in ${submitSeconds.toFixed(1)} s ${JSON.stringify(submitErrors)}; waiting for the tasks ...`,
    );

    let tasks = await stack.tasks(accountId);
    while (tasks.some((task) => !FINAL.includes(task.status)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      tasks = await stack.tasks(accountId);
      const byStatus: Record<string, number> = {};
      for (const task of tasks) byStatus[task.status] = (byStatus[task.status] ?? 0) + 1;
      log(`${((Date.now() - started) / 1000).toFixed(0)} s: ${JSON.stringify(byStatus)}`);
    }
    const succeeded = tasks.filter((task) => task.status === 'success');
    const notSucceeded: Record<string, number> = {};
    for (const task of tasks.filter((t) => t.status !== 'success')) {
      notSucceeded[task.status] = (notSucceeded[task.status] ?? 0) + 1;
    }
    const latencies = succeeded
      .map((task) => (Date.parse(task.finished_at!) - Date.parse(task.created_at)) / 1000)
      .sort((a, b) => a - b);
    const percentile = (p: number) => latencies[Math.max(0, Math.ceil(p * latencies.length) - 1)] ?? Number.NaN;
    const lastFinish = Math.max(...tasks.map((task) => Date.parse(task.finished_at ?? task.updated_at)));

    const balance = await fetch(`${stack.ready.baseUrl}/api/v1/account/balance`, { headers });
    const balanceUnits = Math.round(((await balance.json()) as { data: { balance: number } }).data.balance * 10_000);
    const keyItem = await stack.db.send(
      new GetCommand({ TableName: stack.ready.names.tables['apiKeys'], Key: { key_hash: hashApiKey(key) } }),
    );
    const keySpentUnits = Number(keyItem.Item?.['spent_units'] ?? 0);
    const charged = tasks
      .filter((task) => !['failed', 'refunded'].includes(task.status))
      .reduce((total, task) => total + task.cost_units, 0);
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
      latencyP50Seconds: percentile(0.5),
      latencyP99Seconds: percentile(0.99),
      expectedBalanceUnits: openingUnits - charged,
      balanceUnits,
      keySpentUnits,
      balanceExact: balanceUnits === openingUnits - charged && keySpentUnits === charged,
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
