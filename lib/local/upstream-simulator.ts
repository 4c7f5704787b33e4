/**
 * A simulated Ark / BytePlus ModelArk (Seedance) upstream for local runs and tests: the task API the
 * adapter calls (create, get, delete under /api/v3/contents/generations/tasks) and /files/{id}.mp4 in
 * place of the video URL. Prompt markers (`[simulate:fail]`, …) pick a behaviour per job: see MARKERS.
 * Only node:http, so it starts in a plain process.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UpstreamSimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** How long a job stays `queued`. */
  queuedMs?: number;
  /** How long a job stays `running` after the queue. */
  runningMs?: number;
  /** When set, task routes require `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string;
  /**
   * When set, jobs are kept in this JSON file and reloaded on start: the real upstream outlives a crash
   * of our service, so the simulated one must too (crash-recovery tests rely on it).
   */
  stateFile?: string;
}

export type SimulatedStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface SimulatedJob {
  id: string;
  model: string;
  prompt: string;
  status: SimulatedStatus;
  /** Epoch milliseconds. */
  createdAt: number;
  cancelled: boolean;
  /** DELETE on a final task removes its record: GET answers 404 afterwards, as on Ark. */
  deleted: boolean;
  /** The POST body as received, so tests can check the adapter's request mapping. */
  request: Record<string, unknown>;
}

export interface UpstreamSimulator {
  /** e.g. `http://127.0.0.1:38211`; the adapter appends `/api/v3/...`. */
  baseUrl: string;
  port: number;
  close(): Promise<void>;
  jobs(): SimulatedJob[];
}

const TASKS_PATH = '/api/v3/contents/generations/tasks';
const FIXTURE_URL = new URL('./fixtures/sample.mp4', import.meta.url);
/** Ark caps a task request body at 64 MB; the simulator only needs JSON with URLs. */
const MAX_BODY_BYTES = 1024 * 1024;
/** How long `[simulate:slow-download]` holds back the second half of the file. */
const SLOW_DOWNLOAD_MS = 15_000;

// ---------------------------------------------------------------- behaviours

interface Behaviour {
  /** What the job ends as once queuedMs + runningMs have passed; `hang` stays running forever. */
  outcome: 'succeeded' | 'failed' | 'hang';
  failure: { code: string; message: string };
  /** GET answers 503 for this many polls before behaving. */
  unavailablePolls: number;
  /** GET answers 404 right after creation, as if the upstream lost the task. */
  lost: boolean;
  download: 'ok' | 'broken' | 'not-video' | 'slow';
  /** POST answers 400, as Ark does for a prompt its input moderation refuses. */
  rejectCreate: boolean;
  /** Added to the running time: a long generation, whatever the simulator's timings. */
  extraRunningMs: number;
}

const DEFAULT_BEHAVIOUR: Behaviour = {
  outcome: 'succeeded',
  failure: { code: 'InternalServiceError', message: 'The service encountered an unexpected internal error.' },
  unavailablePolls: 0,
  lost: false,
  download: 'ok',
  rejectCreate: false,
  extraRunningMs: 0,
};

/**
 * Marker -> behaviour override. Markers combine (later ones win on the same field), so a new failure
 * mode is one row here plus, if it needs it, one branch where the field is read.
 */
const MARKERS: Readonly<Record<string, Partial<Behaviour>>> = {
  '[simulate:fail]': {
    outcome: 'failed',
    // Real Ark code for output moderation (error-code table, 400 BadRequest family).
    failure: {
      code: 'OutputVideoSensitiveContentDetected',
      message: 'The request failed because the output video may contain sensitive information.',
    },
  },
  '[simulate:upstream-5xx]': { unavailablePolls: 2 },
  '[simulate:hang]': { outcome: 'hang' },
  '[simulate:lost]': { lost: true },
  '[simulate:broken-download]': { download: 'broken' },
  '[simulate:not-video]': { download: 'not-video' },
  '[simulate:reject]': { rejectCreate: true },
  '[simulate:slow]': { extraRunningMs: 20_000 },
  '[simulate:slow-download]': { download: 'slow' },
};

