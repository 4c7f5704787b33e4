/**
 * A simulated Ark / BytePlus ModelArk (Seedance) upstream for local runs and tests: the task API the
 * adapter calls (create, get, list, delete under /api/v3/contents/generations/tasks) and /files/{id}.mp4 in
 * place of the presigned video URL. It refuses what Ark documents as refused (rules.ts),
 * and prompt markers pick a misbehaviour per job (markers.ts). With `callback_url` it calls
 * back on every status change (callbacks.ts). Routes under /simulator/ are not Ark's: they
 * show a job's timings and the per-key load and release held jobs, for tests and the benchmark.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CallbackSender, DEFAULT_CALLBACK_RETRY_DELAY_MS, DEFAULT_CALLBACK_TIMEOUT_MS } from './callbacks.js';
import type { CallbackAttempt, CallbackSettings } from './callbacks.js';
import { ArkError, invalid, tooMany } from './errors.js';
import { baseUrlOf, closeServer, listen, sendJson, sendStorageXml } from '../http.js';
import { checkAuth, notFound, readJson, sendError, serveHtml, taskNotFound } from './http.js';
import { behaviourFor, DEFAULT_BEHAVIOUR } from './markers.js';
import type { Behaviour } from './markers.js';
import { FRAMES_PER_SECOND, usageTokens } from './models.js';
import type { ArkPlatform } from './models.js';
import { ARK_REFERENCE_LIMITS, checkReferences, DEFAULT_REFERENCE_TIMEOUT_MS, referencesOf } from './references.js';
import type { ReferenceFailure, ReferenceMedia } from './references.js';
import { checkCreateBody, DEFAULT_EXPIRES_AFTER_SECONDS } from './rules.js';
import type { ReferenceLimit } from '../reference-fetch.js';
import type { RunningSimulator, SimulatedJob, SimulatorOptions } from '../simulator.js';
import { loadVideo, sendVideo } from '../video-file.js';

export type { ArkPlatform } from './models.js';
export type { CallbackAttempt } from './callbacks.js';
export type { SimulatedJob } from '../simulator.js';

/** Reference limits default to references.ts (docs/providers/ark.md). */
export interface UpstreamSimulatorOptions extends SimulatorOptions<ReferenceMedia> {
  /**
   * When set (or `apiKeys`), task routes require `Authorization: Bearer <key>` with one of the keys (401
   * otherwise). Without either, any key (or none) is taken. Any accepted key sees and cancels any job.
   */
  apiKey?: string;
  /** More accepted keys, beside `apiKey`: our several upstream accounts, each with its own cap. */
  apiKeys?: string[];
  /** Queued tasks one master account may hold before creates get 429 QuotaExceeded (Ark: 120). */
  maxQueuedPerAccount?: number;
  /**
   * Queued + running tasks one master account may hold before creates get 429 InflightBatchsizeExceeded.
   * Ark publishes no number (it depends on the account's top-up): none by default, a test's knob.
   */
  maxInflightPerAccount?: number;
  /** How long a callback may wait for a 2xx before it counts as unacknowledged (Ark: 5000). */
  callbackTimeoutMs?: number;
  /** Pause before each of the 3 retries of an unacknowledged final callback (undocumented; 1000). */
  callbackRetryDelayMs?: number;
  /** Whose model ids are known: BytePlus (`seedance-…`, `dreamina-…`, default) or Volcengine (`doubao-…`). */
  platform?: ArkPlatform;
}

export type SimulatedStatus = SimulatedJob['status'];

/** Its `baseUrl` is e.g. `http://127.0.0.1:38211`; the adapter appends `/api/v3/...`. */
export type UpstreamSimulator = RunningSimulator;

const TASKS_PATH = '/api/v3/contents/generations/tasks';
const HOUR_MS = 3_600_000;
/** Queued tasks one master account may hold (BytePlus docs; docs/providers/ark.md, "Capacity"). */
const MAX_QUEUED_TASKS = 120;
/** setTimeout's longest delay; a later status change is looked at again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** `video_url` is a presigned URL valid for 24 h (docs/providers/ark.md; ark-cli arkcli-gen.md). */
const VIDEO_URL_TTL_MS = 24 * HOUR_MS;
/** Tasks are kept 7 days; cancelled ones are deleted after 24 h (docs/providers/ark.md, "Endpoints"). */
const TASK_RETENTION_MS = 7 * 24 * HOUR_MS;
const CANCELLED_RETENTION_MS = 24 * HOUR_MS;

// ---------------------------------------------------------------- job state

