/**
 * VideoProvider for Volcengine Ark / BytePlus ModelArk video tasks (Seedance): create, get and delete
 * under {base}/api/v3/contents/generations/tasks, `Authorization: Bearer`, errors as
 * `{error: {code, message, param, type}}`. Sources: ModelArk API pages "Create/Retrieve/Cancel or delete
 * a video generation task" and the error-code table (docs.byteplus.com/en/docs/ModelArk/1520757).
 */
import * as v from 'valibot';
import type { ProviderJobRequest, ProviderJobStatus, VideoProvider } from '../core/ports/video-provider.js';
import {
  UpstreamJobNotFoundError,
  UpstreamOutcomeUnknownError,
  UpstreamRejectedError,
  UpstreamTransientError,
} from '../core/upstream-errors.js';

export interface ArkVideoProviderOptions {
  /** Without the `/api/v3` suffix, e.g. `https://ark.ap-southeast.bytepluses.com`. */
  baseUrl: string;
  /** The key, or a getter (e.g. a cached Secrets Manager read) resolved before each call. */
  apiKey: string | (() => Promise<string>);
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
});
type Task = v.InferOutput<typeof TaskSchema>;

const ErrorBodySchema = v.object({
  error: v.object({ code: v.optional(v.string()), message: v.optional(v.string()) }),
});

// ---------------------------------------------------------------- request mapping

type ContentItem =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string }; role: 'reference_image' }
  | { type: 'video_url'; video_url: { url: string }; role: 'reference_video' }
  | { type: 'audio_url'; audio_url: { url: string }; role: 'reference_audio' };

/**
 * Our references are "omni references", not first/last frames. Ark treats an image without a role
 * as the first frame, and rejects a first frame next to reference videos (400), so every media
 * item carries its reference_* role. Models older than Seedance 2.0 may reject reference roles;
 * the model catalogue decides which models get references at all.
 */
function toContent(request: ProviderJobRequest): ContentItem[] {
  return [
    { type: 'text', text: request.prompt },
    ...request.imageUrls.map((url): ContentItem => ({
      type: 'image_url',
      image_url: { url },
      role: 'reference_image',
    })),
    ...request.videoUrls.map((url): ContentItem => ({
      type: 'video_url',
      video_url: { url },
      role: 'reference_video',
    })),
    ...request.audioUrls.map((url): ContentItem => ({
      type: 'audio_url',
      audio_url: { url },
      role: 'reference_audio',
    })),
  ];
}

/** Top-level body fields, not the legacy `--rs 720p --dur 5` prompt suffixes Ark validates only loosely. */
export function toArkBody(request: ProviderJobRequest): Record<string, unknown> {
  return {
    model: request.upstreamModel,
    content: toContent(request),
    resolution: request.resolution,
    ratio: request.ratio,
    duration: request.durationSeconds,
    // Absent means random; Ark also reads -1 as random, so it passes through unchanged.
    ...(request.seed === undefined ? {} : { seed: request.seed }),
    generate_audio: request.generateAudio,
    watermark: false,
  };
}

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

const isRetryableStatus = (status: number): boolean => status === 429 || status >= 500;

function transient(answer: Answer): UpstreamTransientError {
  return new UpstreamTransientError(upstreamMessage(answer), retryAfterSeconds(answer.headers));
}

// ---------------------------------------------------------------- status mapping

function toStatus(task: Task): ProviderJobStatus | undefined {
  switch (task.status) {
    case 'queued':
    case 'running':
    case 'cancelled':
      return { state: task.status };
    case 'succeeded':
      // A success without a URL is a malformed reply, not a result.
      return task.content?.video_url === undefined
        ? undefined
        : { state: 'succeeded', videoUrl: task.content.video_url };
    case 'failed':
      return { state: 'failed', message: task.error?.message || task.error?.code || 'Ark reported the task failed' };
    case 'expired':
      return { state: 'failed', message: task.error?.message || 'Ark expired the task before it finished' };
  }
}

const isFinal = (status: ProviderJobStatus): boolean => status.state !== 'queued' && status.state !== 'running';

// ---------------------------------------------------------------- the provider

export class ArkVideoProvider implements VideoProvider {
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
    // Read the key first: failing to read it means nothing was sent, which is safe to retry.
    await this.authorization();
    try {
      answer = await this.send('POST', this.tasksUrl, toArkBody(request), this.createTimeoutMs);
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
    // A gateway timeout (502/504 from Ark's envoy) may hide a backend that did create the task.
    if (answer.status === 502 || answer.status === 504) {
      throw new UpstreamOutcomeUnknownError(`Ark create answered HTTP ${answer.status}; the task may or may not exist`);
    }
    if (isRetryableStatus(answer.status)) throw transient(answer);
    throw new UpstreamRejectedError(upstreamMessage(answer));
  }

  async getJob(jobId: string): Promise<ProviderJobStatus> {
    const answer = await this.idempotent('GET', this.taskUrl(jobId));
    if (answer.status === 404) throw new UpstreamJobNotFoundError(`Ark does not know task ${jobId}`);
    // Other 4xx (bad key, suspended account) are kept transient: the paid task still exists upstream
    // and must not be abandoned over a fixable configuration problem; the workflow bounds retries.
    if (answer.status < 200 || answer.status >= 300) throw transient(answer);
    const parsed = v.safeParse(TaskSchema, parseJson(answer.text));
    const status = parsed.success ? toStatus(parsed.output) : undefined;
    if (status === undefined) throw new UpstreamTransientError(`Ark sent a malformed reply for task ${jobId}`);
    return status;
  }

  async cancelJob(jobId: string): Promise<void> {
    const answer = await this.idempotent('DELETE', this.taskUrl(jobId));
    if ((answer.status >= 200 && answer.status < 300) || answer.status === 404) return;
    if (isRetryableStatus(answer.status)) throw transient(answer);
    // Ark refuses DELETE for running and already-cancelled tasks; only the status tells which.
    const status = await this.getJob(jobId).catch((error: unknown) => {
      if (error instanceof UpstreamJobNotFoundError) return undefined;
      throw error;
    });
    if (status === undefined || isFinal(status)) return;
    throw new UpstreamRejectedError(`Ark refused to cancel ${status.state} task ${jobId}: ${upstreamMessage(answer)}`);
  }

  private async authorization(): Promise<string> {
    const { apiKey } = this.options;
    if (typeof apiKey === 'string') return apiKey;
    try {
      return await apiKey();
    } catch (error) {
      throw new UpstreamTransientError(`could not read the Ark API key: ${(error as Error).message}`);
    }
  }

  private taskUrl(jobId: string): string {
    return `${this.tasksUrl}/${encodeURIComponent(jobId)}`;
  }

  /** GET and DELETE are safe to repeat, so any failure to get an answer is transient. */
  private async idempotent(method: 'GET' | 'DELETE', url: string): Promise<Answer> {
    try {
      return await this.send(method, url);
    } catch (error) {
      throw new UpstreamTransientError(`Ark ${method} ${describeFailure(error)}`);
    }
  }

  /** Throws only when no status line arrived; a body that breaks off later yields text ''. */
  private async send(method: string, url: string, body?: unknown, timeoutMs = this.timeoutMs): Promise<Answer> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${await this.authorization()}`,
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
