/**
 * A simulated Alibaba Cloud Model Studio (DashScope) for Wan video tasks: create (asynchronous only), get,
 * cancel (PENDING only) and list under /api/v1, and /files/{id}.mp4 in place of the OSS result URL (GET only,
 * 24 h). It refuses what the references say DashScope refuses (rules.ts); markers pick a fault per task
 * (markers.ts). Tasks past an account's concurrent limit wait PENDING. /simulator/ routes are for tests.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { baseUrlOf, closeServer, listen, sendJson, sendStorageXml } from '../http.js';
import { checkAuth, DashScopeError, readJson, sendError } from './http.js';
import { behaviourFor, DEFAULT_BEHAVIOUR } from './markers.js';
import type { Behaviour } from './markers.js';
import {
  checkReferences,
  DEFAULT_REFERENCE_TIMEOUT_MS,
  MODEL_STUDIO_REFERENCE_LIMITS,
  referencesOf,
} from './references.js';
import type { ReferenceMedia } from './references.js';
import { checkCreate } from './rules.js';
import type { RunningSimulator, SimulatedJob, SimulatorOptions } from '../simulator.js';
import { loadVideo, sendVideo } from '../video-file.js';
import type { Region } from './rules.js';

export type { Region } from './rules.js';

/**
 * Queued is PENDING (once a slot is free, then RUNNING); a master account is an Alibaba Cloud account, whose
 * limits hold whichever of its keys or workspaces is used.
 */
export interface ModelStudioSimulatorOptions extends SimulatorOptions<ReferenceMedia> {
  /** Accepted keys; without any, any key (or none) is taken. */
  apiKeys?: string[];
  /** Tasks one account runs at once per model; later ones wait PENDING. Unconfirmed number: none by default. */
  concurrentTasks?: number;
  /** Creates per second per account and model before 429 `Throttling.RateQuota`. None by default. */
  submissionsPerSecond?: number;
  region?: Region;
}

type TaskStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED';

/** A job as the local stack's tests see any simulator's (lower-case statuses; no task expires). */
export interface ModelStudioJob extends SimulatedJob {
  status: Exclude<SimulatedJob['status'], 'expired'>;
}

export interface ModelStudioSimulator extends RunningSimulator {
  jobs(): ModelStudioJob[];
}

interface Task {
  id: string;
  model: string;
  prompt: string;
  account: string;
  createdAt: number;
  cancelledAt?: number;
  releasedAt?: number;
  polls: number;
  behaviour: Behaviour;
  request: Record<string, unknown>;
  resolution: string;
  duration: number;
  /** Its media's download: `at` once settled (PENDING until then), `failure` when one was unusable. */
  references?: { at?: number; failure?: { code: string; message: string } };
}

const CREATE_PATH = '/api/v1/services/aigc/video-generation/video-synthesis';
const TASKS_PATH = '/api/v1/tasks';
const HOUR_MS = 3_600_000;
/** Task ids and result URLs are valid for 24 h (API references; docs/providers/model-studio.md). */
const TASK_TTL_MS = 24 * HOUR_MS;
const URL_TTL_MS = 24 * HOUR_MS;
const LOWER: Readonly<Record<TaskStatus, ModelStudioJob['status']>> = {
  PENDING: 'queued',
  RUNNING: 'running',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  CANCELED: 'cancelled',
};

/** DashScope writes times as `2025-09-16 17:41:16.183` (zone unstated; UTC here). */
const stamp = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

interface Schedule {
  start: number;
  end: number;
}

class Simulator {
  private readonly tasks = new Map<string, Task>();
  private readonly rateLimited = new Map<string, number>();
  private readonly recentCreates = new Map<string, number[]>();
  private readonly heldDownloads = new Map<string, (() => void)[]>();
  private readonly keys: ReadonlySet<string> | undefined;
  private refusal: { until: number; code: string } | undefined;
  baseUrl = '';

