/**
 * What the sections that run whole tasks share: submits as a customer sends them, a burst of tasks followed to
 * its end and held to what every burst is held to (all succeed, none refunded, the money exact to the unit, one
 * upstream job each), the simulator's counters, the time of one transfer, percentiles.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpToS3VideoTransfer } from '../../../functions/adapters/storage/s3-video-storage.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../ship/sam-local/local-aws.js';
import type { TaskRecord } from '../../../functions/core/task.js';
import { check, cny, counts, seconds } from './report.js';
import type { LocalStackOptions } from '../local/local-stack.js';
import { getJson, startStackProcess } from '../local/stack-child-client.js';
import type { StackProcess } from '../local/stack-child-client.js';

export const FINAL = ['success', 'failed', 'refunded'];
export const BENCH_ENVIRONMENT = { DEFAULT_RATE_LIMIT_PER_SECOND: '1000000', POWERTOOLS_LOG_LEVEL: 'ERROR' };
/** Two upstream accounts of 120 slots, jobs of 0.4 s: slots to spare. */
export const FAST_TWO_ACCOUNTS = {
  upstreamAccounts: ['a', 'b'].map((name) => ({ name, capacity: 120 })),
  upstream: { queuedMs: 100, runningMs: 300 },
};
/** `work` on a local stack in a child process (BENCH_ENVIRONMENT unless `options` says), stopped after it. */
export async function withStack<T>(options: LocalStackOptions, work: (stack: StackProcess) => Promise<T>) {
  // Ark on Volcengine: BytePlus retired the per-call model the bench submits (docs/providers/ark.md, "Models per platform").
  const upstreams = { ark: { kind: 'simulator', platform: 'volcengine' } } as const;
  const stack = await startStackProcess({ environment: BENCH_ENVIRONMENT, upstreams, ...options });
  return work(stack).finally(() => stack.stop());
}
/** A knob (lib/dev/bench/README.md) or its default. */
export const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
/** Nearest-rank percentile of `values` (any order); NaN when empty. */
export const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(p * values.length) - 1)] ?? Number.NaN;
export const median = (values: number[]) => percentile(values, 0.5);
export const countBy = <T>(items: T[], key: (item: T) => string) =>
  items.map(key).reduce<Record<string, number>>((counts, k) => ({ ...counts, [k]: (counts[k] ?? 0) + 1 }), {});

