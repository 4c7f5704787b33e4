/**
 * Section 1, API overhead: requests/s and p50/p99 latency of GET /api/v1/video/tasks/:id and POST
 * /api/v1/video/generate at 1, 16 and 64 concurrent clients, each beside the baseline server
 * (lib/bench/baseline-server.ts) measured in the same run against the same DynamoDB Local.
 *
 * Load comes from autocannon (closed loop: each connection sends its next request when the previous one
 * is answered); latencies are taken from its per-response hrtime, unrounded, for exact percentiles. Each
 * connection is one client with an account and key of its own, as many customers would be.
 */
import autocannon from 'autocannon';
import type { Client, Instance } from 'autocannon';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { BLOCK_SECONDS } from '../../functions/adapters/dynamodb-rate-limiter.js';
import { hashApiKey } from '../../functions/core/api-key.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { spawnTsx } from './child.js';
import type { Child } from './child.js';
import { startCounterWrites } from './counter-writes.js';
import type { CounterWritesResult } from './counter-writes.js';
import { startStackProcess } from './stack-client.js';
import type { StackProcess } from './stack-client.js';
import { nodeTreeCpuMs } from './process-cpu.js';
import { fixed, percentile } from './stats.js';

export interface LoadRun {
  endpoint: 'GET task' | 'POST generate';
  server: 'ours' | 'ours, starts alongside' | 'baseline' | 'baseline, counter writes alongside';
  connections: number;
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /**
   * CPU milliseconds the server's Node process spent per answered request (undefined off Linux). For ours,
   * the local stack's API process: the local API Gateway and the API handlers (not the emulators, nor the
   * simulated upstream: they live in the stack's parent process).
   */
  cpuMsPerRequest?: number;
  /** Ours only: CPU milliseconds per answered request of the workflow process (the stream's starts and the executions). */
  workflowCpuMsPerRequest?: number;
  /** The GET diagnostic only: counter writes a second made beside the baseline, as achieved. */
  counterWritesPerSecond?: number;
}

export interface ApiOverheadResult {
  runs: LoadRun[];
  /** Per server and row, split into `rounds` turns. */
  seconds: number;
  rounds: number;
  /** Not counted at the start of each turn. */
  leadInSeconds?: number;
  /** GET's most warm-up per server (in results from before the turns: the fixed warm-up per server and endpoint). */
  warmupSeconds: number;
  /** The warm-up turns' rates, and each turn's length (absent in results from before them). */
  warmups?: WarmUp[];
  warmupTurnSeconds?: number;
  accounts: number;
  /** The GET diagnostic's counter writes a second, as set (absent in results from before it). */
  counterWritesPerSecond?: number;
  /** The rate limiter's block of seconds in the code measured (absent in results from before it). */
  rateLimiterBlockSeconds?: number;
}

/** One endpoint's warm-up: each server's rate per turn, and whether both ended steady. */
export interface WarmUp {
  endpoint: LoadRun['endpoint'];
  ours: number[];
  baseline: number[];
  steady: boolean;
  /** The most turns it could take. */
  most: number;
  /** Then the turns with one client: each server's rate per turn. */
  oneClient?: { ours: number[]; baseline: number[] };
}

interface BenchClient {
  accountId: string;
  key: string;
  keyHash: string;
  taskId: string;
}

const CONCURRENCY = [1, 16, 64] as const;
/** Turns each server takes per cell (endpoint × clients); each turn is counted for BENCH_API_SECONDS / ROUNDS. */
const ROUNDS = 3;
/** The start of each turn that is not counted: steady state is what is compared. */
const LEAD_IN_SECONDS = 0.25;
/**
 * The GET diagnostic's counter writes a second: about what ours' rate counters write while ours serves GET to 16
 * or 64 clients in these turns (a side experiment counted about one write per 20 GETs, at 1,000–1,500 GETs a
 * second: each turn restarts every key after the baseline's turn).
 */
const COUNTER_WRITES_PER_SECOND = 50;
/**
 * Warm-up (warmUp below): turns of 1.5 s per server with every client until each one's last two differ by at most
 * 10 %, between a least and a most number of turns each; then, for GET, turns with one client (its rate there
 * depends most on how far the JIT has got, and the 1-client row comes first). POST needs fewer: most of its path
 * (HTTP, middy, the key, the SDK) is warm from GET's, and each of its turns leaves tasks for the workflow process
 * to start before the rows.
 */
