/**
 * Section 7, completion latency: from the moment the upstream job succeeded (the simulator's history) to the
 * task's success (its finished_at, set by CompleteTask), with a small video. Three ways a finished job is
 * noticed, on one local stack: the upstream's callback; a customer's GET that sees the job finished (jobs that
 * never call back, whose fallback look is a minute away); and that fallback look alone, every 60 s as in AWS
 * without callbacks (COMPLETION_POLL_SECONDS' default).
 */
import type { TaskRecord } from '../../../functions/core/task.js';
import { check, fixed, seconds, table } from './report.js';
import type { Section } from './report.js';
import { getJson } from '../local/stack-child-client.js';
import type { StackProcess } from '../local/stack-child-client.js';
import { BENCH_ENVIRONMENT, countBy, env, FINAL, mean, measureTransfer, openAccount } from './task-client.js';
import { percentile, pollUntil, sleep, submitTask, withStack } from './task-client.js';

/** AwaitCompletion's timeout for jobs that do not call back here: AWS's COMPLETION_POLL_SECONDS default. */
const CHECK_SECONDS = 60;
const NO_CALLBACK = '[simulate:no-callback]';
/** Job lengths spread over the fallback's period (+0, +20, +30, +50 s), so its phase is sampled. */
const SPREAD = ['', '[simulate:slow]', '[simulate:queued]', '[simulate:slow] [simulate:queued]'];
/** Callbacks' p50 and p99; a GET's, over the transfer's own time: seconds. */
const [P50, P99, OVER_TRANSFER] = [1, 3, 2];

type Latency = ReturnType<typeof figures>;
/** Seconds. */
const figures = (values: number[]) => ({
  count: values.length,
  p50: percentile(values, 0.5),
  p99: percentile(values, 0.99),
  max: values.length ? Math.max(...values) : Number.NaN,
  mean: values.length ? mean(values) : Number.NaN,
});
const latency = (l: Latency) =>
  `p50 ${seconds(l.p50, 2)}, p99 ${seconds(l.p99, 2)}, max ${seconds(l.max, 2)} (${l.count} tasks)`;
/** The simulator's view of one job (GET /simulator/jobs/{id}): its status changes, its callbacks. */
type SimulatedJob = { status: string; history: { status: string; at: string }[]; callbacks: Callback[] };
type Callback = { status: string; attempt: number; acknowledged: boolean };
const simulatedJob = (stack: StackProcess, id: string) =>
  getJson<SimulatedJob>(`${stack.simulator}/simulator/jobs/${encodeURIComponent(id)}`);
type QueryOutcome = { taskId: string; sentAt?: number; answeredAt?: number; status?: string };

