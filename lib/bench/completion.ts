/**
 * Section 6, completion latency: from the moment the upstream job succeeded (the simulator's history) to the
 * task's success (its finished_at, set by CompleteTask), with a small video. Three ways a finished job is
 * noticed, on one local stack: the upstream's callback; a customer's GET that sees the job finished (jobs that
 * never call back, whose fallback look is a minute away); and that fallback look alone, every 60 s as in AWS
 * without callbacks (COMPLETION_POLL_SECONDS' default).
 */
import { getItem } from '../../functions/adapters/dynamodb-client.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { startStackProcess } from './stack-client.js';
import type { StackProcess } from './stack-client.js';
import { BENCH_ENVIRONMENT, countBy, FINAL, mean, measureTransfer, openAccount, percentile } from './task-client.js';
import { pollUntil, simulatedJob, submitTask, succeededAt } from './task-client.js';

export type LatencyFigures = ReturnType<typeof figures>;
export type CompletionResult = Awaited<ReturnType<typeof runCompletion>>;

const QUEUED_MS = 100;
const RUNNING_MS = 2_000;
/** AwaitCompletion's timeout for jobs that do not call back here: AWS's COMPLETION_POLL_SECONDS default. */
const CHECK_SECONDS = 60;
const NO_CALLBACK = '[simulate:no-callback]';
/** Job lengths spread over the fallback's period (+0, +20, +30, +50 s), so its phase is sampled. */
const SPREAD = ['', '[simulate:slow]', '[simulate:queued]', '[simulate:slow] [simulate:queued]'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Seconds. */
const figures = (values: number[]) => ({
  count: values.length,
  p50: percentile(values, 0.5),
  p99: percentile(values, 0.99),
  max: values.length ? Math.max(...values) : Number.NaN,
  mean: values.length ? mean(values) : Number.NaN,
});
const seconds = (value: LatencyFigures) => `p50 ${value.p50.toFixed(2)} s, p99 ${value.p99.toFixed(2)} s`;
const succeededOf = (tasks: TaskRecord[]) => tasks.filter((task) => task.status === 'success').length;

export async function runCompletion(log: (line: string) => void) {
  const callbackTasks = Number(process.env['BENCH_COMPLETION_TASKS'] ?? 50);
  const queryTasks = Number(process.env['BENCH_COMPLETION_QUERY_TASKS'] ?? 20);
  const pollingTasks = Number(process.env['BENCH_COMPLETION_POLLING_TASKS'] ?? 20);
  const submitEveryMs = 200;
  log(
    `starting the local stack (simulated upstream: ${QUEUED_MS} ms queued, ${RUNNING_MS / 1000} s running; ` +
      `a job that does not call back is looked at every ${CHECK_SECONDS} s) ...`,
  );
  const stack = await startStackProcess({
    upstream: { queuedMs: QUEUED_MS, runningMs: RUNNING_MS },
    pollIntervalSeconds: CHECK_SECONDS,
    // Jobs here are made with a callback URL; [simulate:no-callback] ones stay silent and wait for this look.
    environment: { ...BENCH_ENVIRONMENT, COMPLETION_CHECK_SECONDS: String(CHECK_SECONDS) },
  });
  try {
    const simulator = stack.ready.endpoints.upstreams.ark.baseUrl;
    const { accountId, key } = await openAccount(stack, 'completion');
    const submit = async (prompt: string) => {
      const answer = await submitTask(stack.ready.baseUrl, key, prompt);
      if (!answer.taskId) throw new Error(`submit failed: ${answer.outcome}`);
      return answer.taskId;
    };

    log(`callbacks: ${callbackTasks} tasks, one every ${submitEveryMs} ms ...`);
    const callbackIds: string[] = [];
    for (let i = 0; i < callbackTasks; i += 1) {
      callbackIds.push(await submit(`${accountId} callback #${i}`));
      await sleep(submitEveryMs);
    }
    const callbackRecords = await finalTasks(stack, callbackIds, Date.now() + 60_000);
    const callbackLatency = await latencies(simulator, callbackRecords);
    const acknowledged = await Promise.all(
      callbackRecords
        .filter((task) => task.upstream_job_id)
        .map(async (task) => {
          const job = await simulatedJob(simulator, task.upstream_job_id!);
          return job.callbacks.some((c) => c.status === 'succeeded' && c.attempt === 1 && c.acknowledged);
        }),
    );
    /** Jobs that call back: job succeeded → task success; final callbacks acknowledged (2xx in 5 s) at once. */
    const callback = {
      tasks: callbackTasks,
      submitEveryMs,
      succeeded: succeededOf(callbackRecords),
      latency: figures(callbackLatency),
      finalCallbacksAcknowledged: acknowledged.filter(Boolean).length,
    };
    log(
      `callbacks: ${callback.succeeded}/${callbackTasks} succeeded; job succeeded → success ${seconds(callback.latency)}`,
    );

    const done = callbackRecords.find((task) => task.status === 'success' && task.upstream_job_id);
    const transfer = done ? await measureTransfer(stack, simulator, done.upstream_job_id!) : undefined;
    const transferSeconds = transfer?.seconds ?? Number.NaN;
    log(
      `one transfer of the ${transfer?.bytes ?? '?'}-byte video on its own: ${(transferSeconds * 1000).toFixed(0)} ms`,
    );

    log(`queries: ${queryTasks} tasks whose jobs never call back, each GET as soon as its job succeeded ...`);
    const queries = await Promise.all(
      Array.from({ length: queryTasks }, async (_, i) => {
        await sleep(i * 250);
        return queryAfterSuccess(stack, simulator, key, await submit(`${accountId} query #${i} ${NO_CALLBACK}`));
      }),
    );
    const queryRecords = await finalTasks(
      stack,
      queries.map((q) => q.taskId),
      Date.now() + 60_000,
    );
    const measured = queries.filter((q) => q.sentAt !== undefined);
    const finishedAt = new Map(queryRecords.map((task) => [task.task_id, Date.parse(task.finished_at ?? 'x')]));
    // Jobs that never call back, each GET as soon as its job succeeded: GET sent → success, and → its answer.
    // A task settled before its GET came (by AwaitCompletion's own look) is counted, not measured.
    const query = {
      tasks: queryTasks,
      succeeded: succeededOf(queryRecords),
      settledBeforeQuery: queries.length - measured.length,
      latency: figures(measured.map((q) => (finishedAt.get(q.taskId)! - q.sentAt!) / 1000).filter(Number.isFinite)),
      answer: figures(measured.map((q) => (q.answeredAt! - q.sentAt!) / 1000)),
      answeredStatus: countBy(measured, (q) => q.answeredStatus ?? 'none'),
    };
    log(
      `queries: ${query.succeeded}/${queryTasks} succeeded; GET → success ${seconds(query.latency)} ` +
        `(max ${query.latency.max.toFixed(2)} s; the GET itself ${seconds(query.answer)})`,
    );

    // Last, on its own: these wait up to a minute for their look.
    log(`fallback look: ${pollingTasks} tasks whose jobs never call back, looked at every ${CHECK_SECONDS} s ...`);
    const pollingIds: string[] = [];
    for (let i = 0; i < pollingTasks; i += 1) {
      pollingIds.push(await submit(`${accountId} polling #${i} ${NO_CALLBACK} ${SPREAD[i % SPREAD.length]}`));
      await sleep(submitEveryMs);
    }
    const pollingRecords = await finalTasks(stack, pollingIds, Date.now() + (CHECK_SECONDS * 2 + 30) * 1000);
    const polling = {
      tasks: pollingTasks,
      succeeded: succeededOf(pollingRecords),
      checkSeconds: CHECK_SECONDS,
      latency: figures(await latencies(simulator, pollingRecords)),
    };
    log(
      `fallback look: ${polling.succeeded}/${pollingTasks} succeeded; job succeeded → success ${seconds(polling.latency)}, ` +
        `mean ${polling.latency.mean.toFixed(1)} s`,
    );
    return { generationSeconds: (QUEUED_MS + RUNNING_MS) / 1000, transferSeconds, callback, query, polling };
  } finally {
    await stack.stop();
  }
}

const readTask = (stack: StackProcess, taskId: string) =>
  getItem<TaskRecord>(stack.db, stack.ready.names.tables['tasks']!, { task_id: taskId });

/** The tasks' records once all are final (or at the deadline). */
async function finalTasks(stack: StackProcess, taskIds: string[], deadline: number): Promise<TaskRecord[]> {
  const records = await pollUntil(
    () => Promise.all(taskIds.map((id) => readTask(stack, id))),
    (all) => all.every((task) => task && FINAL.includes(task.status)),
    500,
    deadline,
  );
  return records.filter((task): task is TaskRecord => task !== undefined);
}

/** Job succeeded upstream → task success, in seconds, for each task that succeeded. */
async function latencies(simulator: string, tasks: TaskRecord[]): Promise<number[]> {
  const values = await Promise.all(
    tasks
      .filter((task) => task.status === 'success' && task.upstream_job_id && task.finished_at)
      .map(async (task) => {
        const at = succeededAt(await simulatedJob(simulator, task.upstream_job_id!));
        return at === undefined ? Number.NaN : (Date.parse(task.finished_at!) - at) / 1000;
      }),
  );
  return values.filter(Number.isFinite);
}

interface Query {
  taskId: string;
  sentAt?: number;
  answeredAt?: number;
  answeredStatus?: string;
}

/** Waits for the task's job to succeed upstream (polling the simulator), then GETs the task once. */
async function queryAfterSuccess(stack: StackProcess, simulator: string, key: string, taskId: string): Promise<Query> {
  const deadline = Date.now() + 60_000;
  const task = await pollUntil(
    () => readTask(stack, taskId),
    (t) => t?.upstream_job_id !== undefined || (t !== undefined && FINAL.includes(t.status)),
    50,
    deadline,
  );
  if (!task?.upstream_job_id) return { taskId };
  await pollUntil(
    () => simulatedJob(simulator, task.upstream_job_id!),
    (job) => job.status === 'succeeded',
    50,
    deadline,
  );
  const before = await readTask(stack, taskId);
  if (!before || (before.status !== 'pending' && before.status !== 'running')) return { taskId };
  const sentAt = Date.now();
  const answer = await fetch(`${stack.ready.baseUrl}/api/v1/video/tasks/${taskId}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const answeredAt = Date.now();
  const body = (await answer.json()) as { data?: { status?: string } };
  return { taskId, sentAt, answeredAt, answeredStatus: body.data?.status ?? `HTTP ${answer.status}` };
}