const WARMUP_TURN_SECONDS = 1.5;
const WARMUP_TURNS = {
  'GET task': { least: 3, most: 4, oneClient: 2 },
  'POST generate': { least: 2, most: 2, oneClient: 0 },
} as const;
const WARMUP_STEADY = 0.1;
const SUBMIT_BODY = JSON.stringify({ model: 'seedance-1.0-lite-i2v', prompt: 'a paper boat on a pond', duration: 5 });

export async function runApiOverhead(log: (line: string) => void): Promise<ApiOverheadResult> {
  const seconds = Number(process.env['BENCH_API_SECONDS'] ?? 4);
  log('starting the local stack (a child process) ...');
  // The upstream never finishes and the first poll waits an hour: after a submit, its execution does
  // only StartUpstream (as in AWS), and nothing else runs in the background of the measurement.
  const stack = await startStackProcess({
    upstream: { queuedMs: 3_600_000, runningMs: 60_000 },
    pollIntervalSeconds: 3600,
    reconcileIntervalMs: 3_600_000,
    environment: { DEFAULT_RATE_LIMIT_PER_SECOND: '1000000', POWERTOOLS_LOG_LEVEL: 'ERROR' },
  });
  let baseline: Child | undefined;
  try {
    const clients = await createClients(stack, Math.max(...CONCURRENCY));
    baseline = spawnTsx('lib/bench/baseline-server.ts', {
      env: {
        BASELINE_CONFIG: JSON.stringify({
          dynamodb: stack.ready.endpoints.dynamodb,
          tables: {
            tasks: stack.ready.names.tables['tasks'],
            accounts: stack.ready.names.tables['accounts'],
            apiKeys: stack.ready.names.tables['apiKeys'],
            rateLimits: stack.ready.names.tables['rateLimits'],
          },
        }),
      },
    });
    const baselineUrl = (await baseline.waitFor<{ url: string }>('ready')).url;
    const targets = { ours: stack.ready.baseUrl, baseline: baselineUrl };
    const serverPid = { ours: stack.ready.apiPid, baseline: baseline.pid };

    const runs: LoadRun[] = [];
    const warmups: WarmUp[] = [];
    for (const endpoint of ['GET task', 'POST generate'] as const) {
      // Held while warming (as while measuring): a warm-up turn of POST is not slowed by the starts of the turn
      // before, and they run before the rows.
      await stack.pauseTaskStarts();
      warmups.push(
        await warmUp(
          endpoint,
          (server, connections, seconds) => load(targets[server], server, endpoint, clients, connections, seconds),
          clients.length,
          log,
        ),
      );
      await stack.resumeTaskStarts();
      await waitForWorkflowIdle(stack.ready.workflowPid, log);
      const servers = ['ours', 'baseline'] as const;
      /** One turn of load against a server, with the CPU its Node processes spent meanwhile. */
      const turn = async (server: LoadRun['server'], url: string, pid: number, connections: number) => {
        const cpuBefore = nodeTreeCpuMs(pid, [stack.ready.workflowPid]);
        const sample = await load(url, server, endpoint, clients, connections, seconds / ROUNDS);
        return { sample, cpuBefore, cpuAfter: nodeTreeCpuMs(pid, [stack.ready.workflowPid]) };
      };
      for (const connections of CONCURRENCY) {
        // The servers take turns, ROUNDS times, each round in a rotated order: a burst of load from the
        // machine's other tenants, or a drift over the minutes, then falls on all of them alike, and the
        // ratios are of figures pooled over the same minutes.
        const cell = new Map(servers.map((server) => [server, emptyCell()]));
        // A run is measured without the executions its submits start (held, as a disabled event source mapping
        // holds them); they run once the rounds are over, and the workflow process's CPU for them is counted for
        // ours (not the simulated upstream's, in the stack's parent process: in AWS the upstream is not ours). Held for the
        // baselines too, so that no round has the stream read beside it (their tasks start nothing when it is
        // read: lib/bench/baseline-server.ts).
        await stack.pauseTaskStarts();
        const workflowBefore = nodeTreeCpuMs(stack.ready.workflowPid);
        for (let round = 0; round < ROUNDS; round++) {
          for (let i = 0; i < servers.length; i++) {
            const server = servers[(i + round) % servers.length]!;
            const { sample, cpuBefore, cpuAfter } = await turn(server, targets[server], serverPid[server], connections);
            addSample(cell.get(server)!, sample, cpuBefore, cpuAfter);
          }
        }
        await stack.resumeTaskStarts();
        await waitForWorkflowIdle(stack.ready.workflowPid, log);
        const workflowAfter = nodeTreeCpuMs(stack.ready.workflowPid);
        for (const server of servers) {
          const run = summarize(endpoint, server, connections, cell.get(server)!);
          if (server === 'ours') setWorkflowCpu(run, workflowBefore, workflowAfter);
          logRun(run, log);
          runs.push(run);
        }
        if (endpoint === 'GET task') {
          // A diagnostic: the baseline's GET with counter writes beside it at about the rate ours' rate counters
          // write during its GET turns, to show what DynamoDB Local's one-write-at-a-time costs a server that
          // makes no writes of its own.
          const writes = startCounterWrites(
            stack.db,
            stack.ready.names.tables['rateLimits']!,
            COUNTER_WRITES_PER_SECOND,
          );
          let measured: Awaited<ReturnType<typeof turn>>;
          let written: CounterWritesResult;
          try {
            measured = await turn('baseline', targets.baseline, serverPid.baseline, connections);
          } finally {
            written = await writes.stop();
          }
          const alongside = emptyCell();
          addSample(alongside, measured.sample, measured.cpuBefore, measured.cpuAfter);
          const run = summarize(endpoint, 'baseline, counter writes alongside', connections, alongside);
          run.counterWritesPerSecond = written.perSecond;
          logRun(run, log);
          log(
            `  (${fixed(written.perSecond, 0)} counter writes a second beside it; ${written.made} answered, ${written.failed} failed)`,
          );
          runs.push(run);
        }
        if (endpoint === 'POST generate') {
          // A diagnostic: the same POST with the new tasks' starts going on beside it, on the same two cores,
          // as in AWS they would run elsewhere.
          const workflowCpuBefore = nodeTreeCpuMs(stack.ready.workflowPid);
          const { sample, cpuBefore, cpuAfter } = await turn('ours', targets.ours, serverPid.ours, connections);
          await waitForWorkflowIdle(stack.ready.workflowPid, log);
          const alongside = emptyCell();
          addSample(alongside, sample, cpuBefore, cpuAfter);
          const run = summarize(endpoint, 'ours, starts alongside', connections, alongside);
          setWorkflowCpu(run, workflowCpuBefore, nodeTreeCpuMs(stack.ready.workflowPid));
          logRun(run, log);
          runs.push(run);
        }
      }
    }
    return {
      runs,
      seconds,
      rounds: ROUNDS,
      leadInSeconds: LEAD_IN_SECONDS,
      warmupSeconds: WARMUP_TURN_SECONDS * WARMUP_TURNS['GET task'].most,
      warmupTurnSeconds: WARMUP_TURN_SECONDS,
      warmups,
      accounts: clients.length,
      counterWritesPerSecond: COUNTER_WRITES_PER_SECOND,
      rateLimiterBlockSeconds: BLOCK_SECONDS,
    };
  } finally {
    await baseline?.stop(2_000);
    await stack.stop();
  }
}