export async function runCompletion(log: (line: string) => void): Promise<Section> {
  const callbackTasks = env('BENCH_COMPLETION_TASKS', 50);
  const queryTasks = env('BENCH_COMPLETION_QUERY_TASKS', 20);
  const pollingTasks = env('BENCH_COMPLETION_POLLING_TASKS', 20);
  log(`starting the local stack (jobs 100 ms queued, 2 s running; silent ones looked at every ${CHECK_SECONDS} s) ...`);
  // Jobs here are made with a callback URL; [simulate:no-callback] ones stay silent and wait for this look.
  const environment = { ...BENCH_ENVIRONMENT, COMPLETION_CHECK_SECONDS: String(CHECK_SECONDS) };
  const options = { upstream: { queuedMs: 100, runningMs: 2_000 }, pollIntervalSeconds: CHECK_SECONDS, environment };
  return withStack(options, async (stack) => {
    const { accountId, key } = await openAccount(stack, 'completion');
    const submit = async (prompt: string) => {
      const answer = await submitTask(stack, key, `${accountId} ${prompt}`);
      if (!answer.taskId) throw new Error(`submit failed: ${answer.outcome}`);
      return answer.taskId;
    };
    /** `count` tasks, one every 200 ms, until all are final: job succeeded → success for each. */
    const oneByOne = async (what: string, count: number, marker = (_i: number) => '', waitSeconds = 60) => {
      log(`${what}: ${count} tasks, one every 200 ms ...`);
      const ids: string[] = [];
      for (let i = 0; i < count; i += 1) {
        ids.push(await submit(`${what} #${i}${marker(i)}`));
        await sleep(200);
      }
      const records = (await finalTasks(stack, ids, Date.now() + waitSeconds * 1000)).filter((t) => t.upstream_job_id);
      const jobs = await Promise.all(records.map((task) => simulatedJob(stack, task.upstream_job_id!)));
      const values = records.map((task, i) => {
        const at = jobs[i]!.history.find((step) => step.status === 'succeeded')?.at ?? 'x';
        return task.status === 'success' ? (Date.parse(task.finished_at ?? 'x') - Date.parse(at)) / 1000 : NaN;
      });
      const succeeded = records.filter((task) => task.status === 'success');
      const latency = figures(values.filter(Number.isFinite));
      return { succeeded, jobs, all: `${succeeded.length} / ${count}`, latency };
    };

    const callbacks = await oneByOne('callback', callbackTasks);
    const acknowledged = callbacks.jobs.filter((j) =>
      j.callbacks.some((c) => c.status === 'succeeded' && c.attempt === 1 && c.acknowledged),
    ).length;
    const done = callbacks.succeeded[0]?.upstream_job_id;
    const transfer = done ? await measureTransfer(stack, done) : { seconds: Number.NaN, bytes: '?' };
    log(`one transfer of the ${transfer.bytes}-byte video on its own: ${fixed(transfer.seconds * 1000, 0)} ms`);

    log(`queries: ${queryTasks} tasks whose jobs never call back, each GET as soon as its job succeeded ...`);
    const queries = await Promise.all(
      Array.from({ length: queryTasks }, async (_, i) => {
        await sleep(i * 250);
        return queryAfterSuccess(stack, key, await submit(`query #${i} ${NO_CALLBACK}`));
      }),
    );
    const ids = queries.map((q) => q.taskId);
    const queried = await finalTasks(stack, ids, Date.now() + 60_000);
    const finishedAt = new Map(queried.map((task) => [task.task_id, Date.parse(task.finished_at ?? 'x')]));
    // A task settled before its GET came (by AwaitCompletion's own look) is counted, not measured.
    const measured = queries.filter((q) => q.sentAt !== undefined);
    const query = figures(measured.map((q) => (finishedAt.get(q.taskId)! - q.sentAt!) / 1000).filter(Number.isFinite));
    const answer = figures(measured.map((q) => (q.answeredAt! - q.sentAt!) / 1000));
    const answered = Object.entries(countBy(measured, (q) => q.status ?? 'none')).map(([s, n]) => `${n}× ${s}`);
    const querySucceeded = `${queried.filter((task) => task.status === 'success').length} / ${queryTasks}`;

    // Last, on its own: these wait up to a minute for their look.
    const spread = (i: number) => ` ${NO_CALLBACK} ${SPREAD[i % SPREAD.length]}`;
    const polling = await oneByOne('polling', pollingTasks, spread, CHECK_SECONDS * 2 + 30);
    const [cb, limit] = [callbacks.latency, transfer.seconds + OVER_TRANSFER];
    const all = [callbacks.all, querySucceeded, polling.all];
    const got = `${latency(query)}; the GET itself p50 ${seconds(answer.p50, 2)}`;
    const getLimit = `≤ ${seconds(limit, 2)} each (transfer ${fixed(transfer.seconds * 1000, 0)} ms + ${OVER_TRANSFER} s)`;
    const getMet = query.count > 0 && query.max <= limit;
    const checks = [
      check('Callbacks: job succeeded → success, p50', seconds(cb.p50, 2), `≤ ${P50} s`, cb.p50 <= P50),
      check('Callbacks: job succeeded → success, p99', seconds(cb.p99, 2), `≤ ${P99} s`, cb.p99 <= P99),
      check('A GET that sees the job finished → success (no callback)', got, getLimit, getMet),
      check('Tasks succeeded (callbacks; queries; fallback)', all.join('; '), 'all', all.every(isAll)),
      check(
        `No callback, nobody asks: the look every ${CHECK_SECONDS} s`,
        `${latency(polling.latency)}, mean ${seconds(polling.latency.mean)}`,
      ),
      check('Callbacks: final callback acknowledged at its first attempt', `${acknowledged} / ${callbackTasks}`),
      check(
        'Queries: answered; settled before the GET (not measured)',
        `${answered.join(', ')}; ${queries.length - measured.length}`,
      ),
    ];
    const groups: [string, Latency][] = [
      ['Callback', cb],
      ['GET that sees the job finished (from the GET)', query],
      [`Fallback look every ${CHECK_SECONDS} s`, polling.latency],
    ];
    const latencies = table(groups, {
      'Job end noticed by': ([name]) => name,
      Tasks: ([, l]) => l.count,
      'p50 (s)': ([, l]) => fixed(l.p50, 2),
      'p99 (s)': ([, l]) => fixed(l.p99, 2),
      'Max (s)': ([, l]) => fixed(l.max, 2),
      'Mean (s)': ([, l]) => fixed(l.mean, 2),
    });
    return { checks, blocks: [latencies] };
  });
}

/** "n / n". */
const isAll = (ratio: string) => new Set(ratio.split(' / ')).size === 1;

/** The tasks' records once all are final (or at the deadline). */
async function finalTasks(stack: StackProcess, taskIds: string[], deadline: number): Promise<TaskRecord[]> {
  const read = () => Promise.all(taskIds.map((id) => stack.task(id)));
  const records = await pollUntil(read, (all) => all.every((t) => t && FINAL.includes(t.status)), 500, deadline);
  return records.filter((task) => task !== undefined);
}

/** Waits for the task's job to succeed upstream (polling the simulator), then GETs the task once. */
async function queryAfterSuccess(stack: StackProcess, key: string, taskId: string): Promise<QueryOutcome> {
  const deadline = Date.now() + 60_000;
  const started = (t?: TaskRecord) => t?.upstream_job_id !== undefined || (t !== undefined && FINAL.includes(t.status));
  const task = await pollUntil(() => stack.task(taskId), started, 50, deadline);
  if (!task?.upstream_job_id) return { taskId };
  const succeeded = (j: SimulatedJob) => j.status === 'succeeded';
  await pollUntil(() => simulatedJob(stack, task.upstream_job_id!), succeeded, 50, deadline);
  const before = await stack.task(taskId);
  if (!before || (before.status !== 'pending' && before.status !== 'running')) return { taskId };
  const sentAt = Date.now();
  const answer = await stack.api(key, `/api/v1/video/tasks/${taskId}`);
  const answeredAt = Date.now();
  const body = (await answer.json()) as { data?: { status?: string } };
  return { taskId, sentAt, answeredAt, status: body.data?.status ?? `HTTP ${answer.status}` };
}