interface JobRecord {
  id: string;
  model: string;
  prompt: string;
  createdAt: number;
  cancelledAt?: number;
  /** When a `[simulate:held]` job was released. */
  releasedAt?: number;
  deleted: boolean;
  polls: number;
  seed: number;
  behaviour: Behaviour;
  request: Record<string, unknown>;
  /** The bearer key that created it ('' without one): the unfinished-task cap is per key. */
  apiKey: string;
  expiresAfterSeconds: number;
  /** The request options GET reports back (resolution, ratio, duration, …). */
  echo: Record<string, unknown>;
  /** usage.completion_tokens once succeeded. */
  tokens: number;
  /** How many entries of timeline() have been handed to the callback sender. */
  announced: number;
  /** Every callback attempt, in the order they settled. */
  callbacks: CallbackAttempt[];
  /**
   * The download of its references: `at` once all are settled (the job stays queued until then), `failure`
   * when one could not be used (the job fails then). Absent in older state files: nothing to download.
   */
  references?: { at?: number; failure?: ReferenceFailure };
}

/** Older state files lack the newer fields. */
function normalised(job: JobRecord): JobRecord {
  return {
    ...job,
    behaviour: { ...DEFAULT_BEHAVIOUR, ...job.behaviour },
    apiKey: job.apiKey ?? '',
    expiresAfterSeconds: job.expiresAfterSeconds ?? DEFAULT_EXPIRES_AFTER_SECONDS,
    echo: job.echo ?? { resolution: '720p', ratio: '16:9', duration: 5, framespersecond: FRAMES_PER_SECOND },
    tokens: job.tokens ?? 0,
    // An older file's jobs never called back: announced is set on load to what has already happened.
    announced: job.announced ?? -1,
    callbacks: job.callbacks ?? [],
  };
}

interface Timings {
  queuedMs: number;
  runningMs: number;
}

/** A job fails at once when a reference could not be used. */
const outcomeOf = (job: JobRecord): Behaviour['outcome'] =>
  job.references?.failure ? 'failed' : job.behaviour.outcome;

/** When the job would finish (Infinity for `hang`, and for a held job until it is released). */
function finishesAt(job: JobRecord, timings: Timings): number {
  if (job.references?.failure) return job.references.at ?? Infinity;
  if (job.behaviour.outcome === 'hang') return Infinity;
  const runs = job.createdAt + queuedFor(job, timings);
  if (!job.behaviour.held) return runs + timings.runningMs + job.behaviour.extraRunningMs;
  if (job.releasedAt === undefined) return Infinity;
  return Math.max(runs, job.releasedAt) + timings.runningMs + job.behaviour.extraRunningMs;
}

/**
 * Older state files have no extraQueuedMs: 0. A `[simulate:held-queued]` job waits for its release too, and
 * every job for the download of its references.
 */
function queuedFor(job: JobRecord, timings: Timings): number {
  const fetched = job.references ? (job.references.at ?? Infinity) - job.createdAt : 0;
  const usual = Math.max(fetched, timings.queuedMs + (job.behaviour.extraQueuedMs ?? 0));
  if (!job.behaviour.heldQueued) return usual;
  return job.releasedAt === undefined ? Infinity : Math.max(usual, job.releasedAt - job.createdAt);
}

const expiresAt = (job: JobRecord): number =>
  job.createdAt + job.expiresAfterSeconds * 1000 * (job.behaviour.expiryScale ?? 1);

/** When the job reached a final status other than cancelled. */
const endedAt = (job: JobRecord, timings: Timings): number => Math.min(finishesAt(job, timings), expiresAt(job));

interface Transition {
  status: SimulatedStatus;
  /** Epoch milliseconds on the simulator's clock. */
  at: number;
}

/**
 * Every status the job takes, with when it begins: queued (unless the queue time is 0), running (unless
 * it ends first), then the final status (a `hang` ends expired); a cancel while queued cuts it short.
 * Status is a pure function of the clock: GET, callbacks and /simulator/jobs all read it from here.
 */
function timeline(job: JobRecord, timings: Timings): Transition[] {
  const queueEnds = job.createdAt + queuedFor(job, timings);
  const end = endedAt(job, timings);
  const planned: Transition[] = [];
  if (Math.min(queueEnds, end) > job.createdAt) planned.push({ status: 'queued', at: job.createdAt });
  if (queueEnds < end) planned.push({ status: 'running', at: queueEnds });
  // Not finished within execution_expires_after: Ark reports `expired` (so a `hang` always ends so).
  const final = expiresAt(job) <= finishesAt(job, timings) ? 'expired' : outcomeOf(job);
  if (final !== 'hang') planned.push({ status: final, at: end });
  const { cancelledAt } = job;
  if (cancelledAt === undefined) return planned;
  return [...planned.filter((step) => step.at <= cancelledAt), { status: 'cancelled', at: cancelledAt }];
}

