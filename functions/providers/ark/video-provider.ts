/**
 * VideoProvider for Volcengine Ark / BytePlus ModelArk video tasks (Seedance): create, get and delete
 * under {base}/api/v3/contents/generations/tasks, `Authorization: Bearer`, errors as
 * `{error: {code, message, param, type}}`. Sources: ModelArk API pages "Create/Retrieve/Cancel or delete
 * a video generation task" and the error-code table (docs.byteplus.com/en/docs/ModelArk/1520757).
 */
import * as v from 'valibot';
import type {
  CancelOutcome,
  JobFailureCause,
  JobLookup,
  ModeratedContent,
  ModerationConcern,
  ProviderJobRequest,
  ProviderJobStatus,
  VideoProvider,
} from '../../core/ports/video-provider.js';
import {
  ContentModerationError,
  UpstreamAccountError,
  UpstreamBusyError,
  UpstreamConcurrencyError,
  UpstreamConfigurationError,
  UpstreamJobNotFoundError,
  UpstreamOutcomeUnknownError,
  UpstreamRejectedError,
  UpstreamTransientError,
  missingWhenNotFound,
  upstreamApiKey,
} from '../../core/upstream-errors.js';
import type { ArkPlatform } from './contract.js';
import { ARK_EXPIRY_SECONDS, ARK_PRIVATE_WORDS, arkModelId } from './contract.js';
import { toArkBody } from './request.js';

export interface ArkVideoProviderOptions {
  /** Picks the model ids (contract.ts). */
  platform: ArkPlatform;
  /** Without the `/api/v3` suffix, e.g. `https://ark.ap-southeast.bytepluses.com`. */
  baseUrl: string;
  /**
   * The key, or a getter by upstream account (e.g. a cached Secrets Manager read) resolved before each call:
   * a job is made, read and cancelled with its account's key.
   */
  apiKey: string | ((account: string) => Promise<string>);
  /** Per call, covering connect, headers and body. Default 10 000. */
  requestTimeoutMs?: number;
  /**
   * For the create call, default 30 000 (at least requestTimeoutMs). A create that times out has an
   * unknown outcome, fails the task and may still cost us the job, so it is given longer than a poll.
   */
  createTimeoutMs?: number;
  fetch?: typeof fetch;
}

const TASKS_PATH = '/api/v3/contents/generations/tasks';

// ---------------------------------------------------------------- reply schemas

const CreatedSchema = v.object({ id: v.pipe(v.string(), v.minLength(1)) });

