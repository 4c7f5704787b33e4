/**
 * Race-and-crash probe, run as an attacker would against `npm start` (bin/local.ts, simulated Ark, a data
 * directory of its own): not a vitest file. `npx tsx test/reliability/race-and-crash-probe.ts`
 *
 * 1. Raced cancels: rounds of 40 tasks submitted at once (half `[simulate:queued]`, half plain), each sent
 *    three cancels at random times within 3 s; a cancel answered 429 is sent again after its Retry-After.
 * 2. Kills during bursts: 70 tasks at once, kill -9 of the whole service while their StartUpstream runs,
 *    start again on the same data, one more raced round meanwhile, wait until every task is final; 3 times.
 * 3. Census: billable orphans (a job not cancelled upstream that runs or succeeds for a refunded or failed
 *    task), tasks with two or more jobs, `admin ledger:verify`, totals. Exit 1 if any of the three is wrong.
 *
 * The service's output (WARN and up) stays in <data dir>/service.log, kept after a failure.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TaskRecord } from '../../functions/core/task.js';
import { runtimeFile } from '../../lib/ship/admin/target.js';
import { freePort } from '../../lib/dev/local/free-port.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';
import type { SimulatedJob } from '../../lib/dev/simulators/ark/simulator.js';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';
import { killGroup, startService, stopService } from '../support/service-process.js';
import { mediaUrl } from '../support/media-server.js';

/** A real image the simulator downloads (it fetches every reference, as the upstream does). */
const REFERENCE_IMAGE = await mediaUrl('png');

const SIZE = { perRound: 40, roundsFirst: 5, crashes: 3, burst: 70, roundsPerRecovery: 1 };
const FINAL_DEADLINE_MS = 300_000;
const RUN = randomUUID().slice(0, 8);
const DATA_DIR = mkdtempSync(join(tmpdir(), 'vgs-race-probe-'));
const LOG_FILE = join(DATA_DIR, 'service.log');
const DEMO_KEY = `bc_${randomUUID().replaceAll('-', '')}`;
const IMAGE = REFERENCE_IMAGE;
const FINAL = new Set(['success', 'failed', 'refunded']);

const totals = { cancels: 0, tooMany: 0, serverErrors: 0, submitted: 0, adoptedLogged: 0 };
const cancelAnswers = new Map<string, number>();
const notes: string[] = [];
const started = Date.now();
const clock = () => `${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s`;
const say = (line: string) => console.log(`${clock()}  ${line}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let child: ChildProcess | undefined;
let baseUrl = '';
let runtime: { endpoints: { dynamodb: string; upstreams: { ark: { baseUrl: string } } } } & {
  names: { tables: Record<string, string> };
};
let db: DynamoDBDocumentClient | undefined;

async function start(): Promise<void> {
  const port = await freePort();
  child = await startService({ port, dataDir: DATA_DIR, demoKey: DEMO_KEY, logFile: LOG_FILE, logLevel: 'WARN' });
  baseUrl = `http://127.0.0.1:${port}`;
  runtime = JSON.parse(readFileSync(runtimeFile(DATA_DIR), 'utf8'));
  db?.destroy();
  db = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: runtime.endpoints.dynamodb, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
  );
}

/** kill -9 of the whole group, then of anything of ours that outlived it (found by the data directory). */
async function crash(): Promise<void> {
  killGroup(child, 'SIGKILL');
  if (child && child.exitCode === null && child.signalCode === null) await new Promise((r) => child!.once('exit', r));
  for (let i = 0; i < 20 && leftovers().length > 0; i += 1) await sleep(250);
  for (const pid of leftovers()) process.kill(pid, 'SIGKILL');
}

/** Processes started for this data directory (its path in their environment or command line). */
function leftovers(): number[] {
  const mark = DATA_DIR;
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .map(Number)
    .filter((pid) => {
      try {
        const seen = readFileSync(`/proc/${pid}/environ`, 'latin1') + readFileSync(`/proc/${pid}/cmdline`, 'latin1');
        return seen.includes(mark);
      } catch {
        return false;
      }
    });
}

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${DEMO_KEY}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (response.status === 429) totals.tooMany += 1;
  if (response.status >= 500) totals.serverErrors += 1;
  const answer = (await response.json().catch(() => ({}))) as { data?: Record<string, unknown>; message?: string };
  return { status: response.status, retryAfter: Number(response.headers.get('retry-after') ?? 1), ...answer };
}

/** Unique prompts: jobs are matched to their tasks by them. */
async function submit(prompt: string, index: number): Promise<string | undefined> {
  const body =
    index % 2 === 0
      ? { model: 'seedance-1.0-lite-i2v', prompt, duration: 5, image_urls: [IMAGE] }
      : { model: 'seedance-1.5-pro', prompt, duration: 5 };
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const answer = await api('POST', '/api/v1/video/generate', body);
    if (answer.status === 200) {
      totals.submitted += 1;
      return answer.data?.['task_id'] as string;
    }
    if (attempt === 4) notes.push(`submit of "${prompt}" answered ${answer.status} ${answer.message}`);
    await sleep(answer.retryAfter * 1000);
  }
  return undefined;
}

