/**
 * The calls every provider's adapter makes the same way (docs/providers/README.md): JSON over HTTPS with
 * `Authorization: Bearer` and its account's key, a timeout per call, a create whose lost answer leaves its job
 * unknown, reads and cancels that are safe to repeat, and a cancel that only a queued job takes.
 */
import type { CancelOutcome, ProviderJobStatus } from '../core/ports/video-provider.js';
import {
  missingWhenNotFound,
  UpstreamOutcomeUnknownError,
  UpstreamTransientError,
  upstreamApiKey,
} from '../core/upstream-errors.js';

export interface UpstreamHttpOptions {
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

export interface Answer {
  status: number;
  headers: Headers;
  /** '' when the body could not be read; callers then fail validation, which is the right outcome. */
  text: string;
}

export const succeeded = (answer: Answer) => answer.status >= 200 && answer.status < 300;

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
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

/** One upstream's HTTP calls, named in errors as `upstream` (e.g. `Ark`). */
export class UpstreamHttp {
  private readonly timeoutMs: number;
  private readonly createTimeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(
    private readonly upstream: string,
    private readonly options: UpstreamHttpOptions,
    /** Headers sent with every request that has a body. */
    private readonly bodyHeaders: Record<string, string> = {},
  ) {
    this.timeoutMs = options.requestTimeoutMs ?? 10_000;
    this.createTimeoutMs = Math.max(options.createTimeoutMs ?? 30_000, this.timeoutMs);
    this.fetchImpl = options.fetch ?? fetch;
  }

  /**
   * A create. The key is read first: failing to read it means nothing was sent, which is safe to retry; so is a
   * request that never left. Any other failure to get an answer leaves the job unknown: it may exist.
   */
  async create(url: string, account: string, body: unknown): Promise<Answer> {
    const key = await this.authorization(account);
    try {
      return await this.send('POST', url, key, body, this.createTimeoutMs);
    } catch (error) {
      const detail = describeFailure(error);
      if (neverSent(error)) throw new UpstreamTransientError(`${this.upstream} create not sent: ${detail}`);
      throw new UpstreamOutcomeUnknownError(`${this.upstream} create ${detail}; the task may or may not exist`);
    }
  }

  /** A read, or a cancel (repeating it changes nothing): any failure to get an answer is transient. */
  async idempotent(method: 'GET' | 'POST' | 'DELETE', url: string, account: string): Promise<Answer> {
    const key = await this.authorization(account);
    try {
      return await this.send(method, url, key);
    } catch (error) {
      throw new UpstreamTransientError(`${this.upstream} ${method} ${describeFailure(error)}`);
    }
  }

  private async authorization(account: string): Promise<string> {
    return upstreamApiKey(this.options.apiKey, account, this.upstream);
  }

  /** Throws only when no status line arrived; a body that breaks off later yields text ''. */
  private async send(method: string, url: string, key: string, body?: unknown, timeoutMs = this.timeoutMs) {
    const headers: Record<string, string> = { Authorization: `Bearer ${key}`, Accept: 'application/json' };
    if (body !== undefined) Object.assign(headers, { 'Content-Type': 'application/json' }, this.bodyHeaders);
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

type JobFound = ProviderJobStatus | { state: 'missing' };

/**
 * A cancel that only a queued job takes: the job is read first and only a queued one is sent the cancel. A
 * refusal is explained by reading the job again: only its state decides whether a refund is safe; still queued,
 * the cancel's answer is `refused`'s to explain.
 */
export async function cancelIfQueued(
  getJob: () => Promise<ProviderJobStatus>,
  cancel: () => Promise<Answer>,
  refused: (answer: Answer) => Error,
): Promise<CancelOutcome> {
  // `missing`: the upstream does not know the job (never made, or its record deleted).
  const find = (): Promise<JobFound> => missingWhenNotFound(getJob());
  const before = await find();
  if (before.state !== 'queued') return settled(before);
  const answer = await cancel();
  // Queued when read, so a cancel the upstream accepted cancelled it.
  if (succeeded(answer)) return { outcome: 'cancelled' };
  const after = await find();
  if (after.state === 'queued') throw refused(answer);
  return settled(after);
}

/** The outcome of a cancel for a job no longer queued: nothing was sent, nothing changed. */
function settled(status: Exclude<JobFound, { state: 'queued' }>): CancelOutcome {
  switch (status.state) {
    case 'missing':
      return { outcome: 'not-found' };
    case 'cancelled':
      return { outcome: 'cancelled' };
    default:
      return { outcome: 'refused', state: status.state };
  }
}