// The simulator downloads every reference as the real upstream does (docs/providers/ark.md, "References"): a
// 1×1 PNG served by this process, from the first submit on, never holding the process open.
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const PNG = Buffer.from(PNG_BASE64, 'base64');
let image: Promise<string> | undefined;
const imageUrl = () =>
  (image ??= new Promise((resolve) => {
    const headers = { 'content-type': 'image/png', 'content-length': PNG.length };
    const server = createServer((_req, res) => res.writeHead(200, headers).end(PNG)).unref();
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/a.png`));
  }));

/**
 * `ok`, or the answer's status and the start of its body (or why none came), with the time it took. Sent once,
 * as an outside client that does not retry would: every 429 is counted, never sent again.
 */
export async function submitTask(stack: StackProcess, key: string, prompt: string) {
  const sentAt = Date.now();
  // An image-to-video model: an image is required.
  const body = { model: 'seedance-1.0-lite-i2v', duration: 5, image_urls: [await imageUrl()], prompt };
  const answer = await stack
    .api(key, '/api/v1/video/generate', body)
    .catch((error: Error) => String(error.cause ?? error.message));
  const ms = () => Date.now() - sentAt;
  if (typeof answer === 'string') return { outcome: `no answer: ${answer}`, sentAt, ms: ms() };
  if (!answer.ok) return { outcome: `${answer.status} ${(await answer.text()).slice(0, 100)}`, sentAt, ms: ms() };
  const { data } = (await answer.json()) as { data: { task_id: string; cost: number } };
  return { outcome: 'ok', sentAt, ms: ms(), taskId: data.task_id, cost: data.cost };
}

/** A new account of 100,000 CNY with a key of no practical rate limit; `submit` sends `count` tasks on it. */
export async function openAccount(stack: StackProcess, prefix: string) {
  const accountId = `${prefix}-${randomUUID().slice(0, 8)}`;
  await stack.admin.createAccount(accountId, '100000');
  const { key } = await stack.admin.createKey({ accountId, ratePerSecond: 1_000_000 });
  /** At most `concurrency` in flight (Infinity: all at once); the answers in order. */
  const submit = async (count: number, concurrency = Infinity) => {
    const answers: Awaited<ReturnType<typeof submitTask>>[] = [];
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < count; i = next++) answers[i] = await submitTask(stack, key, `${accountId} #${i}`);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
    return answers;
  };
  return { accountId, key, submit };
}

/** Polls `read` every `everyMs` until `done` holds for its value or `deadline` (epoch ms) passes; the last value. */
export async function pollUntil<T>(read: () => Promise<T>, done: (v: T) => boolean, everyMs: number, deadline: number) {
  let value = await read();
  while (!done(value) && Date.now() < deadline) value = await sleep(everyMs).then(read);
  return value;
}

type BurstOptions = { prefix: string; count: number; concurrency?: number; deadlineSeconds: number; log: Log };
type Log = (line: string) => void;
/**
 * Submits `count` tasks on a new account (`concurrency` at a time) and polls until every one is final or the
 * deadline passes, logging `progress` every 5 s; then the checks every burst is held to.
 */
export async function runBurst(stack: StackProcess, o: BurstOptions, progress = () => '') {
  const { accountId, key, submit } = await openAccount(stack, o.prefix);
  const started = Date.now();
  const answers = await submit(o.count, o.concurrency);
  const submitSeconds = (Date.now() - started) / 1000;
  const refused = answers.filter((a) => a.outcome !== 'ok');
  const [submitErrors, accepted] = [countBy(refused, (a) => a.outcome), o.count - refused.length];
  o.log(`${accepted} accepted in ${submitSeconds.toFixed(1)} s ${JSON.stringify(submitErrors)}`);
  let lastLog = started;
  const read = async () => {
    const all = await stack.tasks(accountId);
    if (Date.now() - lastLog < 5_000) return all;
    lastLog = Date.now();
    o.log(
      `${((lastLog - started) / 1000).toFixed(0)} s: ${progress()}${JSON.stringify(countBy(all, (t) => t.status))}`,
    );
    return all;
  };
  const allFinal = (all: TaskRecord[]) => all.length >= accepted && all.every((task) => FINAL.includes(task.status));
  const tasks = await pollUntil(read, allFinal, 1_000, started + o.deadlineSeconds * 1000);
  const succeeded = tasks.filter((task) => task.status === 'success');
  const unpaid = tasks.filter((task) => task.status === 'failed' || task.status === 'refunded');
  const latencies = succeeded.map((task) => (Date.parse(task.finished_at!) - Date.parse(task.created_at)) / 1000);
  const jobs = await stack.upstreamJobs();
  const oneJob = tasks.filter((task) => jobs.prompts[task.generation.prompt] === 1).length;
  // The balance as the API shows it, the key's spend, against the tasks' costs.
  const { data } = (await (await stack.api(key, '/api/v1/account/balance')).json()) as { data: { balance: number } };
  const balance = Math.round(data.balance * 10_000);
  const spent = Number((await stack.admin.listKeys(accountId))[0]?.spent_units ?? 0);
  const charged = tasks.filter((t) => !unpaid.includes(t)).reduce((total, task) => total + task.cost_units, 0);
  const expected = 100_000 * 10_000 - charged;
  const notSucceeded = countBy(tasks, (task) => task.status);
  delete notSucceeded['success'];
  const reasons = countBy(unpaid, (task) => (task.error_message ?? '(none)').slice(0, 160));
  const wallSeconds =
    (Math.max(...tasks.map((task) => Date.parse(task.finished_at ?? task.updated_at))) - started) / 1000;
  const outcome = `${succeeded.length} / ${o.count}; ${unpaid.length}${counts(notSucceeded)}${counts(reasons)}`;
  const money = `${cny(balance)} CNY (expected ${cny(expected)}); ${cny(spent)}`;
  const submits = `${accepted} / ${o.count} in ${seconds(submitSeconds)}${counts(submitErrors)}; ${tasks.length} tasks made`;
  const latency = `p50 ${seconds(percentile(latencies, 0.5))}, p99 ${seconds(percentile(latencies, 0.99))}`;
  const checks = [
    check('Tasks succeeded; refunded', outcome, 'all; 0', succeeded.length === o.count && unpaid.length === 0),
    check('Balance; key spend', money, 'exact to 0.0001', balance === expected && spent === charged),
    check('Tasks with one upstream job', `${oneJob} / ${tasks.length}`, 'all', oneJob === tasks.length),
    check(`Submits answered 200 (${o.concurrency ?? 'all'} at a time)`, submits),
    check('Latency, created → success', latency),
  ];
  return { checks, tasks, started, wallSeconds, created: tasks.length, succeeded: succeeded.length };
}

/** GET /simulator/stats: per master account, queued jobs now and the most at once; creates, and those refused. */
export const simulatorStats = (stack: StackProcess) => getJson<Stats>(`${stack.simulator}/simulator/stats`);
type Stats = {
  creates: number;
  refusedCreates: number;
  accounts: { account: string; queued: number; peakQueued: number }[];
};

/** Calls `take` every `everyMs` until the returned stop is called; stop resolves once the last call is done. */
export function sampleEvery(everyMs: number, take: () => Promise<void>): () => Promise<void> {
  let sampling = true;
  const loop = (async () => {
    while (sampling) {
      const tick = Date.now();
      await take();
      await sleep(Math.max(0, everyMs - (Date.now() - tick)));
    }
  })();
  return () => ((sampling = false), loop);
}

/** Our slots taken and tasks waiting, over every upstream account. */
export async function slotsAndWaiting(stack: StackProcess) {
  const { accounts, waiting } = await stack.admin.upstreamAccounts();
  const taken = accounts.reduce((sum, account) => sum + account.in_use, 0);
  return { accounts, taken, waiting: Object.values(waiting).reduce((sum, n) => sum + n, 0) };
}

/**
 * A finished job's video copied into the stack's bucket by HttpToS3VideoTransfer (the TransferVideo step's
 * adapter) from this process, `runs` times, the first to warm fetch and S3: the median in seconds.
 */
export async function measureTransfer(stack: StackProcess, jobId: string, runs = 6) {
  const { endpoints, names } = stack.ready;
  const aws = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, forcePathStyle: true };
  const s3 = new S3Client({ ...aws, endpoint: endpoints.s3 });
  const transfer = new HttpToS3VideoTransfer(s3, names.videoBucket, { maxBytes: 2 * 1024 ** 3, timeoutMs: 60_000 });
  const times: number[] = [];
  let bytes = 0;
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    ({ bytes } = await transfer.copy(`${stack.simulator}/files/${jobId}.mp4`, `bench/transfer-${run}.mp4`));
    if (run > 0) times.push((performance.now() - started) / 1000);
  }
  s3.destroy();
  return { seconds: median(times), bytes };
}

/** 8 tasks on another account, so that the bundles are loaded; with `timeTransfer`, one transfer is timed. */
export async function warmUp(stack: StackProcess, log: Log, timeTransfer = false) {
  const { accountId, submit } = await openAccount(stack, 'warm');
  log('warming up: 8 tasks ...');
  await submit(8);
  const final = (all: TaskRecord[]) => all.every((task) => FINAL.includes(task.status));
  const tasks = await pollUntil(() => stack.tasks(accountId), final, 500, Date.now() + 180_000);
  const done = tasks.find((task) => task.status === 'success' && task.upstream_job_id);
  if (!done) throw new Error(`warm-up: no task succeeded (${tasks.map((t) => t.status).join(', ')})`);
  if (!timeTransfer) return Number.NaN;
  const transfer = await measureTransfer(stack, done.upstream_job_id!);
  log(`one transfer of the ${transfer.bytes}-byte video: ${(transfer.seconds * 1000).toFixed(0)} ms`);
  return transfer.seconds;
}