/** Only the fields we use; v.object ignores the rest (seed, usage, ratio, ...). */
const TaskSchema = v.object({
  id: v.string(),
  // `expired`: the task outlived execution_expires_after. Documented for callbacks and DELETE, not
  // in GET's enum, so accepted here to be safe.
  status: v.picklist(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired']),
  content: v.nullish(v.object({ video_url: v.optional(v.pipe(v.string(), v.url())) })),
  error: v.nullish(v.object({ code: v.optional(v.string()), message: v.optional(v.string()) })),
  // Unix seconds of the last status change; only read for a cancel's time, so an odd value is dropped.
  updated_at: v.fallback(v.optional(v.number()), undefined),
});
type Task = v.InferOutput<typeof TaskSchema>;

/**
 * List (`GET …/tasks?page_num&page_size&filter.model`): `{total, items}`, each item at least `id` and
 * `created_at` (unix seconds). Sources: volcengine-python-sdk `tasks.py` list() and
 * `list_content_generation_tasks_response.py`; ModelArk "List video generation tasks" (page_size 1 … 500).
 */
const ListSchema = v.object({
  total: v.number(),
  items: v.array(v.object({ id: v.string(), created_at: v.number() })),
});

/**
 * What a GET echoes of the request (docs/providers/ark.md, "Get reply and statuses"): an absent or odd field tells nothing, so it is
 * dropped rather than failing the read.
 */
const EchoSchema = v.object({
  seed: v.fallback(v.optional(v.number()), undefined),
  resolution: v.fallback(v.optional(v.string()), undefined),
  ratio: v.fallback(v.optional(v.string()), undefined),
  duration: v.fallback(v.optional(v.number()), undefined),
});

/** Jobs listed a page at a time while looking for a lost create's; more pages than this is no answer. */
const LIST_PAGE_SIZE = 100;
const LIST_MAX_PAGES = 10;

const ErrorBodySchema = v.object({
  error: v.object({ code: v.optional(v.string()), message: v.optional(v.string()) }),
});

// ---------------------------------------------------------------- transport

interface Answer {
  status: number;
  headers: Headers;
  /** '' when the body could not be read; callers then fail validation, which is the right outcome. */
  text: string;
}

/** Connection-level codes that prove the request never reached the server (nothing could be created). */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

function neverSent(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' && NEVER_SENT_CODES.has(cause.code);
}

function describeFailure(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  const message = error instanceof Error ? error.message : String(error);
  return detail === '' ? message : `${message} (${detail})`;
}

function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The upstream's own words when it gave them; Ark messages end with a request id, useful in support tickets. */
function upstreamMessage(answer: Answer): string {
  const parsed = v.safeParse(ErrorBodySchema, parseJson(answer.text));
  if (parsed.success) {
    const { code, message } = parsed.output.error;
    if (message !== undefined && message !== '') return message;
    if (code !== undefined && code !== '') return code;
  }
  return `Ark answered HTTP ${answer.status}`;
}

function transient(answer: Answer): UpstreamTransientError {
  return new UpstreamTransientError(upstreamMessage(answer), retryAfterSeconds(answer.headers));
}

// ---------------------------------------------------------------- error mapping
// Ark's codes (docs/providers/ark.md, "Errors"; the code table in volcengine/ark-cli skills/arkcli-doctor/references/
// error-codes.md, which also gives the `.PrivacyInformation` and `.PolicyViolation` suffixes).

function errorCode(answer: Answer): string {
  const parsed = v.safeParse(ErrorBodySchema, parseJson(answer.text));
  return parsed.success ? (parsed.output.error.code ?? '') : '';
}

/** `Input{Text,Image,Video,Audio}SensitiveContentDetected[.X]`; the older bare `SensitiveContentDetected[.X]` is text. */
const INPUT_MODERATION = /^(?:Input(Text|Image|Video|Audio))?SensitiveContentDetected(?:\.(\w+))?$/;
/** Arrives as a failed task's error code, not as an HTTP error. */
const OUTPUT_MODERATION = /^OutputVideoSensitiveContentDetected(?:\.(\w+))?$/;

function concernOf(suffix: string | undefined): ModerationConcern {
  if (suffix === 'PrivacyInformation') return 'privacy';
  if (suffix === 'PolicyViolation') return 'copyright';
  return 'sensitive';
}

function moderationOf(code: string): Extract<JobFailureCause, { kind: 'moderation' }> | undefined {
  const input = INPUT_MODERATION.exec(code);
  if (input) {
    const content = (input[1]?.toLowerCase() ?? 'text') as ModeratedContent;
    return { kind: 'moderation', content, concern: concernOf(input[2]) };
  }
  const output = OUTPUT_MODERATION.exec(code);
  return output ? { kind: 'moderation', content: 'output', concern: concernOf(output[1]) } : undefined;
}

/**
 * Refusals that mean the same on every call: 401 (`AuthenticationError`) and 403 (`AccountOverdueError`,
 * `OperationDenied.ServiceOverdue`, a key without the rights) need an operator; 429 (`QuotaExceeded`,
 * including the 120 unfinished tasks per account, `RateLimitExceeded.*`, `ModelAccountRpmRateLimitExceeded`,
 * `ServerOverloaded`) asks us to come back later. `OperationDenied.ServiceNotOpen` (403) is left to the
 * caller: on create it is a model not enabled, like 404 `ModelNotOpen`.
 */
/** A refusal for the account's concurrency (tied to its top-up; no published number): the in-flight limit is cut. */
const CONCURRENCY_CODES = /^InflightBatchsizeExceeded\b/;
const BUSY_CODES = /^(QuotaExceeded|RateLimitExceeded|ServerOverloaded|\w*RateLimitExceeded|RequestBurstTooFast)\b/;

function accountOrBusy(answer: Answer, code: string): Error | undefined {
  const said = `${code || `HTTP ${answer.status}`}: ${upstreamMessage(answer)}`;
  if (answer.status === 401 || (answer.status === 403 && code !== 'OperationDenied.ServiceNotOpen')) {
    return new UpstreamAccountError(`Ark refused our API key or account (${said})`);
  }
  // By status, and by code whatever the status (a 503 `ServerOverloaded` is no failure of the job either).
  if (CONCURRENCY_CODES.test(code)) return new UpstreamConcurrencyError(`Ark has no room for the job now (${said})`);
  if (answer.status === 429 || BUSY_CODES.test(code)) {
    return new UpstreamBusyError(`Ark has no room for the job now (${said})`);
  }
  return undefined;
}

/** Why a create was refused, as the error the workflow acts on. */
function createRefusal(answer: Answer): Error {
  // A gateway timeout (502/504 from Ark's envoy) may hide a backend that did create the task.
  if (answer.status === 502 || answer.status === 504) {
    return new UpstreamOutcomeUnknownError(`Ark create answered HTTP ${answer.status}; the task may or may not exist`);
  }
  const code = errorCode(answer);
  const moderation = moderationOf(code);
  if (moderation) return new ContentModerationError(moderation.content, moderation.concern, upstreamMessage(answer));
  // 404 `InvalidEndpointOrModel.NotFound`, `ModelNotOpen` (or a base URL that is not Ark's): our configuration.
  if (answer.status === 404 || code === 'OperationDenied.ServiceNotOpen') {
    return new UpstreamConfigurationError(upstreamMessage(answer));
  }
  const shared = accountOrBusy(answer, code);
  if (shared) return shared;
  if (answer.status >= 500) return transient(answer);
  return new UpstreamRejectedError(upstreamMessage(answer));
}

/**
 * A task failed for one of its references (docs/providers/ark.md, "References"): `InvalidParameter` naming
 * `content[n].<image|video|audio>_url`. The body's `content[0]` is the prompt and the references follow in our
 * order (request.ts), so `position` is n − 1. The message's words are unconfirmed: read loosely.
 */
function referenceOf(code: string, message: string): Extract<JobFailureCause, { kind: 'reference' }> | undefined {
  if (!/^(InvalidParameter|InvalidImageURL)\b/.test(code)) return undefined;
  // A URL in the message may hold any word: read the upstream's own words only.
  const words = message.replace(/\bhttps?:\/\/\S+/g, '');
  const param = /\bcontent\[(\d+)\]\.(image|video|audio)_url\b/.exec(message);
  if (!param?.[1] || !param[2]) return undefined;
  const problem = /too large|exceed|size/i.test(words)
    ? 'too-large'
    : /format|type/i.test(words)
      ? 'wrong-type'
      : /download|timed? ?out|unreachable|HTTP \d{3}/i.test(words)
        ? 'unreachable'
        : 'unusable';
  const media = param[2] as 'image' | 'video' | 'audio';
  return { kind: 'reference', problem, media, position: Number(param[1]) - 1 };
}

// ---------------------------------------------------------------- status mapping

function toStatus(task: Task): ProviderJobStatus | undefined {
  switch (task.status) {
    case 'queued':
    case 'running':
      return { state: task.status };
    case 'cancelled':
      return task.updated_at === undefined
        ? { state: 'cancelled' }
        : { state: 'cancelled', cancelledAt: new Date(task.updated_at * 1000).toISOString() };
    case 'succeeded':
      // A success without a URL is a malformed reply, not a result.
      return task.content?.video_url === undefined
        ? undefined
        : { state: 'succeeded', videoUrl: task.content.video_url };
    case 'failed': {
      const message = task.error?.message || task.error?.code || 'Ark reported the task failed';
      // Output moderation arrives this way (docs/providers/ark.md, "Errors"); input moderation found late may too.
      const cause = moderationOf(task.error?.code ?? '') ?? referenceOf(task.error?.code ?? '', message);
      return cause ? { state: 'failed', message, cause } : { state: 'failed', message };
    }
    case 'expired':
      // It outlived its execution_expires_after (docs/providers/ark.md, "Create body", "Get reply and statuses").
      return {
        state: 'failed',
        message: task.error?.message || 'the job expired upstream before it finished',
        cause: { kind: 'expired' },
      };
  }
}

/** The outcome of a cancel for a job no longer queued: nothing was sent, nothing changed. */
function settled(status: Exclude<ProviderJobStatus, { state: 'queued' }> | { state: 'missing' }): CancelOutcome {
  switch (status.state) {
    case 'missing':
      return { outcome: 'not-found' };
    case 'cancelled':
      return { outcome: 'cancelled' };
    default:
      return { outcome: 'refused', state: status.state };
  }
}

/** A field the reply lacks cannot rule the job out. */
function echoMatches(echo: v.InferOutput<typeof EchoSchema>, request: JobLookup['request']): boolean {
  const differs = <T>(echoed: T | undefined, sent: T | undefined) =>
    echoed !== undefined && sent !== undefined && echoed !== sent;
  if (differs(echo.seed, request.seed === -1 ? undefined : request.seed)) return false;
  if (differs(echo.resolution, request.resolution)) return false;
  if (differs(echo.ratio, request.ratio)) return false;
  return !differs(echo.duration, request.durationSeconds);
}

// ---------------------------------------------------------------- the provider

export class ArkVideoProvider implements VideoProvider {
  readonly jobExpirySeconds = ARK_EXPIRY_SECONDS;
  readonly privateWords = ARK_PRIVATE_WORDS;
  private readonly tasksUrl: string;
  private readonly timeoutMs: number;
  private readonly createTimeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ArkVideoProviderOptions) {
    this.tasksUrl = `${options.baseUrl.replace(/\/+$/, '')}${TASKS_PATH}`;
    this.timeoutMs = options.requestTimeoutMs ?? 10_000;
    this.createTimeoutMs = Math.max(options.createTimeoutMs ?? 30_000, this.timeoutMs);
    this.fetchImpl = options.fetch ?? fetch;
  }

  async createJob(request: ProviderJobRequest): Promise<{ jobId: string }> {
    let answer: Answer;
    // Built first: a body it cannot build (an error of its own) is refused before anything is sent.
    const body = toArkBody(request, this.options.platform);
    // Read the key first: failing to read it means nothing was sent, which is safe to retry.
    const key = await this.authorization(request.account);
    try {
      answer = await this.send('POST', this.tasksUrl, key, body, this.createTimeoutMs);
    } catch (error) {
      const detail = describeFailure(error);
      if (neverSent(error)) throw new UpstreamTransientError(`Ark create not sent: ${detail}`);
      throw new UpstreamOutcomeUnknownError(`Ark create ${detail}; the task may or may not exist`);
    }
    return { jobId: this.createdId(answer) };
  }

  private createdId(answer: Answer): string {
    if (answer.status >= 200 && answer.status < 300) {
      const parsed = v.safeParse(CreatedSchema, parseJson(answer.text));
      // Accepted, but we cannot tell which task it made: the task may exist, so never retry blindly.
      if (!parsed.success)
        throw new UpstreamOutcomeUnknownError('Ark accepted the create but its reply has no task id');
      return parsed.output.id;
    }
    throw createRefusal(answer);
  }

  async getJob(jobId: string, account: string): Promise<ProviderJobStatus> {
    const answer = await this.idempotent('GET', this.taskUrl(jobId), account);
    if (answer.status === 404) throw new UpstreamJobNotFoundError(`Ark does not know task ${jobId}`);
    // Any other refusal leaves the job as it is: the paid task still exists upstream and must not be
    // abandoned over a fixable problem (a key or bill: alarmed); the poll asks again until the deadline.
    if (answer.status < 200 || answer.status >= 300)
      throw accountOrBusy(answer, errorCode(answer)) ?? transient(answer);
    const parsed = v.safeParse(TaskSchema, parseJson(answer.text));
    const status = parsed.success ? toStatus(parsed.output) : undefined;
    if (status === undefined) throw new UpstreamTransientError(`Ark sent a malformed reply for task ${jobId}`);
    return status;
  }

  /**
   * Ark's DELETE (docs/providers/ark.md, "Endpoints"): queued → cancelled; succeeded, failed or expired → the record is
   * deleted (the video URL with it); running or cancelled → refused, with an undocumented HTTP code. So the
   * job is read first and only a queued one is sent a DELETE; a refusal is explained by reading it again.
   */
  async cancelJob(jobId: string, account: string): Promise<CancelOutcome> {
    const before = await this.findJob(jobId, account);
    if (before.state !== 'queued') return settled(before);
    const answer = await this.idempotent('DELETE', this.taskUrl(jobId), account);
    // Queued when read, so a DELETE that Ark accepted cancelled it (a job done in those milliseconds: no).
    if (answer.status >= 200 && answer.status < 300) return { outcome: 'cancelled' };
    // Any refusal (its code is undocumented: a 404 or 403 may as well mean "running") is explained by
    // reading the job again: only its state decides whether a refund is safe.
    const after = await this.findJob(jobId, account);
    if (after.state === 'queued') {
      const refused =
        accountOrBusy(answer, errorCode(answer)) ?? (answer.status >= 500 ? transient(answer) : undefined);
      throw (
        refused ?? new UpstreamRejectedError(`Ark refused to cancel queued task ${jobId}: ${upstreamMessage(answer)}`)
      );
    }
    return settled(after);
  }

  /**
   * Jobs of the request's model created in the window whose echoed options (seed, resolution, ratio,
   * duration) agree with the request's. Ark echoes neither the prompt nor the callback URL, so the seed,
   * which StartUpstream picks per claim when the customer gave none, is what tells two jobs apart. The list's
   * order is unconfirmed: newest first is assumed only to stop early (a page wholly older than the window).
   */
  async findJobs(lookup: JobLookup): Promise<string[]> {
    const { request } = lookup;
    const model = arkModelId(request.upstreamModel, this.options.platform);
    if (model === undefined) return [];
    const from = Math.floor(Date.parse(lookup.createdFrom) / 1000);
    const to = Math.ceil(Date.parse(lookup.createdTo) / 1000);
    const candidates: string[] = [];
    let seen = 0;
    for (let page = 1; ; page += 1) {
      if (page > LIST_MAX_PAGES) throw new UpstreamTransientError(`Ark lists too many ${model} jobs to look through`);
      const query = new URLSearchParams({
        page_num: String(page),
        page_size: String(LIST_PAGE_SIZE),
        'filter.model': model,
      });
      const answer = await this.idempotent('GET', `${this.tasksUrl}?${query.toString()}`, request.account);
      if (answer.status < 200 || answer.status >= 300)
        throw accountOrBusy(answer, errorCode(answer)) ?? transient(answer);
      const parsed = v.safeParse(ListSchema, parseJson(answer.text));
      if (!parsed.success) throw new UpstreamTransientError('Ark sent a malformed task list');
      const { total, items } = parsed.output;
      for (const item of items) if (item.created_at >= from && item.created_at <= to) candidates.push(item.id);
      seen += items.length;
      if (items.length === 0 || seen >= total || items.every((item) => item.created_at < from)) break;
    }
    const matches: string[] = [];
    for (const id of candidates) {
      const answer = await this.idempotent('GET', this.taskUrl(id), request.account);
      if (answer.status === 404) continue;
      if (answer.status < 200 || answer.status >= 300)
        throw accountOrBusy(answer, errorCode(answer)) ?? transient(answer);
      const echo = v.safeParse(EchoSchema, parseJson(answer.text));
      if (!echo.success) throw new UpstreamTransientError(`Ark sent a malformed reply for task ${id}`);
      if (echoMatches(echo.output, request)) matches.push(id);
    }
    return matches;
  }

  /** The job's status, or `missing` when Ark does not know it (never created, or its record deleted). */
  private async findJob(jobId: string, account: string): Promise<ProviderJobStatus | { state: 'missing' }> {
    return missingWhenNotFound(this.getJob(jobId, account));
  }

  private async authorization(account: string): Promise<string> {
    return upstreamApiKey(this.options.apiKey, account, 'Ark');
  }

  private taskUrl(jobId: string): string {
    return `${this.tasksUrl}/${encodeURIComponent(jobId)}`;
  }

  /** GET and DELETE are safe to repeat, so any failure to get an answer is transient. */
  private async idempotent(method: 'GET' | 'DELETE', url: string, account: string): Promise<Answer> {
    const key = await this.authorization(account);
    try {
      return await this.send(method, url, key);
    } catch (error) {
      throw new UpstreamTransientError(`Ark ${method} ${describeFailure(error)}`);
    }
  }

  /** Throws only when no status line arrived; a body that breaks off later yields text ''. */
  private async send(
    method: string,
    url: string,
    key: string,
    body?: unknown,
    timeoutMs = this.timeoutMs,
  ): Promise<Answer> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${key}`,
      Accept: 'application/json',
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await this.fetchImpl(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text().catch(() => '');
    return { status: response.status, headers: response.headers, text };
  }
}
