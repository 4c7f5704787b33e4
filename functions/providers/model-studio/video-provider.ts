/**
 * VideoProvider for Alibaba Cloud Model Studio (DashScope) Wan tasks (docs/providers/model-studio.md):
 * create with `X-DashScope-Async: enable` at {base}/api/v1/services/aigc/video-generation/video-synthesis,
 * read at /api/v1/tasks/{id}, cancel a PENDING task at /api/v1/tasks/{id}/cancel, list at /api/v1/tasks.
 * `Authorization: Bearer`; errors `{request_id, code, message}`.
 */
import * as v from 'valibot';
import type {
  CancelOutcome,
  JobLookup,
  ProviderJobRequest,
  ProviderJobStatus,
  VideoProvider,
} from '../../core/ports/video-provider.js';
import {
  UpstreamJobNotFoundError,
  UpstreamOutcomeUnknownError,
  UpstreamRejectedError,
  UpstreamTransientError,
  missingWhenNotFound,
  upstreamApiKey,
} from '../../core/upstream-errors.js';
import { MODEL_STUDIO_PRIVATE_WORDS, wanModel } from './contract.js';
import type { ModelStudioRegion } from './contract.js';
import { accountOrBusy, createRefusal, errorCode, parseJson, TaskSchema, toStatus, transient } from './errors.js';
import type { Answer } from './errors.js';
import { toDashScopeBody } from './request.js';

export interface ModelStudioVideoProviderOptions {
  /** Picks the model ids; keys are per region. */
  region: ModelStudioRegion;
  /** Without `/api/v1`, e.g. `https://dashscope-intl.aliyuncs.com` or a workspace domain. */
  baseUrl: string;
  /** The key, or a getter by upstream account, resolved before each call. */
  apiKey: string | ((account: string) => Promise<string>);
  /** Per call. Default 10 000. */
  requestTimeoutMs?: number;
  /** For the create call, default 30 000 (at least requestTimeoutMs): a create that times out has an unknown outcome. */
  createTimeoutMs?: number;
  fetch?: typeof fetch;
}

const CREATE_PATH = '/api/v1/services/aigc/video-generation/video-synthesis';
const TASKS_PATH = '/api/v1/tasks';

const CreatedSchema = v.object({ output: v.object({ task_id: v.pipe(v.string(), v.minLength(1)) }) });
/** The batch query: `{data: [{task_id, …}], total}`; other fields unused. */
const ListSchema = v.object({
  total: v.optional(v.number()),
  data: v.array(v.object({ task_id: v.string() })),
});
const LIST_PAGE_SIZE = 100;
const LIST_MAX_PAGES = 10;
/** The list's time bounds are `YYYYMMDDhhmmss` in an unstated zone: widened by Beijing's 8 h each side. */
const LIST_ZONE_SLACK_MS = 8 * 3_600_000;

const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

function neverSent(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' && NEVER_SENT_CODES.has(cause.code);
}

function describeFailure(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const message = error instanceof Error ? error.message : String(error);
  return typeof cause?.code === 'string' ? `${message} (${cause.code})` : message;
}

const listTime = (ms: number): string => new Date(ms).toISOString().replace(/\D/g, '').slice(0, 14);