/** The transitions that have happened by `now`. */
const reachedBy = (job: JobRecord, now: number, timings: Timings): Transition[] =>
  timeline(job, timings).filter((step) => step.at <= now);

function statusAt(job: JobRecord, now: number, timings: Timings): SimulatedStatus {
  if (job.cancelledAt !== undefined) return 'cancelled';
  return reachedBy(job, now, timings).at(-1)?.status ?? 'queued';
}

/** When the current status began, for `updated_at`. */
function statusSince(job: JobRecord, status: SimulatedStatus, timings: Timings): number {
  if (status === 'cancelled') return job.cancelledAt ?? job.createdAt;
  if (status === 'queued') return job.createdAt;
  if (status === 'running') return job.createdAt + queuedFor(job, timings);
  return endedAt(job, timings);
}

const isUnfinished = (status: SimulatedStatus): boolean => status === 'queued' || status === 'running';

/** The URL to call back, unless the job stays silent (`[simulate:no-callback]`, or lost upstream). */
function callbackUrlOf(job: JobRecord): string | undefined {
  const url = job.request.callback_url;
  return typeof url === 'string' && !job.behaviour.noCallback && !job.behaviour.lost ? url : undefined;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Enough of a key to tell keys apart in /simulator/stats, never the whole of a long one. */
const keyHint = (key: string): string => (key.length > 4 ? `…${key.slice(-4)}` : key === '' ? '' : '…');

/** Ark ids look like `cgt-20251009163014-wfnnx`: creation time (UTC) and a short random suffix. */
function newTaskId(now: number): string {
  const stamp = new Date(now).toISOString().replace(/\D/g, '').slice(0, 14);
  const suffix = randomBytes(4)
    .toString('base64url')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')
    .slice(0, 5);
  return `cgt-${stamp}-${suffix}`;
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

// ---------------------------------------------------------------- the simulator

interface SimulatorConfig {
  timings: Timings;
  /** The accepted keys in the order given; undefined: any. */
  apiKeys: readonly string[] | undefined;
  maxQueuedPerAccount: number;
  maxInflightPerAccount: number;
  masterAccounts: Readonly<Record<string, string>>;
  callbacks: CallbackSettings;
  platform: ArkPlatform;
  now: () => number;
  stateFile: string | undefined;
  referenceLimits: Readonly<Record<ReferenceMedia, ReferenceLimit>>;
  referenceTimeoutMs: number;
}

class Simulator {
  private readonly jobsById = new Map<string, JobRecord>();
  /** `[simulate:rate-limit]`: 429s already given, per prompt. */
  private readonly rateLimited = new Map<string, number>();
  /** Per key, the most unfinished tasks it held at once (since this start). */
  private readonly peaks = new Map<string, number>();
  /** Per master account, the most queued tasks it held at once (since this start). */
  private readonly queuedPeaks = new Map<string, number>();
  /** POST /simulator/refuse: every create is refused with this code until then (epoch ms). */
  private refusal: { until: number; code: string } | undefined;
  /** Creates refused by the window above, and all creates received. */
  private refusedCreates = 0;
  private createsReceived = 0;
  /** Per job with a callback_url, the timer for its next status change. */
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Held downloads (`[simulate:held-download]`) waiting for their release to send the second half. */
  private readonly heldDownloads = new Map<string, (() => void)[]>();
  private readonly sender: CallbackSender;
  private readonly acceptedKeys: ReadonlySet<string> | undefined;
  private closed = false;
  baseUrl = '';

  constructor(
    private readonly config: SimulatorConfig,
    private readonly video: Buffer,
  ) {
    this.sender = new CallbackSender(config.callbacks, config.now);
    this.acceptedKeys = config.apiKeys && new Set(config.apiKeys);
    const { stateFile } = config;
    if (stateFile && existsSync(stateFile)) {
      const now = config.now();
      for (const job of JSON.parse(readFileSync(stateFile, 'utf8')) as JobRecord[]) {
        const loaded = normalised(job);
        if (loaded.announced < 0) loaded.announced = reachedBy(loaded, now, this.timings).length;
        this.jobsById.set(job.id, loaded);
      }
    }
  }

  /** Once baseUrl is known: reloaded jobs call back what changed meanwhile, and their timers start. */
  start(): void {
    for (const job of this.jobsById.values()) {
      // A download cut short by a restart starts again, as Ark's would not be lost.
      if (job.references && job.references.at === undefined) this.download(job);
      this.advance(job);
    }
  }

  /** Downloads the job's references; the job stays queued until they are settled, and fails on a bad one. */
  private download(job: JobRecord): void {
    const settings = { limits: this.config.referenceLimits, timeoutMs: this.config.referenceTimeoutMs };
    void checkReferences(job.request, settings).then((failure) => {
      if (this.closed) return;
      job.references = { at: this.config.now(), ...(failure && { failure }) };
      this.persist();
      this.advance(job);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.heldDownloads.clear();
    await this.sender.close();
  }

  private get timings(): Timings {
    return this.config.timings;
  }

  /** Whole or not at all: a kill -9 mid-write (the crash tests do it) must not leave half a file to restart from. */
  private persist(): void {
    const { stateFile } = this.config;
    if (!stateFile) return;
    const partial = `${stateFile}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify([...this.jobsById.values()]));
    renameSync(partial, stateFile);
  }

  snapshot(): SimulatedJob[] {
    const now = this.config.now();
    return [...this.jobsById.values()].map((job) => {
      const status = statusAt(job, now, this.timings);
      return {
        id: job.id,
        model: job.model,
        prompt: job.prompt,
        status,
        createdAt: job.createdAt,
        cancelled: status === 'cancelled',
        deleted: job.deleted,
        request: job.request,
      };
    });
  }

  handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.route(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (error instanceof ArkError) return sendError(res, error);
      sendError(res, new ArkError(500, 'InternalServiceError', String(error), 'InternalServerError'));
    });
  };

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://simulator').pathname;
    const file = /^\/files\/([^/]+)\.mp4$/.exec(path);
    if (file?.[1] !== undefined) return this.serveFile(req, res, file[1]);
    if (path.startsWith('/simulator/')) return this.simulatorRoute(req, res, path);

    if (path !== TASKS_PATH && !path.startsWith(`${TASKS_PATH}/`)) throw notFound('The requested path was not found.');
    const key = checkAuth(req, this.acceptedKeys);
    if (path === TASKS_PATH && req.method === 'POST') return this.create(req, res, key);
    if (path === TASKS_PATH && req.method === 'GET') return this.list(req, res, key);
    const id = decodeURIComponent(path.slice(TASKS_PATH.length + 1));
    if (id === '' || id.includes('/')) throw notFound('The requested path was not found.');
    if (req.method === 'GET') return this.get(res, id);
    if (req.method === 'DELETE') return this.delete(res, id);
    throw new ArkError(405, 'MethodNotAllowed', `Method ${req.method ?? ''} is not allowed here.`, 'BadRequest');
  }

  private async create(req: IncomingMessage, res: ServerResponse, key: string): Promise<void> {
    const request = (await readJson(req)) as Record<string, unknown>;
    const checked = checkCreateBody(request, this.config.platform);
    const behaviour = behaviourFor(checked.prompt);
    if (behaviour.rejectCreate) {
      throw new ArkError(
        400,
        'InputTextSensitiveContentDetected',
        'The request failed because the input text may contain sensitive information.',
        'BadRequest',
      );
    }
    this.rateLimit(checked.prompt, behaviour.rateLimitedCreates);
    const now = this.config.now();
    this.createsReceived += 1;
    this.refuseInWindow(now);
    const unfinished = this.checkQuota(key, now);
    let id = newTaskId(now);
    while (this.jobsById.has(id)) id = newTaskId(now);
    // Ark: seed -1 (or absent) means "pick one"; the task then reports the seed it used.
    const seed = checked.seed ?? randomInt(0, 2 ** 31);
    const echo: Record<string, unknown> = {
      resolution: checked.resolution,
      ratio: checked.ratio,
      duration: checked.duration,
      framespersecond: FRAMES_PER_SECOND,
      ...(checked.generateAudio === undefined ? {} : { generate_audio: checked.generateAudio }),
      service_tier: checked.serviceTier,
      execution_expires_after: checked.expiresAfterSeconds,
    };
    const tokens = usageTokens(checked.spec, checked.resolution, checked.ratio, checked.duration);
    const { model, prompt, expiresAfterSeconds } = checked;
    const job = { id, model, prompt, createdAt: now, deleted: false, polls: 0, seed, behaviour, request };
    const record: JobRecord = { ...job, apiKey: key, expiresAfterSeconds, echo, tokens, announced: 0, callbacks: [] };
    const hasReferences = referencesOf(request).length > 0;
    record.references = hasReferences ? {} : { at: now };
    this.jobsById.set(id, record);
    if (!behaviour.lost && isUnfinished(statusAt(record, now, this.timings))) {
      this.peaks.set(key, Math.max(this.peaks.get(key) ?? 0, unfinished + 1));
      const master = this.masterOf(key);
      const queued = this.queuedOf(master, now);
      this.queuedPeaks.set(master, Math.max(this.queuedPeaks.get(master) ?? 0, queued));
    }
    this.persist();
    sendJson(res, 200, { id });
    if (hasReferences) this.download(record);
    this.advance(record);
  }

  private rateLimit(prompt: string, times: number): void {
    const given = this.rateLimited.get(prompt) ?? 0;
    if (given >= times) return;
    this.rateLimited.set(prompt, given + 1);
    throw tooMany(
      'RateLimitExceeded.EndpointRPMExceeded',
      'The request has exceeded the rate limit of requests per minute (RPM) for this endpoint. Please retry later.',
    );
  }

  /** Queued + running tasks of one key; a lost task no longer counts (the upstream forgot it). */
  private unfinishedOf(key: string, now: number): number {
    return this.countOf((job) => job.apiKey === key, now, isUnfinished);
  }

  private countOf(
    whose: (job: JobRecord) => boolean,
    now: number,
    counts: (status: SimulatedStatus) => boolean,
  ): number {
    let count = 0;
    for (const job of this.jobsById.values()) {
      if (!whose(job) || job.deleted || job.behaviour.lost) continue;
      if (counts(statusAt(job, now, this.timings))) count += 1;
    }
    return count;
  }

  private queuedOf(master: string, now: number): number {
    return this.countOf(
      (job) => this.masterOf(job.apiKey) === master,
      now,
      (status) => status === 'queued',
    );
  }

  private masterOf(key: string): string {
    return this.config.masterAccounts[key] ?? key;
  }

  /**
   * At most 120 (maxQueuedPerAccount) queued tasks per master account, whichever of its keys made them:
   * one more gets 429 QuotaExceeded; running tasks do not count (BytePlus docs). An optional limit on
   * queued + running (unpublished on Ark) answers InflightBatchsizeExceeded. Returns the key's unfinished.
   */
  private checkQuota(key: string, now: number): number {
    const master = this.masterOf(key);
    const ofMaster = (job: JobRecord) => this.masterOf(job.apiKey) === master;
    const queued = this.queuedOf(master, now);
    const max = this.config.maxQueuedPerAccount;
    if (queued >= max) {
      throw tooMany(
        'QuotaExceeded',
        `The request failed because your account has reached the limit of ${max} queued tasks. Please retry after some tasks start.`,
      );
    }
    const inflight = this.countOf(ofMaster, now, isUnfinished);
    if (inflight >= this.config.maxInflightPerAccount) {
      throw tooMany(
        'InflightBatchsizeExceeded',
        'The request failed because your account has too many tasks in progress for its current top-up. Please retry later.',
      );
    }
    return this.unfinishedOf(key, now);
  }

  /** A refusal window set by POST /simulator/refuse: an upstream that turns every create away for a while. */
  private refuseInWindow(now: number): void {
    if (!this.refusal || now >= this.refusal.until) return;
    this.refusedCreates += 1;
    throw tooMany(this.refusal.code, 'The request was refused: the service is busy (simulated). Please retry later.');
  }

  private visibleJob(id: string, now: number): JobRecord {
    const job = this.jobsById.get(id);
    if (job === undefined || job.deleted || job.behaviour.lost) throw taskNotFound(id);
    const cancelledGone = job.cancelledAt !== undefined && now >= job.cancelledAt + CANCELLED_RETENTION_MS;
    if (cancelledGone || now >= job.createdAt + TASK_RETENTION_MS) throw taskNotFound(id);
    return job;
  }

  private get(res: ServerResponse, id: string): void {
    const now = this.config.now();
    const job = this.visibleJob(id, now);
    this.advance(job);
    job.polls += 1;
    if (job.polls <= job.behaviour.unavailablePolls) {
      const error = new ArkError(
        503,
        'ServiceUnavailable',
        'The service is temporarily unavailable.',
        'ServiceUnavailable',
      );
      return sendError(res, error, { 'Retry-After': '1' });
    }
    sendJson(res, 200, this.describe(job, statusAt(job, now, this.timings)));
  }

  /**
   * Ark's list (ModelArk "List video generation tasks"; volcengine-python-sdk `tasks.list`): the caller's
   * tasks of the last 7 days, newest first, `page_num` and `page_size` (1 … 500 each), filtered by
   * `filter.status`, `filter.model` and repeated `filter.task_ids`; `{total, items}`, each item as GET
   * answers it. The order is not documented: newest first here.
   */
  private list(req: IncomingMessage, res: ServerResponse, key: string): void {
    const query = new URL(req.url ?? '/', 'http://simulator').searchParams;
    const bounded = (name: string, fallback: number) => {
      const raw = query.get(name);
      if (raw === null) return fallback;
      const value = Number(raw);
      if (!Number.isInteger(value) || value < 1 || value > 500)
        throw invalid(name, 'must be an integer from 1 to 500.');
      return value;
    };
    const pageNum = bounded('page_num', 1);
    const pageSize = bounded('page_size', 10);
    const status = query.get('filter.status');
    const model = query.get('filter.model');
    const ids = new Set(query.getAll('filter.task_ids'));
    const now = this.config.now();
    const matching = [...this.jobsById.values()]
      .filter((job) => job.apiKey === key && this.isVisible(job, now))
      .map((job) => ({ job, status: statusAt(job, now, this.timings) }))
      .filter((entry) => (status === null || entry.status === status) && (model === null || entry.job.model === model))
      .filter((entry) => ids.size === 0 || ids.has(entry.job.id))
      .sort((a, b) => b.job.createdAt - a.job.createdAt);
    const page = matching.slice((pageNum - 1) * pageSize, pageNum * pageSize);
    sendJson(res, 200, { total: matching.length, items: page.map((entry) => this.describe(entry.job, entry.status)) });
  }

  private isVisible(job: JobRecord, now: number): boolean {
    try {
      this.visibleJob(job.id, now);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The GET body for the job in `status`, with the field names Ark uses (`content.video_url`, unix-second
   * timestamps); a callback for a status change carries the same.
   */
  private describe(job: JobRecord, status: SimulatedStatus): Record<string, unknown> {
    const task: Record<string, unknown> = {
      id: job.id,
      model: job.model,
      status,
      error: status === 'failed' ? (job.references?.failure ?? job.behaviour.failure) : null,
      created_at: seconds(job.createdAt),
      updated_at: seconds(statusSince(job, status, this.timings)),
      seed: job.seed,
      ...job.echo,
    };
    if (status === 'succeeded') {
      task.content = { video_url: `${this.baseUrl}/files/${job.id}.mp4` };
      task.usage = { completion_tokens: job.tokens, total_tokens: job.tokens };
    }
    return task;
  }

  /**
   * Ark's DELETE depends on the status: queued -> cancelled; succeeded/failed/expired -> the record is
   * deleted; running/cancelled -> refused. The refusal's HTTP status and code are unconfirmed: 400
   * InvalidParameter here.
   */
  private delete(res: ServerResponse, id: string): void {
    const now = this.config.now();
    const job = this.visibleJob(id, now);
    const status = statusAt(job, now, this.timings);
    if (status === 'queued') job.cancelledAt = now;
    else if (status === 'succeeded' || status === 'failed' || status === 'expired') job.deleted = true;
    else throw invalid('id', `names a ${status} task, which cannot be cancelled or deleted.`);
    this.persist();
    sendJson(res, 200, {});
    this.advance(job);
  }

  // ---------------------------------------------------------------- callbacks

  /**
   * Hands every status change reached by now and not yet announced to the callback sender (final ones
   * are retried when unacknowledged), then sets a timer for the next change. Called by the timer and by
   * every request that looks at the job, so a moved injected clock calls back when GET sees the change.
   */
  private advance(job: JobRecord): void {
    const url = callbackUrlOf(job);
    if (url === undefined || this.closed) return;
    const now = this.config.now();
    const reached = reachedBy(job, now, this.timings);
    if (job.announced < reached.length) {
      for (const { status } of reached.slice(job.announced)) {
        const record = (attempt: CallbackAttempt): void => {
          job.callbacks.push(attempt);
          this.persist();
        };
        const final = !isUnfinished(status);
        this.sender.send({ jobId: job.id, url, status, body: this.describe(job, status), final, record });
      }
      job.announced = reached.length;
      this.persist();
    }
    this.schedule(job, now);
  }

  private schedule(job: JobRecord, now: number): void {
    clearTimeout(this.timers.get(job.id));
    this.timers.delete(job.id);
    const next = timeline(job, this.timings).find((step) => step.at > now);
    if (next === undefined) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(job.id);
        this.advance(job);
      },
      Math.min(MAX_TIMER_MS, Math.max(1, next.at - now)),
    );
    timer.unref();
    this.timers.set(job.id, timer);
  }

  // ---------------------------------------------------------------- /simulator/ (not Ark's API)

  private simulatorRoute(req: IncomingMessage, res: ServerResponse, path: string): void {
    if (req.method === 'POST' && path === '/simulator/release') return sendJson(res, 200, this.release(req));
    if (req.method === 'POST' && path === '/simulator/refuse') return sendJson(res, 200, this.refuse(req));
    if (req.method !== 'GET') {
      throw new ArkError(405, 'MethodNotAllowed', `Method ${req.method ?? ''} is not allowed here.`, 'BadRequest');
    }
    if (path === '/simulator/stats') return sendJson(res, 200, this.stats());
    // What `jobs()` gives in process, for tests that share a stack started by another process.
    if (path === '/simulator/jobs') return sendJson(res, 200, this.snapshot());
    const id = /^\/simulator\/jobs\/([^/]+)$/.exec(path)?.[1];
    if (id === undefined) throw notFound('The requested path was not found.');
    sendJson(res, 200, this.timingsOf(decodeURIComponent(id)));
  }

  /**
   * Releases the held jobs whose prompt contains `?prompt=`: a held generation finishes the usual running time
   * later, a held download sends the rest of its file now.
   */
  private release(req: IncomingMessage): { released: number } {
    const part = new URL(req.url ?? '/', 'http://simulator').searchParams.get('prompt');
    if (!part) throw invalid('prompt', 'is required: part of the prompts of the held jobs to release.');
    const now = this.config.now();
    const jobs = [...this.jobsById.values()].filter(
      (job) =>
        (job.behaviour.held || job.behaviour.heldQueued || job.behaviour.download === 'held') &&
        job.releasedAt === undefined &&
        job.prompt.includes(part),
    );
    for (const job of jobs) job.releasedAt = now;
    this.persist();
    for (const job of jobs) {
      this.advance(job);
      for (const finish of this.heldDownloads.get(job.id) ?? []) finish();
      this.heldDownloads.delete(job.id);
    }
    return { released: jobs.length };
  }

  /**
   * Refuses every create for `?seconds=` from now with 429 `?code=` (default QuotaExceeded); `seconds=0` ends a
   * window early.
   */
  private refuse(req: IncomingMessage): { until: string; code: string } {
    const params = new URL(req.url ?? '/', 'http://simulator').searchParams;
    const seconds = Number(params.get('seconds'));
    if (!Number.isFinite(seconds) || seconds < 0) throw invalid('seconds', 'must be a number of seconds, 0 or more.');
    const code = params.get('code') ?? 'QuotaExceeded';
    if (!/^[A-Za-z.]+$/.test(code)) throw invalid('code', 'must be an error code such as QuotaExceeded.');
    this.refusal = { until: this.config.now() + seconds * 1000, code };
    return { until: iso(this.refusal.until), code };
  }

  /** A job's status changes (ms, ISO) and callback attempts; deleted and lost jobs too. */
  private timingsOf(id: string): Record<string, unknown> {
    const job = this.jobsById.get(id);
    if (job === undefined) throw taskNotFound(id);
    this.advance(job);
    const now = this.config.now();
    return {
      id,
      status: statusAt(job, now, this.timings),
      history: reachedBy(job, now, this.timings).map(({ status, at }) => ({ status, at: iso(at) })),
      callbacks: job.callbacks,
      /** A callback of this job is in flight or waits for a retry. */
      callbackPending: this.sender.pending(id),
    };
  }

  /** Per key (accepted keys in the order given, then others seen): unfinished now, and the most at once. */
  private stats(): Record<string, unknown> {
    const now = this.config.now();
    const keys = new Set([...(this.config.apiKeys ?? []), ...[...this.jobsById.values()].map((job) => job.apiKey)]);
    return {
      maxQueuedPerAccount: this.config.maxQueuedPerAccount,
      ...(Number.isFinite(this.config.maxInflightPerAccount) && {
        maxInflightPerAccount: this.config.maxInflightPerAccount,
      }),
      creates: this.createsReceived,
      refusedCreates: this.refusedCreates,
      keys: [...keys].map((key) => {
        const unfinished = this.unfinishedOf(key, now);
        return { key: keyHint(key), unfinished, peakUnfinished: Math.max(unfinished, this.peaks.get(key) ?? 0) };
      }),
      // Per master account (a key's hint when it is its own): queued now, and the most queued at once.
      accounts: [...new Set([...keys].map((key) => this.masterOf(key)))].map((master) => {
        const queued = this.queuedOf(master, now);
        const named = Object.values(this.config.masterAccounts).includes(master);
        const name = named ? master : keyHint(master);
        return { account: name, queued, peakQueued: Math.max(queued, this.queuedPeaks.get(master) ?? 0) };
      }),
    };
  }

  /**
   * Stands in for the presigned object-storage (TOS) URL: no Bearer auth, only for succeeded jobs, GET only
   * (the signature binds the method, so HEAD is refused: ark-cli arkcli-gen.md) and only for 24 h. The exact
   * wording of TOS's errors is unconfirmed.
   */
  private serveFile(req: IncomingMessage, res: ServerResponse, id: string): void {
    const job = this.jobsById.get(id);
    const now = this.config.now();
    if (job === undefined || statusAt(job, now, this.timings) !== 'succeeded') {
      return sendStorageXml(req, res, 404, 'NoSuchKey', 'The specified key does not exist.');
    }
    if (req.method !== 'GET') {
      return sendStorageXml(req, res, 403, 'SignatureDoesNotMatch', 'The URL is signed for GET only.');
    }
    if (now >= endedAt(job, this.timings) + VIDEO_URL_TTL_MS) {
      return sendStorageXml(req, res, 403, 'AccessDenied', 'Request has expired.');
    }
    const { download } = job.behaviour;
    if (download === 'not-video') return serveHtml(res);
    sendVideo(res, this.video, download, {
      released: job.releasedAt !== undefined,
      onRelease: (finish) => this.heldDownloads.set(job.id, [...(this.heldDownloads.get(job.id) ?? []), finish]),
    });
  }
}

export async function startUpstreamSimulator(options: UpstreamSimulatorOptions = {}): Promise<UpstreamSimulator> {
  const { port = 0, host = '127.0.0.1', queuedMs = 1000, runningMs = 2000, stateFile } = options;
  const {
    platform = 'byteplus',
    now = Date.now,
    maxQueuedPerAccount = MAX_QUEUED_TASKS,
    maxInflightPerAccount = Number.POSITIVE_INFINITY,
  } = options;
  const { callbackTimeoutMs = DEFAULT_CALLBACK_TIMEOUT_MS, callbackRetryDelayMs = DEFAULT_CALLBACK_RETRY_DELAY_MS } =
    options;
  if (!Number.isInteger(maxQueuedPerAccount) || maxQueuedPerAccount < 1) {
    throw new Error(`maxQueuedPerAccount must be a positive integer, not ${maxQueuedPerAccount}`);
  }
  if (
    maxInflightPerAccount !== Number.POSITIVE_INFINITY &&
    !(Number.isInteger(maxInflightPerAccount) && maxInflightPerAccount >= 1)
  ) {
    throw new Error(`maxInflightPerAccount must be a positive integer, not ${maxInflightPerAccount}`);
  }
  const given = [...(options.apiKey === undefined ? [] : [options.apiKey]), ...(options.apiKeys ?? [])];
  if (options.apiKeys !== undefined && given.length === 0) throw new Error('apiKeys is empty: no key would be taken');
  const config: SimulatorConfig = {
    timings: { queuedMs, runningMs },
    apiKeys: given.length > 0 ? [...new Set(given)] : undefined,
    maxQueuedPerAccount,
    maxInflightPerAccount,
    masterAccounts: options.masterAccounts ?? {},
    callbacks: { timeoutMs: callbackTimeoutMs, retryDelayMs: callbackRetryDelayMs },
    platform,
    now,
    stateFile,
    referenceLimits: { ...ARK_REFERENCE_LIMITS, ...options.referenceLimits },
    referenceTimeoutMs: options.referenceTimeoutMs ?? DEFAULT_REFERENCE_TIMEOUT_MS,
  };
  const simulator = new Simulator(config, await loadVideo());
  const server = createServer(simulator.handle);
  const address = await listen(server, port, host);
  simulator.baseUrl = baseUrlOf(address);
  simulator.start();
  return {
    baseUrl: simulator.baseUrl,
    port: address.port,
    jobs: () => simulator.snapshot(),
    close: async () => {
      // Pending callbacks and status timers go first: nothing of the simulator outlives close().
      await simulator.close();
      await closeServer(server);
    },
  };
}
