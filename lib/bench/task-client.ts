/**
 * What the sections that run whole tasks share: submits as a customer sends them (all at once, or a few at a
 * time), the money check (balance and key spend exact to the unit), the simulator's own routes, the time of
 * one transfer, percentiles.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { getItem } from '../../functions/adapters/dynamodb-client.js';
import type { ApiKeyRecord } from '../../functions/core/ports/accounts.js';
import { HttpToS3VideoTransfer } from '../../functions/adapters/s3-video-storage.js';
import { hashApiKey } from '../../functions/core/api-key.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/local-aws.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { referenceImageUrl } from './reference-image.js';
import type { StackProcess } from './stack-client.js';

/** An image-to-video model: an image is required, and the simulator downloads it (reference-image.ts). */
export const SUBMIT_BODY = { model: 'seedance-1.0-lite-i2v', duration: 5 };

/** `ok`, or the answer's status and the start of its body (or why none came). */
export type SubmitAnswer = { outcome: string; taskId?: string; sentAt: number };

/** A 429 (nothing charged) is sent again after its Retry-After, as a customer would, up to `retries` times. */
export async function submitTask(baseUrl: string, key: string, prompt: string, retries = 60): Promise<SubmitAnswer> {
  const image = await referenceImageUrl();
  const sentAt = Date.now();
  for (let attempt = 0; ; attempt += 1) {
    const answer = await fetch(`${baseUrl}/api/v1/video/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...SUBMIT_BODY, image_urls: [image], prompt }),
    }).catch((error: Error) => String(error.cause ?? error.message));
    if (typeof answer === 'string') return { outcome: `no answer: ${answer}`, sentAt };
    if (answer.status === 429 && attempt < retries) {
      await answer.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after') ?? 1) * 1000));
      continue;
    }
    if (!answer.ok) return { outcome: `${answer.status} ${(await answer.text()).slice(0, 100)}`, sentAt };
    const taskId = ((await answer.json()) as { data: { task_id: string } }).data.task_id;
    return { outcome: 'ok', taskId, sentAt };
  }
}

/** Submits every prompt, at most `concurrency` in flight (Infinity: all at once); answers in prompt order. */
export async function submitAll(
  baseUrl: string,
  key: string,
  prompts: string[],
  concurrency = Number.POSITIVE_INFINITY,
): Promise<SubmitAnswer[]> {
  const answers: SubmitAnswer[] = new Array(prompts.length);
  let next = 0;
  const worker = async () => {
    while (next < prompts.length) {
      const index = next++;
      answers[index] = await submitTask(baseUrl, key, prompts[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, prompts.length) }, worker));
  return answers;
}

export function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/** Nearest-rank percentile of `values` (any order); NaN when empty. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

export const median = (values: number[]) => percentile(values, 0.5);
export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
export const FINAL = ['success', 'failed', 'refunded'];
export const BENCH_ENVIRONMENT = { DEFAULT_RATE_LIMIT_PER_SECOND: '1000000', POWERTOOLS_LOG_LEVEL: 'ERROR' };

/** A new account of 100,000 CNY with a key of no practical rate limit. */
export async function openAccount(stack: StackProcess, prefix: string) {
  const accountId = `${prefix}-${randomUUID().slice(0, 8)}`;
  await stack.admin.createAccount(accountId, '100000');
  const { key } = await stack.admin.createKey({ accountId, ratePerSecond: 1_000_000 });
  return { accountId, key, openingUnits: 100_000 * 10_000 };
}

/** What a burst of tasks on one account came to; money in units of 0.0001 CNY. */
export type BurstResult = Awaited<ReturnType<typeof runBurst>>['result'];

/**
 * Submits `count` tasks on a new account (`concurrency` at a time) and polls until every one is final or the
 * deadline passes, calling `progress` every 5 s; then the outcome, the money and one upstream job per task.
 */
export async function runBurst(
  stack: StackProcess,
  o: { prefix: string; count: number; concurrency?: number; deadlineSeconds: number; log: (line: string) => void },
  progress: (elapsedSeconds: number, tasks: TaskRecord[]) => string = () => '',
) {
  const { accountId, key, openingUnits } = await openAccount(stack, o.prefix);
  const prompts = Array.from({ length: o.count }, (_, i) => `${accountId} #${i}`);
  const started = Date.now();
  const answers = await submitAll(stack.ready.baseUrl, key, prompts, o.concurrency);
  const submitSeconds = (Date.now() - started) / 1000;
  const failed = answers.filter((answer) => answer.outcome !== 'ok');
  const submitErrors = countBy(failed, (answer) => answer.outcome);
  o.log(`${o.count - failed.length} accepted in ${submitSeconds.toFixed(1)} s ${JSON.stringify(submitErrors)}`);
  let lastLog = 0;
  const tasks = await pollUntil(
    async () => {
      const all = await stack.tasks(accountId);
      if (Date.now() - lastLog < 5_000) return all;
      lastLog = Date.now();
      const elapsed = (lastLog - started) / 1000;
      o.log(`${elapsed.toFixed(0)} s: ${progress(elapsed, all)}${JSON.stringify(countBy(all, (t) => t.status))}`);
      return all;
    },
    (all) => all.length >= o.count - failed.length && all.every((task) => FINAL.includes(task.status)),
    1_000,
    started + o.deadlineSeconds * 1000,
  );
  const succeeded = tasks.filter((task) => task.status === 'success');
  const unpaid = tasks.filter((task) => task.status === 'failed' || task.status === 'refunded');
  const latencies = succeeded.map((task) => (Date.parse(task.finished_at!) - Date.parse(task.created_at)) / 1000);
  const jobs = await stack.upstreamJobs();
  const result = {
    tasks: o.count,
    accepted: o.count - failed.length,
    submitErrors,
    created: tasks.length,
    succeeded: succeeded.length,
    refunded: unpaid.length,
    notSucceeded: countBy(
      tasks.filter((task) => task.status !== 'success'),
      (task) => task.status,
    ),
    failureReasons: countBy(unpaid, (task) => (task.error_message ?? '(none)').slice(0, 160)),
    tasksWithOneJob: tasks.filter((task) => jobs.prompts[task.generation.prompt] === 1).length,
    submitSeconds,
    wallSeconds: (Math.max(...tasks.map((task) => Date.parse(task.finished_at ?? task.updated_at))) - started) / 1000,
    latencyP50Seconds: percentile(latencies, 0.5),
    latencyP99Seconds: percentile(latencies, 0.99),
    ...(await checkMoney(stack, key, tasks, openingUnits)),
  };
  o.log(
    `${result.succeeded}/${o.count} succeeded, ${result.refunded} refunded in ${result.wallSeconds.toFixed(1)} s, ` +
      `balance ${result.balanceExact ? 'exact' : 'NOT exact'}${result.refunded ? ` ${JSON.stringify(result.failureReasons)}` : ''}`,
  );
  return { result, tasks, started };
}

/** The account's balance (as the API shows it) and the key's spend against the tasks' costs. */
async function checkMoney(stack: StackProcess, key: string, tasks: TaskRecord[], openingUnits: number) {
  const balance = await fetch(`${stack.ready.baseUrl}/api/v1/account/balance`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const balanceUnits = Math.round(((await balance.json()) as { data: { balance: number } }).data.balance * 10_000);
  const keyItem = await getItem<ApiKeyRecord>(stack.db, stack.ready.names.tables['apiKeys']!, {
    key_hash: hashApiKey(key),
  });
  const keySpentUnits = Number(keyItem?.spent_units ?? 0);
  const charged = tasks
    .filter((task) => !['failed', 'refunded'].includes(task.status))
    .reduce((total, task) => total + task.cost_units, 0);
  return {
    expectedBalanceUnits: openingUnits - charged,
    balanceUnits,
    keySpentUnits,
    balanceExact: balanceUnits === openingUnits - charged && keySpentUnits === charged,
  };
}

/** The simulator's view of one job (GET /simulator/jobs/{id}): its status changes, its callbacks. */
export interface SimulatedJobTimings {
  id: string;
  status: string;
  history: { status: string; at: string }[];
  callbacks: { status: string; at: string; attempt: number; acknowledged: boolean }[];
}

export async function simulatedJob(simulatorUrl: string, jobId: string): Promise<SimulatedJobTimings> {
  const answer = await fetch(`${simulatorUrl}/simulator/jobs/${encodeURIComponent(jobId)}`);
  if (!answer.ok) throw new Error(`simulator job ${jobId}: ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as SimulatedJobTimings;
}

/** When the job succeeded upstream (epoch ms), from its history; undefined if it has not. */
export const succeededAt = (job: SimulatedJobTimings) => {
  const at = job.history.find((step) => step.status === 'succeeded')?.at;
  return at === undefined ? undefined : Date.parse(at);
};

/**
 * GET /simulator/stats: per key, unfinished jobs now and the most at once; per master account, queued jobs now
 * and the most at once; creates received and those refused by a refusal window.
 */
export interface SimulatorStats {
  maxQueuedPerAccount: number;
  creates: number;
  refusedCreates: number;
  keys: { key: string; unfinished: number; peakUnfinished: number }[];
  accounts: { account: string; queued: number; peakQueued: number }[];
}

export async function simulatorStats(simulatorUrl: string): Promise<SimulatorStats> {
  return (await (await fetch(`${simulatorUrl}/simulator/stats`)).json()) as SimulatorStats;
}

/** Calls `take` every `everyMs` until the returned stop is called; stop resolves once the last call is done. */
export function sampleEvery(everyMs: number, take: () => Promise<void>): () => Promise<void> {
  let sampling = true;
  const loop = (async () => {
    while (sampling) {
      const tick = Date.now();
      await take();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, everyMs - (Date.now() - tick))));
    }
  })();
  return () => {
    sampling = false;
    return loop;
  };
}

/** Our slots still taken and tasks still waiting, over every upstream account: none once all is over. */
export async function leftOver(stack: StackProcess) {
  const { accounts, waiting } = await stack.admin.upstreamAccounts();
  const slotsTakenAtEnd = accounts.reduce((sum, account) => sum + account.in_use, 0);
  return { accounts, slotsTakenAtEnd, waitingAtEnd: Object.values(waiting).reduce((sum, n) => sum + n, 0) };
}

/** Polls `read` every `everyMs` until `done` holds for its value or `deadline` (epoch ms) passes; the last value. */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  everyMs: number,
  deadline: number,
): Promise<T> {
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    value = await read();
  }
  return value;
}

/**
 * The transfer on its own: a finished job's video copied into the stack's bucket by HttpToS3VideoTransfer (the
 * TransferVideo step's adapter), from this process, `runs` times (the first warms fetch and S3): the median, in
 * seconds. What a task adds after its job succeeded, step overheads aside.
 */
export async function measureTransfer(stack: StackProcess, simulatorUrl: string, jobId: string, runs = 6) {
  const s3 = new S3Client({
    endpoint: stack.ready.endpoints.s3,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    forcePathStyle: true,
  });
  try {
    const transfer = new HttpToS3VideoTransfer(s3, stack.ready.names.videoBucket, {
      maxBytes: 2 * 1024 ** 3,
      timeoutMs: 60_000,
    });
    const seconds: number[] = [];
    let bytes = 0;
    for (let run = 0; run < runs; run += 1) {
      const started = performance.now();
      ({ bytes } = await transfer.copy(`${simulatorUrl}/files/${jobId}.mp4`, `bench/transfer-${run}.mp4`));
      if (run > 0) seconds.push((performance.now() - started) / 1000);
    }
    return { seconds: median(seconds), bytes };
  } finally {
    s3.destroy();
  }
}
