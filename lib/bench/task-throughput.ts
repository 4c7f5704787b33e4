/**
 * Section 5, throughput of whole tasks: 1,000 tasks submitted at once, on one account, through the
 * local stack (in a child process, simulated upstream fast) to `success`. Reports the wall time of the
 * submits and of the whole batch, the per-task latency (created → finished), and checks that every task
 * succeeded, each has one upstream job, and the balance and the key's spend are exact.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { hashApiKey } from '../../functions/core/api-key.js';
import { startStackProcess } from './stack-client.js';
import { percentile, sum } from './stats.js';

export interface ThroughputResult {
  tasks: number;
  accepted: number;
  submitSeconds: number;
  totalSeconds: number;
  tasksPerSecond: number;
  succeeded: number;
  failed: number;
  latencyP50Seconds: number;
  latencyP99Seconds: number;
  upstreamJobs: number;
  tasksWithOneJob: number;
  openingUnits: number;
  expectedBalanceUnits: number;
  balanceUnits: number;
  keySpentUnits: number;
  balanceExact: boolean;
  executions: Record<string, number>;
  submitErrors: Record<string, number>;
  /** Tasks that did not succeed: `status: error message` → how many. */
  failures: Record<string, number>;
  /** Of the tasks that did not succeed, how many have a job upstream anyway (generated, never cancelled). */
  unsuccessfulWithUpstreamJob: number;
  timedOut: boolean;
}

const toUnits = (yuan: number) => Math.round(yuan * 10_000);

export async function runTaskThroughput(log: (line: string) => void): Promise<ThroughputResult> {
  const count = Number(process.env['BENCH_TASKS'] ?? 1_000);
  const deadlineSeconds = Number(process.env['BENCH_TASKS_DEADLINE_SECONDS'] ?? 180);
  log('starting the local stack (a child process, simulated upstream: 150 ms queued + 300 ms running) ...');
  const stack = await startStackProcess({
    upstream: { queuedMs: 150, runningMs: 300 },
    pollIntervalSeconds: 1,
    environment: { DEFAULT_RATE_LIMIT_PER_SECOND: '1000000', POWERTOOLS_LOG_LEVEL: 'ERROR' },
  });
  try {
    const run = randomUUID().slice(0, 8);
    const accountId = `throughput-${run}`;
    const opening = '100000';
    await stack.admin.createAccount(accountId, opening);
    const { key } = await stack.admin.createKey({ accountId, ratePerSecond: 1_000_000 });
    const base = stack.ready.baseUrl;

    log(`submitting ${count} tasks at once ...`);
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        try {
          const response = await fetch(`${base}/api/v1/video/generate`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'seedance-1.0-lite-i2v', prompt: `throughput ${run} #${i}`, duration: 5 }),
          });
          const body = (await response.json()) as { code: number; data: { task_id: string; cost: number } };
          return { status: response.status, body };
        } catch {
          return { status: 0, body: undefined };
        }
      }),
    );
    const submitSeconds = (Date.now() - started) / 1000;
    const submitErrors: Record<string, number> = {};
    const accepted = new Map<string, number>();
    for (const answer of answers) {
      if (answer.status === 200 && answer.body) accepted.set(answer.body.data.task_id, toUnits(answer.body.data.cost));
      else submitErrors[String(answer.status)] = (submitErrors[String(answer.status)] ?? 0) + 1;
    }
    log(`${accepted.size} accepted in ${submitSeconds.toFixed(1)} s; waiting for them to finish ...`);

    let records = await stack.tasks(accountId);
    let lastReport = Date.now();
    let timedOut = false;
    for (;;) {
      const finished = records.filter((task) => ['success', 'failed', 'refunded'].includes(task.status)).length;
      if (finished >= accepted.size) break;
      if (Date.now() - started > deadlineSeconds * 1000) {
        timedOut = true;
        break;
      }
      if (Date.now() - lastReport > 10_000) {
        const byStatus: Record<string, number> = {};
        for (const task of records) byStatus[task.status] = (byStatus[task.status] ?? 0) + 1;
        log(`  ${((Date.now() - started) / 1000).toFixed(0)} s: ${JSON.stringify(byStatus)}`);
        lastReport = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      records = await stack.tasks(accountId);
    }
    const lastFinish = Math.max(...records.map((task) => Date.parse(task.finished_at ?? task.updated_at)));
    const totalSeconds = (lastFinish - started) / 1000;
    const succeeded = records.filter((task) => task.status === 'success');
    const latencies = succeeded.map((task) => (Date.parse(task.finished_at!) - Date.parse(task.created_at)) / 1000);

    const balance = (await (
      await fetch(`${base}/api/v1/account/balance`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { data: { balance: number } };
    const keyItem = await stack.db.send(
      new GetCommand({ TableName: stack.ready.names.tables['apiKeys'], Key: { key_hash: hashApiKey(key) } }),
    );
    const charged = sum(succeeded.map((task) => task.cost_units));
    const inFlight = sum(
      records.filter((task) => ['pending', 'running', 'transferring'].includes(task.status)).map((t) => t.cost_units),
    );
    const openingUnits = toUnits(Number(opening));
    const expectedBalanceUnits = openingUnits - charged - inFlight;
    const balanceUnits = toUnits(balance.data.balance);
    const keySpentUnits = Number(keyItem.Item?.['spent_units'] ?? 0);
    const failures: Record<string, number> = {};
    for (const task of records.filter((record) => record.status !== 'success')) {
      const reason = `${task.status}: ${(task.error_message ?? '').slice(0, 160)}`;
      failures[reason] = (failures[reason] ?? 0) + 1;
    }
    const jobs = await stack.upstreamJobs();
    const prompts = records.map((task) => task.generation.prompt);
    const result: ThroughputResult = {
      tasks: count,
      accepted: accepted.size,
      submitSeconds,
      totalSeconds,
      tasksPerSecond: succeeded.length / totalSeconds,
      succeeded: succeeded.length,
      failed: records.filter((task) => task.status === 'failed' || task.status === 'refunded').length,
      latencyP50Seconds: percentile(latencies, 50),
      latencyP99Seconds: percentile(latencies, 99),
      upstreamJobs: jobs.total,
      tasksWithOneJob: prompts.filter((prompt) => jobs.prompts[prompt] === 1).length,
      openingUnits,
      expectedBalanceUnits,
      balanceUnits,
      keySpentUnits,
      balanceExact: balanceUnits === expectedBalanceUnits && keySpentUnits === charged + inFlight,
      executions: (await stack.executions()).byStatus,
      submitErrors,
      failures,
      unsuccessfulWithUpstreamJob: records.filter(
        (task) => task.status !== 'success' && (jobs.prompts[task.generation.prompt] ?? 0) > 0,
      ).length,
      timedOut,
    };
    log(
      `${result.succeeded}/${count} succeeded in ${totalSeconds.toFixed(1)} s (${result.tasksPerSecond.toFixed(1)} tasks/s), ` +
        `latency p50 ${result.latencyP50Seconds.toFixed(1)} s / p99 ${result.latencyP99Seconds.toFixed(1)} s, ` +
        `balance ${result.balanceExact ? 'exact' : 'NOT exact'}`,
    );
    return result;
  } finally {
    await stack.stop();
  }
}