/**
 * Warms both servers in turns (rotated each round, every client): the JIT compilers of both Node processes and of
 * DynamoDB Local's JVM, the keys' copies and rate counters; until both are steady (WARMUP_TURNS). Ours, with more
 * code on its path, takes longer to reach its steady rate: measured right after a fixed warm-up of 5 s each, its
 * GET at 1 client still climbed for 10 s more, from 0.6× to 0.9–1.0× the baseline's rate.
 */
async function warmUp(
  endpoint: LoadRun['endpoint'],
  turn: (server: 'ours' | 'baseline', connections: number, seconds: number) => Promise<LoadSample>,
  allClients: number,
  log: (line: string) => void,
): Promise<WarmUp> {
  const steady = (list: number[]) =>
    list.length >= 2 && Math.abs(list.at(-1)! - list.at(-2)!) <= WARMUP_STEADY * list.at(-2)!;
  /** One round: each server a turn, in an order rotated by the round; the rates are appended to `rates`. */
  const round = async (index: number, connections: number, rates: Record<'ours' | 'baseline', number[]>) => {
    const order = index % 2 === 0 ? (['ours', 'baseline'] as const) : (['baseline', 'ours'] as const);
    for (const server of order) {
      const sample = await turn(server, connections, WARMUP_TURN_SECONDS);
      rates[server].push(sample.latencies.length / sample.seconds);
    }
    log(
      `warm-up: ${endpoint}, ${connections} clients, turn ${rates.ours.length}: ours ${fixed(rates.ours.at(-1)!, 0)} req/s, baseline ${fixed(rates.baseline.at(-1)!, 0)} req/s`,
    );
  };
  const { least, most, oneClient } = WARMUP_TURNS[endpoint];
  const rates: Record<'ours' | 'baseline', number[]> = { ours: [], baseline: [] };
  for (let index = 0; index < most; index++) {
    await round(index, allClients, rates);
    if (index + 1 >= least && steady(rates.ours) && steady(rates.baseline)) break;
  }
  const single: Record<'ours' | 'baseline', number[]> = { ours: [], baseline: [] };
  for (let index = 0; index < oneClient; index++) await round(index, 1, single);
  return {
    endpoint,
    ours: rates.ours,
    baseline: rates.baseline,
    steady: steady(rates.ours) && steady(rates.baseline),
    most,
    ...(oneClient > 0 ? { oneClient: single } : {}),
  };
}

