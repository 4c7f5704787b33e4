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
  UpstreamTransientError,
} from '../../core/upstream-errors.js';
import { cancelIfQueued, parseJson, succeeded, UpstreamHttp } from '../upstream-http.js';
import type { UpstreamHttpOptions } from '../upstream-http.js';
import { MODEL_STUDIO_PRIVATE_WORDS, wanModel } from './contract.js';
import type { ModelStudioRegion } from './contract.js';
import { cancelRefusal, createRefusal, readRefusal, TaskSchema, toStatus } from './errors.js';
import { toDashScopeBody } from './request.js';

export interface ModelStudioVideoProviderOptions extends UpstreamHttpOptions {
  /** Picks the model ids; keys are per region. */
  region: ModelStudioRegion;
  /** Without `/api/v1`, e.g. `https://dashscope-intl.aliyuncs.com` or a workspace domain. */
  baseUrl: string;
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

const listTime = (ms: number): string => new Date(ms).toISOString().replace(/\D/g, '').slice(0, 14);

export class ModelStudioVideoProvider implements VideoProvider {
  /**
   * Model Studio takes no expiry: it keeps a task 24 h (docs/providers/model-studio.md, "Task statuses"), so a
   * job is not given longer than that.
   */
  readonly jobExpirySeconds = { min: 1, max: 86_400 };
  readonly privateWords = MODEL_STUDIO_PRIVATE_WORDS;
  private readonly base: string;
  private readonly http: UpstreamHttp;

  constructor(private readonly options: ModelStudioVideoProviderOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    // Video synthesis is asynchronous only: without this header on a create, Model Studio refuses it (403).
    this.http = new UpstreamHttp('Model Studio', options, { 'X-DashScope-Async': 'enable' });
  }

  async createJob(request: ProviderJobRequest): Promise<{ jobId: string }> {
    const body = toDashScopeBody(request, this.options.region);
    const answer = await this.http.create(`${this.base}${CREATE_PATH}`, request.account, body);
    if (!succeeded(answer)) throw createRefusal(answer);
    const parsed = v.safeParse(CreatedSchema, parseJson(answer.text));
    if (!parsed.success) throw new UpstreamOutcomeUnknownError('Model Studio accepted the create without a task id');
    return { jobId: parsed.output.output.task_id };
  }

  async getJob(jobId: string, account: string): Promise<ProviderJobStatus> {
    const answer = await this.http.idempotent('GET', this.taskUrl(jobId), account);
    if (answer.status === 404) throw new UpstreamJobNotFoundError(`Model Studio does not know task ${jobId}`);
    if (!succeeded(answer)) throw readRefusal(answer);
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
    return cancelIfQueued(
      () => this.getJob(jobId, account),
      () => this.http.idempotent('POST', `${this.taskUrl(jobId)}/cancel`, account),
      (answer) => cancelRefusal(answer, jobId),
    );
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
      const answer = await this.http.idempotent(
        'GET',
        `${this.base}${TASKS_PATH}?${query.toString()}`,
        request.account,
      );
      if (!succeeded(answer)) throw readRefusal(answer);
      const parsed = v.safeParse(ListSchema, parseJson(answer.text));
      if (!parsed.success) throw new UpstreamTransientError('Model Studio sent a malformed task list');
      candidates.push(...parsed.output.data.map((item) => item.task_id));
      const total = parsed.output.total ?? candidates.length;
      if (parsed.output.data.length < LIST_PAGE_SIZE || candidates.length >= total) break;
    }
    const matches: string[] = [];
    for (const id of candidates) {
      const answer = await this.http.idempotent('GET', this.taskUrl(id), request.account);
      if (!succeeded(answer)) throw readRefusal(answer);
      const parsed = v.safeParse(TaskSchema, parseJson(answer.text));
      if (!parsed.success) throw new UpstreamTransientError(`Model Studio sent a malformed reply for task ${id}`);
      const { orig_prompt: prompt, task_status: status } = parsed.output.output;
      if (status === 'UNKNOWN') continue;
      if (prompt === undefined || prompt === request.prompt) matches.push(id);
    }
    return matches;
  }

  private taskUrl(jobId: string): string {
    return `${this.base}${TASKS_PATH}/${encodeURIComponent(jobId)}`;
  }
}