export class ModelStudioVideoProvider implements VideoProvider {
  /**
   * Model Studio takes no expiry: it keeps a task 24 h (docs/providers/model-studio.md, "Task statuses"), so a
   * job is not given longer than that.
   */
  readonly jobExpirySeconds = { min: 1, max: 86_400 };
  readonly privateWords = MODEL_STUDIO_PRIVATE_WORDS;
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly createTimeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ModelStudioVideoProviderOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.requestTimeoutMs ?? 10_000;
    this.createTimeoutMs = Math.max(options.createTimeoutMs ?? 30_000, this.timeoutMs);
    this.fetchImpl = options.fetch ?? fetch;
  }

  async createJob(request: ProviderJobRequest): Promise<{ jobId: string }> {
    const body = toDashScopeBody(request, this.options.region);
    const key = await this.authorization(request.account);
    let answer: Answer;
    try {
      answer = await this.send('POST', `${this.base}${CREATE_PATH}`, key, body, this.createTimeoutMs);
    } catch (error) {
      const detail = describeFailure(error);
      if (neverSent(error)) throw new UpstreamTransientError(`Model Studio create not sent: ${detail}`);
      throw new UpstreamOutcomeUnknownError(`Model Studio create ${detail}; the task may or may not exist`);
    }
    if (answer.status < 200 || answer.status >= 300) throw createRefusal(answer);
    const parsed = v.safeParse(CreatedSchema, parseJson(answer.text));
    if (!parsed.success) throw new UpstreamOutcomeUnknownError('Model Studio accepted the create without a task id');
    return { jobId: parsed.output.output.task_id };
  }

  async getJob(jobId: string, account: string): Promise<ProviderJobStatus> {
    const answer = await this.idempotent('GET', this.taskUrl(jobId), account);
    if (answer.status === 404) throw new UpstreamJobNotFoundError(`Model Studio does not know task ${jobId}`);
    if (answer.status < 200 || answer.status >= 300)
      throw accountOrBusy(answer, errorCode(answer)) ?? transient(answer);
    const parsed = v.safeParse(TaskSchema, parseJson(answer.text));
    if (!parsed.success) throw new UpstreamTransientError(`Model Studio sent a malformed reply for task ${jobId}`);
    // UNKNOWN: no such task for this account, or its 24 h are over.
    if (parsed.output.output.task_status === 'UNKNOWN') {
      throw new UpstreamJobNotFoundError(`Model Studio does not know task ${jobId} (UNKNOWN)`);
    }
    const status = toStatus(parsed.output.output);
    if (status === undefined)
      throw new UpstreamTransientError(`Model Studio sent a success without a URL for ${jobId}`);
    return status;
  }

  /**
   * Only a PENDING task can be cancelled (docs/providers/model-studio.md, "Cancel"): the task is read first, a
   * PENDING one is sent the cancel, and a refusal is explained by reading it again.
   */
  async cancelJob(jobId: string, account: string): Promise<CancelOutcome> {
    const before = await this.findJob(jobId, account);
    if (before.state !== 'queued') return settled(before);
    const answer = await this.idempotent('POST', `${this.taskUrl(jobId)}/cancel`, account);
    if (answer.status >= 200 && answer.status < 300) return { outcome: 'cancelled' };
    const after = await this.findJob(jobId, account);
    if (after.state === 'queued') {
      const refused =
        accountOrBusy(answer, errorCode(answer)) ?? (answer.status >= 500 ? transient(answer) : undefined);
      throw refused ?? new UpstreamRejectedError(`Model Studio refused to cancel PENDING task ${jobId}`);
    }
    return settled(after);
  }

  /**
   * Tasks of the model listed in the window, each read to compare its `orig_prompt` with ours; a task that does
   * not echo the prompt cannot be ruled out (so two such are ambiguous, and none is adopted).
   */
  async findJobs(lookup: JobLookup): Promise<string[]> {
    const { request } = lookup;
    const model = wanModel(request.upstreamModel)?.ids[this.options.region];
    if (model === undefined) return [];
    const from = Date.parse(lookup.createdFrom) - LIST_ZONE_SLACK_MS;
    const to = Date.parse(lookup.createdTo) + LIST_ZONE_SLACK_MS;
    const candidates: string[] = [];
    for (let page = 1; ; page += 1) {
      if (page > LIST_MAX_PAGES) throw new UpstreamTransientError(`Model Studio lists too many ${model} tasks`);
      const query = new URLSearchParams({
        model_name: model,
        start_time: listTime(from),
        end_time: listTime(to),
        page_no: String(page),
        page_size: String(LIST_PAGE_SIZE),
      });
      const answer = await this.idempotent('GET', `${this.base}${TASKS_PATH}?${query.toString()}`, request.account);
      if (answer.status < 200 || answer.status >= 300)
        throw accountOrBusy(answer, errorCode(answer)) ?? transient(answer);
      const parsed = v.safeParse(ListSchema, parseJson(answer.text));
      if (!parsed.success) throw new UpstreamTransientError('Model Studio sent a malformed task list');
      candidates.push(...parsed.output.data.map((item) => item.task_id));
      const total = parsed.output.total ?? candidates.length;
      if (parsed.output.data.length < LIST_PAGE_SIZE || candidates.length >= total) break;
    }
    const matches: string[] = [];
    for (const id of candidates) {
      const answer = await this.idempotent('GET', this.taskUrl(id), request.account);
      if (answer.status < 200 || answer.status >= 300)
        throw accountOrBusy(answer, errorCode(answer)) ?? transient(answer);
      const parsed = v.safeParse(TaskSchema, parseJson(answer.text));
      if (!parsed.success) throw new UpstreamTransientError(`Model Studio sent a malformed reply for task ${id}`);
      const { orig_prompt: prompt, task_status: status } = parsed.output.output;
      if (status === 'UNKNOWN') continue;
      if (prompt === undefined || prompt === request.prompt) matches.push(id);
    }
    return matches;
  }

  private async findJob(jobId: string, account: string): Promise<ProviderJobStatus | { state: 'missing' }> {
    return missingWhenNotFound(this.getJob(jobId, account));
  }

  private async authorization(account: string): Promise<string> {
    return upstreamApiKey(this.options.apiKey, account, 'Model Studio');
  }

  private taskUrl(jobId: string): string {
    return `${this.base}${TASKS_PATH}/${encodeURIComponent(jobId)}`;
  }

  /** Reads, and a cancel (repeating it changes nothing): any failure to get an answer is transient. */
  private async idempotent(method: 'GET' | 'POST', url: string, account: string): Promise<Answer> {
    const key = await this.authorization(account);
    try {
      return await this.send(method, url, key);
    } catch (error) {
      throw new UpstreamTransientError(`Model Studio ${method} ${describeFailure(error)}`);
    }
  }

  private async send(method: string, url: string, key: string, body?: unknown, timeoutMs = this.timeoutMs) {
    const headers: Record<string, string> = { Authorization: `Bearer ${key}`, Accept: 'application/json' };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      // Video synthesis is asynchronous only: without this header Model Studio refuses the call (403).
      headers['X-DashScope-Async'] = 'enable';
    }
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