/** Waits (up to a minute) until the workflow process uses less than 5 % of a core over half a second. */
async function waitForWorkflowIdle(pid: number, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  for (;;) {
    const before = nodeTreeCpuMs(pid);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = nodeTreeCpuMs(pid);
    if (before === undefined || after === undefined || after - before < 25) break;
    if (Date.now() - started > 60_000) {
      log('the workflow process is still busy after 60 s: measuring anyway');
      break;
    }
  }
  const waited = Date.now() - started;
  if (waited > 1_000) log(`waited ${(waited / 1000).toFixed(1)} s for the workflow process to catch up`);
}

/** One account per client, a key without quota or practical rate limit, and one finished task to read. */
async function createClients(stack: StackProcess, count: number): Promise<BenchClient[]> {
  const run = randomUUID().slice(0, 8);
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const accountId = `bench-${run}-${i}`;
      await stack.admin.createAccount(accountId, '100000000');
      const { key } = await stack.admin.createKey({ accountId, ratePerSecond: 1_000_000 });
      const task = finishedTask(accountId, hashApiKey(key));
      await stack.db.send(new PutCommand({ TableName: stack.ready.names.tables['tasks'], Item: task }));
      return { accountId, key, keyHash: hashApiKey(key), taskId: task.task_id };
    }),
  );
}

/** One stretch of load against one server: what autocannon saw. */
interface LoadSample {
  seconds: number;
  latencies: number[];
  non2xx: number;
  errors: number;
}

/** The samples of one server in one cell (endpoint × clients), pooled over its rounds. */
interface CellTotals {
  seconds: number;
  latencies: number[];
  non2xx: number;
  errors: number;
  cpuMs: number | undefined;
}

function emptyCell(): CellTotals {
  return { seconds: 0, latencies: [], non2xx: 0, errors: 0, cpuMs: 0 };
}

function addSample(cell: CellTotals, sample: LoadSample, cpuBefore: number | undefined, cpuAfter: number | undefined) {
  cell.seconds += sample.seconds;
  for (const latency of sample.latencies) cell.latencies.push(latency);
  cell.non2xx += sample.non2xx;
  cell.errors += sample.errors;
  cell.cpuMs =
    cell.cpuMs === undefined || cpuBefore === undefined || cpuAfter === undefined
      ? undefined
      : cell.cpuMs + (cpuAfter - cpuBefore);
}

function summarize(
  endpoint: LoadRun['endpoint'],
  server: LoadRun['server'],
  connections: number,
  cell: CellTotals,
): LoadRun {
  const requests = cell.latencies.length;
  const run: LoadRun = {
    endpoint,
    server,
    connections,
    seconds: cell.seconds,
    requests,
    rps: requests / cell.seconds,
    p50: percentile(cell.latencies, 50),
    p99: percentile(cell.latencies, 99),
    non2xx: cell.non2xx,
    errors: cell.errors,
  };
  if (cell.cpuMs !== undefined && requests > 0) run.cpuMsPerRequest = cell.cpuMs / requests;
  return run;
}