  constructor(
    private readonly options: Required<
      Omit<
        ModelStudioSimulatorOptions,
        'stateFile' | 'port' | 'host' | 'apiKeys' | 'referenceLimits' | 'referenceTimeoutMs'
      >
    > &
      Pick<ModelStudioSimulatorOptions, 'stateFile' | 'apiKeys' | 'referenceLimits' | 'referenceTimeoutMs'>,
    private readonly video: Buffer,
  ) {
    this.keys = options.apiKeys && options.apiKeys.length > 0 ? new Set(options.apiKeys) : undefined;
    if (options.stateFile && existsSync(options.stateFile)) {
      for (const task of JSON.parse(readFileSync(options.stateFile, 'utf8')) as Task[]) {
        this.tasks.set(task.id, { ...task, behaviour: { ...DEFAULT_BEHAVIOUR, ...task.behaviour } });
      }
      // A download cut short by a restart starts again.
      for (const task of this.tasks.values())
        if (task.references && task.references.at === undefined) this.download(task);
    }
  }

  private persist(): void {
    const file = this.options.stateFile;
    if (!file) return;
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify([...this.tasks.values()]));
    renameSync(partial, file);
  }

  private ready(task: Task): number {
    const fetched = task.references ? (task.references.at ?? Infinity) : task.createdAt;
    const usual = Math.max(fetched, task.createdAt + this.options.queuedMs + task.behaviour.extraQueuedMs);
    if (!task.behaviour.heldQueued) return usual;
    return task.releasedAt === undefined ? Infinity : Math.max(usual, task.releasedAt);
  }

  private runFor(task: Task, start: number): number {
    if (task.behaviour.outcome === 'hang') return Infinity;
    const from = task.behaviour.held ? Math.max(start, task.releasedAt ?? Infinity) : start;
    return from + this.options.runningMs + task.behaviour.extraRunningMs;
  }

  /**
   * When each task of the account and model starts and ends: in submit order, each takes the first free
   * of `concurrentTasks` slots once ready; one cancelled while waiting never takes one.
   */
  private schedule(task: Task): Schedule | undefined {
    const group = [...this.tasks.values()]
      .filter((other) => other.account === task.account && other.model === task.model && !other.behaviour.lost)
      .sort((a, b) => a.createdAt - b.createdAt);
    const slots: number[] = [];
    for (const other of group) {
      // A task failed for its media never takes a slot.
      if (other.references?.failure) continue;
      const free = slots.length < this.options.concurrentTasks ? -Infinity : Math.min(...slots);
      const start = Math.max(this.ready(other), free);
      if (other.cancelledAt !== undefined && other.cancelledAt < start) {
        if (other === task) return undefined;
        continue;
      }
      const end = this.runFor(other, start);
      if (slots.length < this.options.concurrentTasks) slots.push(end);
      else slots[slots.indexOf(free)] = end;
      if (other === task) return { start, end };
    }
    return undefined;
  }

  private statusOf(task: Task, now: number): TaskStatus {
    const failedAt = task.references?.failure && task.references.at;
    if (failedAt !== undefined)
      return task.cancelledAt !== undefined && task.cancelledAt < failedAt
        ? 'CANCELED'
        : now < failedAt
          ? 'PENDING'
          : 'FAILED';
    const planned = this.schedule(task);
    if (planned === undefined) return 'CANCELED';
    if (now < planned.start) return 'PENDING';
    if (now < planned.end) return 'RUNNING';
    return task.behaviour.outcome === 'failed' ? 'FAILED' : 'SUCCEEDED';
  }

  private accountOf(key: string): string {
    return this.options.masterAccounts[key] ?? key;
  }

  jobs(): ModelStudioJob[] {
    const now = this.options.now();
    return [...this.tasks.values()].map((task) => {
      const status = LOWER[this.statusOf(task, now)];
      const { id, model, prompt, createdAt, request } = task;
      return { id, model, prompt, status, createdAt, cancelled: status === 'cancelled', deleted: false, request };
    });
  }

  handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.route(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (error instanceof DashScopeError) return sendError(res, error);
      sendError(res, new DashScopeError(500, 'InternalError', String(error)));
    });
  };

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const file = /^\/files\/([^/]+)\.mp4$/.exec(url.pathname)?.[1];
    if (file !== undefined) return this.serveFile(req, res, file);
    if (url.pathname.startsWith('/simulator/')) return this.simulatorRoute(req, res, url);
    const key = checkAuth(req, this.keys);
    if (url.pathname === CREATE_PATH && req.method === 'POST') return this.create(req, res, key);
    if (url.pathname === TASKS_PATH && req.method === 'GET') return this.list(res, url, key);
    const match = /^\/api\/v1\/tasks\/([^/]+)(\/cancel)?$/.exec(url.pathname);
    if (match?.[1] !== undefined) {
      const id = decodeURIComponent(match[1]);
      if (match[2] && req.method === 'POST') return this.cancel(res, id, key);
      if (!match[2] && req.method === 'GET') return this.get(res, id, key);
    }
    throw new DashScopeError(404, 'NotFound', 'The requested resource is not found.');
  }

  private async create(req: IncomingMessage, res: ServerResponse, key: string): Promise<void> {
    // Video synthesis answers only asynchronously (the references' required header).
    if (req.headers['x-dashscope-async'] !== 'enable') {
      throw new DashScopeError(403, 'AccessDenied', 'current user api does not support synchronous calls');
    }
    const request = (await readJson(req)) as Record<string, unknown>;
    const checked = checkCreate(request, this.options.region);
    const behaviour = behaviourFor(checked.prompt);
    if (behaviour.rejectCreate) {
      throw new DashScopeError(400, 'DataInspectionFailed', 'Input text data may contain inappropriate content.');
    }
    const given = this.rateLimited.get(checked.prompt) ?? 0;
    if (given < behaviour.rateLimitedCreates) {
      this.rateLimited.set(checked.prompt, given + 1);
      throw new DashScopeError(429, 'Throttling.RateQuota', 'Requests rate limit exceeded, please try again later.');
    }
    const now = this.options.now();
    if (this.refusal && now < this.refusal.until) {
      throw new DashScopeError(429, this.refusal.code, 'Requests rate limit exceeded, please try again later.');
    }
    const account = this.accountOf(key);
    this.checkRate(`${account} ${checked.model}`, now);
    const id = randomUUID();
    const task: Task = { id, account, createdAt: now, polls: 0, behaviour, request, ...checked };
    const hasReferences = referencesOf(request).length > 0;
    task.references = hasReferences ? {} : { at: now };
    this.tasks.set(id, task);
    if (hasReferences) this.download(task);
    this.persist();
    sendJson(res, 200, { request_id: randomUUID(), output: { task_id: id, task_status: 'PENDING' } });
  }

  /** Downloads the task's media; it stays PENDING until they are settled, and fails on an unusable one. */
  download(task: Task): void {
    const limits = { ...MODEL_STUDIO_REFERENCE_LIMITS, ...this.options.referenceLimits };
    const timeoutMs = this.options.referenceTimeoutMs ?? DEFAULT_REFERENCE_TIMEOUT_MS;
    void checkReferences(task.request, { limits, timeoutMs }).then((failure) => {
      task.references = { at: this.options.now(), ...(failure && { failure }) };
      this.persist();
    });
  }

  /** `submissionsPerSecond` creates per account and model in any second; one more gets 429. */
  private checkRate(group: string, now: number): void {
    const recent = (this.recentCreates.get(group) ?? []).filter((at) => at > now - 1000);
    if (recent.length >= this.options.submissionsPerSecond) {
      throw new DashScopeError(429, 'Throttling.RateQuota', 'Requests rate limit exceeded, please try again later.');
    }
    this.recentCreates.set(group, [...recent, now]);
  }

  /** The task if this key's account may see it and its 24 h are not over. */
  private visible(id: string, key: string, now: number): Task | undefined {
    const task = this.tasks.get(id);
    if (!task || task.behaviour.lost || task.account !== this.accountOf(key)) return undefined;
    return now < task.createdAt + TASK_TTL_MS ? task : undefined;
  }

  private get(res: ServerResponse, id: string, key: string): void {
    const now = this.options.now();
    const task = this.visible(id, key, now);
    // DashScope answers 200 with UNKNOWN for a task it does not know (or no longer keeps).
    if (task === undefined) {
      return sendJson(res, 200, { request_id: randomUUID(), output: { task_id: id, task_status: 'UNKNOWN' } });
    }
    task.polls += 1;
    if (task.polls <= task.behaviour.unavailablePolls) {
      throw new DashScopeError(500, 'InternalError', 'An internal error has occured, please try again later.');
    }
    sendJson(res, 200, this.describe(task, now));
  }

  private describe(task: Task, now: number): Record<string, unknown> {
    const status = this.statusOf(task, now);
    const planned = this.schedule(task);
    const output: Record<string, unknown> = {
      task_id: task.id,
      task_status: status,
      submit_time: stamp(task.createdAt),
      orig_prompt: task.prompt,
    };
    if (planned && now >= planned.start) output.scheduled_time = stamp(planned.start);
    if (status === 'CANCELED') output.end_time = stamp(task.cancelledAt ?? now);
    if (status === 'SUCCEEDED' || status === 'FAILED') output.end_time = stamp(planned?.end ?? now);
    if (status === 'FAILED') Object.assign(output, task.references?.failure ?? task.behaviour.failure);
    if (status === 'SUCCEEDED') output.video_url = `${this.baseUrl}/files/${task.id}.mp4`;
    const body: Record<string, unknown> = { request_id: randomUUID(), output };
    if (status === 'SUCCEEDED') {
      body.usage = { duration: task.duration, video_count: 1, SR: Number.parseInt(task.resolution, 10) };
    }
    return body;
  }

  /**
   * Only a PENDING task is cancelled (the asynchronous task management page: "cancel queued tasks"); any other
   * answers 400 `UnsupportedOperation` with the message the DashScope SDK's test snapshots show (unconfirmed).
   */
  private cancel(res: ServerResponse, id: string, key: string): void {
    const now = this.options.now();
    const task = this.visible(id, key, now);
    if (task === undefined) throw new DashScopeError(400, 'InvalidParameter', `Task ${id} is not found.`);
    const status = this.statusOf(task, now);
    if (status !== 'PENDING') {
      const message = 'Failed to cancel the task, please confirm if the task is in PENDING status.';
      throw new DashScopeError(400, 'UnsupportedOperation', message);
    }
    task.cancelledAt = now;
    this.persist();
    sendJson(res, 200, { request_id: randomUUID() });
  }

  /** The batch query: the account's tasks by `model_name`, `status`, `start_time`/`end_time` (YYYYMMDDhhmmss). */
  private list(res: ServerResponse, url: URL, key: string): void {
    const now = this.options.now();
    const query = url.searchParams;
    const bound = (name: string, fallback: number): number => {
      const raw = query.get(name);
      if (raw === null) return fallback;
      const parts = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(raw);
      if (!parts) throw new DashScopeError(400, 'InvalidParameter', `${name} must be YYYYMMDDhhmmss.`);
      const [, y, mo, d, h, mi, s] = parts.map(Number) as number[];
      return Date.UTC(y as number, (mo as number) - 1, d, h, mi, s);
    };
    const from = bound('start_time', now - TASK_TTL_MS);
    const to = bound('end_time', now) + 999;
    const pageNo = Number(query.get('page_no') ?? '1');
    const pageSize = Number(query.get('page_size') ?? '10');
    if (!Number.isInteger(pageNo) || pageNo < 1 || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
      throw new DashScopeError(400, 'InvalidParameter', 'page_no must be 1 or more, page_size 1 to 100.');
    }
    const model = query.get('model_name');
    const status = query.get('status');
    const matching = [...this.tasks.values()]
      .filter((task) => this.visible(task.id, key, now) !== undefined)
      .filter((task) => task.createdAt >= from && task.createdAt <= to && (model === null || task.model === model))
      .map((task) => ({ task, status: this.statusOf(task, now) }))
      .filter((entry) => status === null || entry.status === status)
      .sort((a, b) => b.task.createdAt - a.task.createdAt);
    const page = matching.slice((pageNo - 1) * pageSize, pageNo * pageSize);
    sendJson(res, 200, {
      request_id: randomUUID(),
      data: page.map(({ task, status: taskStatus }) => ({
        task_id: task.id,
        status: taskStatus,
        model_name: task.model,
        gmt_create: stamp(task.createdAt),
      })),
      total: matching.length,
      total_page: Math.ceil(matching.length / pageSize),
      page_no: pageNo,
      page_size: pageSize,
    });
  }

  private simulatorRoute(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const now = this.options.now();
    if (req.method === 'POST' && url.pathname === '/simulator/release') {
      const part = url.searchParams.get('prompt');
      if (!part) throw new DashScopeError(400, 'InvalidParameter', 'prompt is required.');
      const held = [...this.tasks.values()].filter(
        (task) =>
          (task.behaviour.held || task.behaviour.heldQueued || task.behaviour.download === 'held') &&
          task.releasedAt === undefined &&
          task.prompt.includes(part),
      );
      for (const task of held) {
        task.releasedAt = now;
        for (const finish of this.heldDownloads.get(task.id) ?? []) finish();
        this.heldDownloads.delete(task.id);
      }
      this.persist();
      return sendJson(res, 200, { released: held.length });
    }
    if (req.method === 'POST' && url.pathname === '/simulator/refuse') {
      const seconds = Number(url.searchParams.get('seconds'));
      const code = url.searchParams.get('code') ?? 'Throttling.RateQuota';
      if (!Number.isFinite(seconds) || seconds < 0) throw new DashScopeError(400, 'InvalidParameter', 'seconds');
      this.refusal = { until: now + seconds * 1000, code };
      return sendJson(res, 200, { until: new Date(this.refusal.until).toISOString(), code });
    }
    if (url.pathname === '/simulator/jobs') return sendJson(res, 200, this.jobs());
    const id = /^\/simulator\/jobs\/([^/]+)$/.exec(url.pathname)?.[1];
    const task = id === undefined ? undefined : this.tasks.get(decodeURIComponent(id));
    if (task === undefined) throw new DashScopeError(404, 'NotFound', 'No such simulated task.');
    const planned = this.schedule(task);
    sendJson(res, 200, {
      id: task.id,
      status: this.statusOf(task, now),
      start: planned && Number.isFinite(planned.start) ? new Date(planned.start).toISOString() : null,
      end: planned && Number.isFinite(planned.end) ? new Date(planned.end).toISOString() : null,
    });
  }

  /**
   * The OSS result URL: no key, succeeded tasks only, GET only (signed for GET), for 24 h after the end. The
   * exact wording of OSS's errors is unconfirmed.
   */
  private serveFile(req: IncomingMessage, res: ServerResponse, id: string): void {
    const now = this.options.now();
    const task = this.tasks.get(id);
    if (task === undefined || this.statusOf(task, now) !== 'SUCCEEDED') {
      return sendStorageXml(req, res, 404, 'NoSuchKey');
    }
    if (req.method !== 'GET') return sendStorageXml(req, res, 403, 'SignatureDoesNotMatch');
    if (now >= (this.schedule(task)?.end ?? now) + URL_TTL_MS) return sendStorageXml(req, res, 403, 'AccessDenied');
    const { download } = task.behaviour;
    if (download === 'not-video') {
      const page = '<!doctype html><html><body>Access denied</body></html>';
      res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(page) });
      return void res.end(page);
    }
    sendVideo(res, this.video, download, {
      released: task.releasedAt !== undefined,
      onRelease: (finish) => this.heldDownloads.set(task.id, [...(this.heldDownloads.get(task.id) ?? []), finish]),
    });
  }
}