/** One client's cancel, sent at a random moment within 3 s, again after each 429's Retry-After. */
async function cancelClient(taskId: string): Promise<void> {
  await sleep(randomInt(0, 3_000));
  for (let attempt = 0; attempt < 10; attempt += 1) {
    totals.cancels += 1;
    const answer = await api('POST', `/api/v1/video/tasks/${taskId}/cancel`);
    const key = `${answer.status} ${answer.status === 200 ? String(answer.data?.['status']) : ''}`.trim();
    cancelAnswers.set(key, (cancelAnswers.get(key) ?? 0) + 1);
    if (answer.status >= 500) notes.push(`cancel of ${taskId} answered ${answer.status}: ${answer.message}`);
    if (answer.status !== 429) return;
    await sleep(answer.retryAfter * 1000);
  }
  notes.push(`task ${taskId}: still 429 after 10 cancels`);
}

async function racedRound(name: string): Promise<void> {
  const ids = await Promise.all(
    Array.from({ length: SIZE.perRound }, (_, i) =>
      submit(`race ${RUN} ${name} #${i}${i % 2 === 0 ? ' [simulate:queued]' : ''}`, Math.floor(i / 2)),
    ),
  );
  const present = ids.filter((id): id is string => id !== undefined);
  await Promise.all(present.flatMap((id) => [cancelClient(id), cancelClient(id), cancelClient(id)]));
  say(`raced round ${name}: ${present.length} tasks, ${totals.cancels} cancels so far`);
}