/** Ours only: the workflow process's CPU between two readings, per answered request. */
function setWorkflowCpu(run: LoadRun, before: number | undefined, after: number | undefined) {
  if (before !== undefined && after !== undefined && run.requests > 0) {
    run.workflowCpuMsPerRequest = (after - before) / run.requests;
  }
}

function logRun(run: LoadRun, log: (line: string) => void) {
  log(
    `${run.endpoint.padEnd(13)} ${run.server.padEnd(34)} ${String(run.connections).padStart(2)} clients: ` +
      `${run.rps.toFixed(0).padStart(5)} req/s, p50 ${run.p50.toFixed(2)} ms, p99 ${run.p99.toFixed(2)} ms` +
      (run.cpuMsPerRequest === undefined ? '' : `, ${run.cpuMsPerRequest.toFixed(2)} ms CPU/request`) +
      (run.workflowCpuMsPerRequest === undefined
        ? ''
        : ` (+ ${run.workflowCpuMsPerRequest.toFixed(2)} ms in the workflow process)`) +
      (run.non2xx + run.errors > 0 ? `, ${run.non2xx} non-2xx, ${run.errors} errors` : ''),
  );
}

function load(
  url: string,
  server: LoadRun['server'],
  endpoint: LoadRun['endpoint'],
  clients: BenchClient[],
  connections: number,
  seconds: number,
): Promise<LoadSample> {
  let next = 0;
  const latencies: number[] = [];
  let counting = false;
  let countingSince = 0;
  return new Promise((resolve, reject) => {
    const instance: Instance = autocannon(
      {
        url,
        connections,
        duration: seconds + LEAD_IN_SECONDS,
        timeout: 30,
        setupClient: (client: Client) => {
          const who = clients[next++ % clients.length]!;
          const headers: Record<string, string> = { authorization: `Bearer ${who.key}` };
          if (server === 'baseline') {
            Object.assign(headers, { 'x-bench-account': who.accountId, 'x-bench-key-hash': who.keyHash });
          }
          if (endpoint === 'GET task') {
            client.setRequests([{ method: 'GET', path: `/api/v1/video/tasks/${who.taskId}`, headers }]);
          } else {
            headers['content-type'] = 'application/json';
            client.setRequests([{ method: 'POST', path: '/api/v1/video/generate', headers, body: SUBMIT_BODY }]);
          }
        },
      },
      (error, result) => {
        if (error) return reject(error);
        const counted = (performance.now() - countingSince) / 1000;
        resolve({ seconds: counted, latencies, non2xx: result.non2xx, errors: result.errors });
      },
    );
    // Answers are counted from the end of the lead-in: each turn opens new connections, and ours' per-key state
    // (the copy of the key, the rate counter's reservation) restarts after the other server's turn.
    setTimeout(() => {
      counting = true;
      countingSince = performance.now();
    }, LEAD_IN_SECONDS * 1000);
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      if (counting) latencies.push(responseTime);
    });
  });
}

function finishedTask(accountId: string, keyHash: string): TaskRecord {
  const created = new Date(Date.now() - 60_000).toISOString();
  const finished = new Date().toISOString();
  const taskId = randomUUID();
  const videoKey = `videos/${accountId}/${taskId}.mp4`;
  return {
    task_id: taskId,
    account_id: accountId,
    key_hash: keyHash,
    key_quota_charged: false,
    form: 'A',
    status: 'success',
    cost_units: 30_000,
    generation: {
      modelId: '0d5a8f3e-9c2b-4a7d-b6e1-7f4c2d9a8e33',
      modelName: 'seedance-1.0-lite-i2v',
      prompt: 'a paper boat on a pond',
      resolution: '720p',
      ratio: '16:9',
      durationSeconds: 5,
      generateAudio: false,
      imageUrls: [],
      videoUrls: [],
      audioUrls: [],
    },
    upstream_provider: 'ark',
    upstream_model: 'doubao-seedance-1-0-lite-i2v-250428',
    upstream_job_id: `cgt-bench-${taskId.slice(0, 8)}`,
    video_key: videoKey,
    video_url: `https://videos.example.com/${videoKey}?signature=bench`,
    video_url_expires_at: new Date(Date.now() + 24 * 3_600_000).toISOString(),
    created_at: created,
    updated_at: finished,
    finished_at: finished,
    deadline_at: new Date(Date.now() + 3_600_000).toISOString(),
  };
}