function behaviourFor(prompt: string): Behaviour {
  let behaviour = { ...DEFAULT_BEHAVIOUR };
  for (const [marker, override] of Object.entries(MARKERS)) {
    if (prompt.includes(marker)) behaviour = { ...behaviour, ...override };
  }
  return behaviour;
}

// ---------------------------------------------------------------- job state

interface JobRecord {
  id: string;
  model: string;
  prompt: string;
  createdAt: number;
  cancelledAt?: number;
  deleted: boolean;
  polls: number;
  seed: number;
  behaviour: Behaviour;
  request: Record<string, unknown>;
}

interface Timings {
  queuedMs: number;
  runningMs: number;
}

/** Status is a pure function of the clock, so no timers need cleaning up on close. */
function statusAt(job: JobRecord, now: number, timings: Timings): SimulatedStatus {
  if (job.cancelledAt !== undefined) return 'cancelled';
  const elapsed = now - job.createdAt;
  if (elapsed < timings.queuedMs) return 'queued';
  if (elapsed < runningEndsAfter(job, timings) || job.behaviour.outcome === 'hang') return 'running';
  return job.behaviour.outcome;
}

/** When the current status began, for `updated_at`. */
function statusSince(job: JobRecord, status: SimulatedStatus, timings: Timings): number {
  if (status === 'cancelled') return job.cancelledAt ?? job.createdAt;
  if (status === 'queued') return job.createdAt;
  if (status === 'running') return job.createdAt + timings.queuedMs;
  return job.createdAt + runningEndsAfter(job, timings);
}

function runningEndsAfter(job: JobRecord, timings: Timings): number {
  return timings.queuedMs + timings.runningMs + (job.behaviour.extraRunningMs ?? 0);
}

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

// ---------------------------------------------------------------- request validation

class ArkError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly type: string,
    readonly param = '',
  ) {
    super(message);
  }
}

const badRequest = (code: string, message: string, param: string): ArkError =>
  new ArkError(400, code, message, 'BadRequest', param);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const MEDIA_TYPES = ['image_url', 'video_url', 'audio_url'] as const;

function validateContentItem(item: unknown, index: number): void {
  const param = `content[${index}]`;
  if (!isRecord(item)) throw badRequest('InvalidParameter', `The parameter \`${param}\` must be an object.`, param);
  if (item.type === 'text') {
    if (typeof item.text !== 'string')
      throw badRequest('InvalidParameter', `\`${param}.text\` must be a string.`, param);
    return;
  }
  const media = MEDIA_TYPES.find((type) => type === item.type);
  if (media === undefined) throw badRequest('InvalidParameter', `\`${param}.type\` is not supported.`, param);
  const holder = item[media];
  if (!isRecord(holder) || typeof holder.url !== 'string' || holder.url === '') {
    throw badRequest('InvalidParameter', `\`${param}.${media}.url\` must be a non-empty string.`, param);
  }
  if (item.role !== undefined && typeof item.role !== 'string') {
    throw badRequest('InvalidParameter', `\`${param}.role\` must be a string.`, param);
  }
}

/** Returns the prompt. Checks only what the simulator relies on; the real API checks far more. */
function validateCreateBody(body: unknown): { model: string; prompt: string } {
  if (!isRecord(body)) throw badRequest('InvalidParameter', 'The request body must be a JSON object.', '');
  if (typeof body.model !== 'string' || body.model === '') {
    throw badRequest('MissingParameter', 'The request failed because it is missing the `model` parameter.', 'model');
  }
  if (!Array.isArray(body.content)) {
    throw badRequest(
      'MissingParameter',
      'The request failed because it is missing the `content` parameter.',
      'content',
    );
  }
  body.content.forEach(validateContentItem);
  const texts = body.content.filter(
    (item): item is { type: 'text'; text: string } => isRecord(item) && item.type === 'text',
  );
  const [first] = texts;
  if (texts.length !== 1 || first === undefined) {
    throw badRequest('InvalidParameter', '`content` must contain exactly one text item.', 'content');
  }
  return { model: body.model, prompt: first.text };
}