export async function startModelStudioSimulator(
  options: ModelStudioSimulatorOptions = {},
): Promise<ModelStudioSimulator> {
  const { port = 0, host = '127.0.0.1' } = options;
  const settings = {
    queuedMs: options.queuedMs ?? 1000,
    runningMs: options.runningMs ?? 2000,
    masterAccounts: options.masterAccounts ?? {},
    concurrentTasks: options.concurrentTasks ?? Number.POSITIVE_INFINITY,
    submissionsPerSecond: options.submissionsPerSecond ?? Number.POSITIVE_INFINITY,
    region: options.region ?? 'singapore',
    now: options.now ?? Date.now,
    ...(options.stateFile === undefined ? {} : { stateFile: options.stateFile }),
    ...(options.apiKeys === undefined ? {} : { apiKeys: options.apiKeys }),
    referenceLimits: options.referenceLimits,
    referenceTimeoutMs: options.referenceTimeoutMs,
  };
  const simulator = new Simulator(settings, await loadVideo());
  const server = createServer(simulator.handle);
  const address = await listen(server, port, host);
  simulator.baseUrl = baseUrlOf(address);
  return {
    baseUrl: simulator.baseUrl,
    port: address.port,
    jobs: () => simulator.jobs(),
    close: () => closeServer(server),
  };
}
