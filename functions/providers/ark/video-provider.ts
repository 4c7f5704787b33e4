/**
 * VideoProvider for Volcengine Ark / BytePlus ModelArk video tasks (Seedance): create, get and delete
 * under {base}/api/v3/contents/generations/tasks, `Authorization: Bearer` (docs/providers/ark.md; its errors and
 * statuses: errors.ts). Sources: ModelArk API pages "Create/Retrieve/Cancel or delete a video generation task"
 * and the error-code table (docs.byteplus.com/en/docs/ModelArk/1520757).
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
import type { Answer, UpstreamHttpOptions } from '../upstream-http.js';
import type { ArkPlatform } from './contract.js';
import { ARK_EXPIRY_SECONDS, ARK_PRIVATE_WORDS, arkModelId } from './contract.js';
import { cancelRefusal, createRefusal, readRefusal, TaskSchema, toStatus } from './errors.js';
import { toArkBody } from './request.js';

export interface ArkVideoProviderOptions extends UpstreamHttpOptions {
  /** Picks the model ids (contract.ts). */
  platform: ArkPlatform;
  /** Without the `/api/v3` suffix, e.g. `https://ark.ap-southeast.bytepluses.com`. */
  baseUrl: string;
}

const TASKS_PATH = '/api/v3/contents/generations/tasks';

const CreatedSchema = v.object({ id: v.pipe(v.string(), v.minLength(1)) });

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

/** A field the reply lacks cannot rule the job out. */
function echoMatches(echo: v.InferOutput<typeof EchoSchema>, request: JobLookup['request']): boolean {
  const differs = <T>(echoed: T | undefined, sent: T | undefined) =>
    echoed !== undefined && sent !== undefined && echoed !== sent;
  if (differs(echo.seed, request.seed === -1 ? undefined : request.seed)) return false;
  if (differs(echo.resolution, request.resolution)) return false;
  if (differs(echo.ratio, request.ratio)) return false;
  return !differs(echo.duration, request.durationSeconds);
}

export class ArkVideoProvider implements VideoProvider {
  readonly jobExpirySeconds = ARK_EXPIRY_SECONDS;
  readonly privateWords = ARK_PRIVATE_WORDS;
  private readonly tasksUrl: string;
  private readonly http: UpstreamHttp;

  constructor(private readonly options: ArkVideoProviderOptions) {
    this.tasksUrl = `${options.baseUrl.replace(/\/+$/, '')}${TASKS_PATH}`;
    this.http = new UpstreamHttp('Ark', options);
  }

  async createJob(request: ProviderJobRequest): Promise<{ jobId: string }> {
    // Built first: a body it cannot build (an error of its own) is refused before anything is sent.
    const body = toArkBody(request, this.options.platform);
    const answer = await this.http.create(this.tasksUrl, request.account, body);
    return { jobId: this.createdId(answer) };
  }

  private createdId(answer: Answer): string {
    if (succeeded(answer)) {
      const parsed = v.safeParse(CreatedSchema, parseJson(answer.text));
      // Accepted, but we cannot tell which task it made: the task may exist, so never retry blindly.
      if (!parsed.success)
        throw new UpstreamOutcomeUnknownError('Ark accepted the create but its reply has no task id');
      return parsed.output.id;
    }
    throw createRefusal(answer);
  }

  async getJob(jobId: string, account: string): Promise<ProviderJobStatus> {
    const answer = await this.http.idempotent('GET', this.taskUrl(jobId), account);
    if (answer.status === 404) throw new UpstreamJobNotFoundError(`Ark does not know task ${jobId}`);
    // Any other refusal leaves the job as it is: the paid task still exists upstream and must not be
    // abandoned over a fixable problem (a key or bill: alarmed); the poll asks again until the deadline.
    if (!succeeded(answer)) throw readRefusal(answer);
    const parsed = v.safeParse(TaskSchema, parseJson(answer.text));
    const status = parsed.success ? toStatus(parsed.output) : undefined;
    if (status === undefined) throw new UpstreamTransientError(`Ark sent a malformed reply for task ${jobId}`);
    return status;
  }

  /**
   * Ark's DELETE (docs/providers/ark.md, "Endpoints"): queued → cancelled; succeeded, failed or expired → the record is
   * deleted (the video URL with it); running or cancelled → refused, with an undocumented HTTP code. So only a
   * job read as queued is sent a DELETE; any refusal (a 404 or 403 may as well mean "running") is explained by
   * reading it again.
   */
  async cancelJob(jobId: string, account: string): Promise<CancelOutcome> {
    return cancelIfQueued(
      () => this.getJob(jobId, account),
      () => this.http.idempotent('DELETE', this.taskUrl(jobId), account),
      (answer) => cancelRefusal(answer, jobId),
    );
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
      const answer = await this.http.idempotent('GET', `${this.tasksUrl}?${query.toString()}`, request.account);
      if (!succeeded(answer)) throw readRefusal(answer);
      const parsed = v.safeParse(ListSchema, parseJson(answer.text));
      if (!parsed.success) throw new UpstreamTransientError('Ark sent a malformed task list');
      const { total, items } = parsed.output;
      for (const item of items) if (item.created_at >= from && item.created_at <= to) candidates.push(item.id);
      seen += items.length;
      if (items.length === 0 || seen >= total || items.every((item) => item.created_at < from)) break;
    }
    const matches: string[] = [];
    for (const id of candidates) {
      const answer = await this.http.idempotent('GET', this.taskUrl(id), request.account);
      if (answer.status === 404) continue;
      if (!succeeded(answer)) throw readRefusal(answer);
      const echo = v.safeParse(EchoSchema, parseJson(answer.text));
      if (!echo.success) throw new UpstreamTransientError(`Ark sent a malformed reply for task ${id}`);
      if (echoMatches(echo.output, request)) matches.push(id);
    }
    return matches;
  }

  private taskUrl(jobId: string): string {
    return `${this.tasksUrl}/${encodeURIComponent(jobId)}`;
  }
}