// ---------------------------------------------------------------- HTTP plumbing

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Ark's error body: `{ error: { code, message, param, type } }`. */
function sendError(res: ServerResponse, error: ArkError, headers: Record<string, string> = {}): void {
  const requestId = randomBytes(8).toString('hex');
  const message = `${error.message} Request id: ${requestId}`;
  sendJson(res, error.status, { error: { code: error.code, message, param: error.param, type: error.type } }, headers);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw badRequest('InvalidParameter', 'The request body is too large.', '');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw badRequest('InvalidParameter', 'The request body is not valid JSON.', '');
  }
}

function checkAuth(req: IncomingMessage, apiKey: string | undefined): void {
  if (apiKey === undefined || req.headers.authorization === `Bearer ${apiKey}`) return;
  // Same code, type and wording as a real 401 from Ark.
  throw new ArkError(
    401,
    'AuthenticationError',
    'the API key or AK/SK in the request is missing or invalid.',
    'Unauthorized',
  );
}

// ---------------------------------------------------------------- the simulator

class Simulator {
  private readonly jobsById = new Map<string, JobRecord>();
  baseUrl = '';

  constructor(
    private readonly timings: Timings,
    private readonly apiKey: string | undefined,
    private readonly video: Buffer,
    private readonly stateFile?: string,
  ) {
    if (stateFile && existsSync(stateFile)) {
      for (const job of JSON.parse(readFileSync(stateFile, 'utf8')) as JobRecord[]) this.jobsById.set(job.id, job);
    }
  }

  private persist(): void {
    if (this.stateFile) writeFileSync(this.stateFile, JSON.stringify([...this.jobsById.values()]));
  }

  snapshot(): SimulatedJob[] {
    const now = Date.now();
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
    if (file?.[1] !== undefined && (req.method === 'GET' || req.method === 'HEAD'))
      return this.serveFile(req, res, file[1]);

    if (path !== TASKS_PATH && !path.startsWith(`${TASKS_PATH}/`)) throw notFound('The requested path was not found.');
    checkAuth(req, this.apiKey);
    if (path === TASKS_PATH && req.method === 'POST') return this.create(req, res);
    const id = decodeURIComponent(path.slice(TASKS_PATH.length + 1));
    if (id === '' || id.includes('/')) throw notFound('The requested path was not found.');
    if (req.method === 'GET') return this.get(res, id);
    if (req.method === 'DELETE') return this.delete(res, id);
    throw new ArkError(405, 'MethodNotAllowed', `Method ${req.method ?? ''} is not allowed here.`, 'BadRequest');
  }