async function scanTasks(): Promise<TaskRecord[]> {
  const items: TaskRecord[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db!.send(
      new ScanCommand({ TableName: runtime.names.tables['tasks'], ConsistentRead: true, ExclusiveStartKey: startKey }),
    );
    items.push(...((page.Items ?? []) as TaskRecord[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

async function waitAllFinal(): Promise<void> {
  const deadline = Date.now() + FINAL_DEADLINE_MS;
  let lastSaid = 0;
  for (;;) {
    const open = (await scanTasks()).filter((task) => !FINAL.has(task.status));
    if (open.length === 0) return say('every task is final');
    if (Date.now() > deadline) throw new Error(`not final after ${FINAL_DEADLINE_MS / 1000} s: ${open.length} tasks`);
    if (Date.now() - lastSaid > 20_000) {
      lastSaid = Date.now();
      const claims = open.filter((task) => task.upstream_claim_id && !task.upstream_job_id).length;
      say(`waiting: ${open.length} tasks not final (${claims} with a claim and no job)`);
    }
    await sleep(2_000);
  }
}

/** A burst, then kill -9 once StartUpstream runs for many of its tasks (claims without a job yet). */
async function crashCycle(cycle: number): Promise<void> {
  const prompts = Array.from({ length: SIZE.burst }, (_, i) => `crash ${RUN} c${cycle} #${i}`);
  const ids = new Set((await Promise.all(prompts.map((prompt, i) => submit(prompt, i)))).filter(Boolean));
  const burstDone = Date.now();
  let seen = { claimedNoJob: 0, withJob: 0, pending: 0 };
  while (Date.now() - burstDone < 30_000) {
    const mine = (await scanTasks()).filter((task) => ids.has(task.task_id));
    seen = {
      claimedNoJob: mine.filter((task) => task.upstream_claim_id && !task.upstream_job_id).length,
      withJob: mine.filter((task) => task.upstream_job_id).length,
      pending: mine.filter((task) => !task.upstream_claim_id && !FINAL.has(task.status)).length,
    };
    if (seen.claimedNoJob >= 5 || seen.withJob >= SIZE.burst / 3) break;
  }
  const killedAt = Date.now();
  await crash();
  say(
    `crash ${cycle}: kill -9 ${((killedAt - burstDone) / 1000).toFixed(1)} s after a burst of ${ids.size}; ` +
      `last look: ${seen.claimedNoJob} claimed without a job, ${seen.withJob} with a job, ${seen.pending} unclaimed`,
  );
  await start();
  say(`crash ${cycle}: started again`);
  for (let round = 0; round < SIZE.roundsPerRecovery; round += 1) await racedRound(`c${cycle}r${round}`);
  await waitAllFinal();
}

interface Census {
  tasks: number;
  refunded: number;
  succeeded: number;
  failed: number;
  billableOrphans: string[];
  doubleJobs: string[];
  jobIdNotAmongJobs: string[];
  jobsOfNoTask: number;
  ledger: { code: number | null; output: string };
}

async function census(): Promise<Census> {
  const tasks = await scanTasks();
  const jobs = (await (
    await fetch(`${runtime.endpoints.upstreams.ark.baseUrl}/simulator/jobs`)
  ).json()) as SimulatedJob[];
  const byPrompt = new Map<string, SimulatedJob[]>();
  for (const job of jobs) byPrompt.set(job.prompt, [...(byPrompt.get(job.prompt) ?? []), job]);
  const prompts = new Set(tasks.map((task) => task.generation.prompt));
  const result: Census = {
    tasks: tasks.length,
    refunded: tasks.filter((task) => task.status === 'refunded').length,
    succeeded: tasks.filter((task) => task.status === 'success').length,
    failed: tasks.filter((task) => task.status === 'failed').length,
    billableOrphans: [],
    doubleJobs: [],
    jobIdNotAmongJobs: [],
    jobsOfNoTask: jobs.filter((job) => !prompts.has(job.prompt)).length,
    ledger: adminCommand(['ledger:verify']),
  };
  for (const task of tasks) {
    const own = byPrompt.get(task.generation.prompt) ?? [];
    const describe = (job: SimulatedJob) => `${task.task_id} (${task.status}) job ${job.id} ${job.status}`;
    if (own.length >= 2) result.doubleJobs.push(`${task.task_id}: ${own.map((job) => `${job.id} ${job.status}`)}`);
    if (task.upstream_job_id && !own.some((job) => job.id === task.upstream_job_id)) {
      result.jobIdNotAmongJobs.push(`${task.task_id} records ${task.upstream_job_id}`);
    }
    if (task.status === 'refunded' || task.status === 'failed') {
      const billable = own.filter((job) => !job.cancelled && ['queued', 'running', 'succeeded'].includes(job.status));
      result.billableOrphans.push(...billable.map(describe));
    }
  }
  return result;
}

function adminCommand(args: string[]): { code: number | null; output: string } {
  const run = spawnSync('npm', ['run', '--silent', 'admin', '--', ...args], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, DATA_DIR },
    encoding: 'utf8',
  });
  return { code: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

async function main(): Promise<number> {
  say(`data directory ${DATA_DIR}`);
  await start();
  say(`service up at ${baseUrl}`);
  const topup = adminCommand(['balance:topup', '--account', 'demo', '--amount', '100000']);
  if (topup.code !== 0) throw new Error(`top-up failed: ${topup.output}`);
  for (let round = 0; round < SIZE.roundsFirst; round += 1) await racedRound(`r${round}`);
  for (let cycle = 1; cycle <= SIZE.crashes; cycle += 1) await crashCycle(cycle);
  totals.adoptedLogged = (readFileSync(LOG_FILE, 'utf8').match(/adopted an upstream job/g) ?? []).length;
  const found = await census();
  const rows: [string, string | number][] = [
    ['(a) billable orphans', found.billableOrphans.length],
    ['(b) tasks with 2+ jobs', found.doubleJobs.length],
    ['(c) ledger:verify', `exit ${found.ledger.code}: ${found.ledger.output.split('\n').at(-1)}`],
    ['tasks', found.tasks],
    ['  succeeded', found.succeeded],
    ['  refunded', found.refunded],
    ['  failed', found.failed],
    ['cancels sent', totals.cancels],
    ['429s seen', totals.tooMany],
    ['5xx seen', totals.serverErrors],
    ['cancel answers', [...cancelAnswers].map(([answer, n]) => `${answer}: ${n}`).join(', ')],
    ['jobs adopted (logged)', totals.adoptedLogged],
    ['task job id not upstream', found.jobIdNotAmongJobs.length],
    ['jobs of no task', found.jobsOfNoTask],
    ['wall time', `${((Date.now() - started) / 1000).toFixed(0)} s`],
  ];
  console.log(`\n${rows.map(([name, value]) => `  ${name.padEnd(26)} ${value}`).join('\n')}\n`);
  for (const line of [...found.billableOrphans, ...found.doubleJobs, ...found.jobIdNotAmongJobs, ...notes]) {
    console.log(`  ! ${line}`);
  }
  return found.billableOrphans.length > 0 || found.doubleJobs.length > 0 || found.ledger.code !== 0 ? 1 : 0;
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error(`${clock()}  probe failed: ${(error as Error).stack ?? String(error)}`);
} finally {
  // Ctrl-C first (the service removes its local-stack.json), then kill -9 of whatever is left.
  if (child && child.exitCode === null && child.signalCode === null) {
    await Promise.race([stopService(child), sleep(20_000)]);
  }
  db?.destroy();
  await crash();
  const left = leftovers();
  if (left.length > 0) console.error(`processes left behind: ${left.join(' ')}`);
  // Kept when something is wrong: its service.log and the simulator's jobs are the evidence.
  if (code === 0) rmSync(DATA_DIR, { recursive: true, force: true });
  else console.error(`data and service.log kept in ${DATA_DIR}`);
}
process.exit(code);