  private async create(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req);
    const { model, prompt } = validateCreateBody(body);
    const request = body as Record<string, unknown>;
    const now = Date.now();
    let id = newTaskId(now);
    while (this.jobsById.has(id)) id = newTaskId(now);
    // Ark: seed -1 (or absent) means "pick one"; the task then reports the seed it used.
    const seed = typeof request.seed === 'number' && request.seed >= 0 ? request.seed : randomInt(0, 2 ** 31);
    const behaviour = behaviourFor(prompt);
    if (behaviour.rejectCreate) {
      throw new ArkError(
        400,
        'InputTextSensitiveContentDetected',
        'The request failed because the input text may contain sensitive information.',
        'BadRequest',
      );
    }
    this.jobsById.set(id, { id, model, prompt, createdAt: now, deleted: false, polls: 0, seed, behaviour, request });
    this.persist();
    sendJson(res, 200, { id });
  }

  private visibleJob(id: string): JobRecord {
    const job = this.jobsById.get(id);
    if (job === undefined || job.deleted || job.behaviour.lost) throw taskNotFound(id);
    return job;
  }

  private get(res: ServerResponse, id: string): void {
    const job = this.visibleJob(id);
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
    sendJson(res, 200, this.describe(job));
  }

  /** The GET body, with the field names Ark uses (`content.video_url`, unix-second timestamps). */
  private describe(job: JobRecord): Record<string, unknown> {
    const status = statusAt(job, Date.now(), this.timings);
    const request = job.request;
    const task: Record<string, unknown> = {
      id: job.id,
      model: job.model,
      status,
      error: status === 'failed' ? job.behaviour.failure : null,
      created_at: seconds(job.createdAt),
      updated_at: seconds(statusSince(job, status, this.timings)),
      seed: job.seed,
      resolution: request.resolution ?? '720p',
      ratio: request.ratio ?? '16:9',
      duration: request.duration ?? 5,
      framespersecond: 24,
      generate_audio: request.generate_audio ?? false,
    };
    if (status === 'succeeded') {
      task.content = { video_url: `${this.baseUrl}/files/${job.id}.mp4` };
      task.usage = { completion_tokens: 108900, total_tokens: 108900 };
    }
    return task;
  }

  /**
   * Ark's DELETE depends on the status: queued -> cancelled; succeeded/failed/expired -> the record is
   * deleted; running/cancelled -> refused. The refusal's exact code is not documented; this is a guess.
   */
  private delete(res: ServerResponse, id: string): void {
    const job = this.visibleJob(id);
    const status = statusAt(job, Date.now(), this.timings);
    if (status === 'queued') job.cancelledAt = Date.now();
    else if (status === 'succeeded' || status === 'failed') job.deleted = true;
    else throw badRequest('InvalidParameter', `A task in status ${status} cannot be cancelled or deleted.`, 'id');
    this.persist();
    sendJson(res, 200, {});
  }

  /** Stands in for the presigned object-storage URL: no Bearer auth, only for succeeded jobs. */
  private serveFile(req: IncomingMessage, res: ServerResponse, id: string): void {
    const job = this.jobsById.get(id);
    if (job === undefined || statusAt(job, Date.now(), this.timings) !== 'succeeded') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('NoSuchKey');
      return;
    }
    if (job.behaviour.download === 'not-video') return serveHtml(req, res);
    res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': this.video.length });
    if (req.method === 'HEAD') return void res.end();
    if (job.behaviour.download === 'ok') return void res.end(this.video);
    const half = Math.floor(this.video.length / 2);
    if (job.behaviour.download === 'slow') {
      // Half now, the rest after 15 s: a transfer that takes a while (unless the reader gives up first).
      res.write(this.video.subarray(0, half));
      setTimeout(() => {
        if (!res.destroyed) res.end(this.video.subarray(half));
      }, SLOW_DOWNLOAD_MS).unref();
      return;
    }
    // Broken download: promise the whole file, send half, then drop the connection.
    res.write(this.video.subarray(0, half), () => res.destroy());
  }
}

function serveHtml(req: IncomingMessage, res: ServerResponse): void {
  const page = '<!doctype html><html><body><h1>Access denied</h1></body></html>';
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(page) });
  res.end(req.method === 'HEAD' ? undefined : page);
}

const notFound = (message: string): ArkError => new ArkError(404, 'NotFound', message, 'NotFound');

/** Ark's error-code table lists 404 `NotFound.{Parameter}` for a missing resource; the exact code for a task id is unconfirmed. */
const taskNotFound = (id: string): ArkError =>
  new ArkError(404, 'ResourceNotFound', `The specified task ${id} is not found.`, 'NotFound', 'id');

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

export async function startUpstreamSimulator(options: UpstreamSimulatorOptions = {}): Promise<UpstreamSimulator> {
  const { port = 0, host = '127.0.0.1', queuedMs = 1000, runningMs = 2000, apiKey, stateFile } = options;
  const simulator = new Simulator({ queuedMs, runningMs }, apiKey, await readFile(FIXTURE_URL), stateFile);
  const server = createServer(simulator.handle);
  const address = await listen(server, port, host);
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  simulator.baseUrl = `http://${urlHost}:${address.port}`;
  return {
    baseUrl: simulator.baseUrl,
    port: address.port,
    jobs: () => simulator.snapshot(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // close() alone waits for keep-alive and hanging sockets; tests must not.
        server.closeAllConnections();
      }),
  };
}
