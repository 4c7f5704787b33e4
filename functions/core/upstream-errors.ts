/**
 * Errors an upstream provider adapter throws. Their `name` is what the state machine's
 * Retry/Catch match (Step Functions matches Lambda errors by error name), so names are stable API:
 * string literals, as the class names do not survive minification.
 */
import { namedError } from './named-error.js';
import type { ModeratedContent, ModerationConcern } from './ports/video-provider.js';

/** The upstream refused the job (4xx on create): the task fails with the upstream's message. */
export class UpstreamRejectedError extends namedError('UpstreamRejectedError') {}

/** 5xx, connection errors, timeouts on idempotent calls: safe to retry with backoff. */
export class UpstreamTransientError extends Error {
  override readonly name = 'UpstreamTransientError';
  constructor(
    message: string,
    /** Seconds the upstream asked us to wait (Retry-After), when it said. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/**
 * The upstream has no room for us now (429: rate limits, its cap on unfinished jobs per account, overload).
 * Nothing was created: the task waits and tries again until its deadline, never refunded for this.
 */
export class UpstreamBusyError extends namedError('UpstreamBusyError') {}

/**
 * A refusal for the account's concurrency (Ark: `InflightBatchsizeExceeded`): busy as above, and the
 * account's learned limit on jobs in flight is cut (docs/upstream-capacity.md, "Jobs in flight").
 */
export class UpstreamConcurrencyError extends UpstreamBusyError {}

/**
 * The upstream refuses our key or account (401, 403: a bad key, an overdue bill). Only an operator can fix
 * it: alarmed (needsOperator), and tasks wait as for UpstreamBusyError until fixed or their deadline.
 */
export class UpstreamAccountError extends namedError('UpstreamAccountError') {}

/**
 * The upstream does not offer the model we asked for (404 on create: unknown model or endpoint, or a model
 * not enabled for the account): our configuration is wrong. The task fails; an operator is alarmed.
 */
export class UpstreamConfigurationError extends namedError('UpstreamConfigurationError') {}

/** A create call whose outcome is unknown (timeout after sending): must not be retried blindly. */
export class UpstreamOutcomeUnknownError extends namedError('UpstreamOutcomeUnknownError') {}

/** The upstream does not know a job we created (404 on get). */
export class UpstreamJobNotFoundError extends namedError('UpstreamJobNotFoundError') {}

const REFUSED: Readonly<Record<ModeratedContent, string>> = {
  text: 'the prompt: its text',
  image: 'the prompt: a reference image',
  video: 'the prompt: a reference video',
  audio: 'the prompt: a reference audio',
  output: 'the generated video: it',
};
const CONCERN: Readonly<Record<ModerationConcern, string>> = {
  sensitive: 'may contain sensitive content',
  privacy: "shows a real person's face",
  copyright: 'may infringe copyright',
};

/**
 * The upstream's content moderation refused the prompt (on create) or the video it made (a failed job). The
 * message is the customer's whole reason, in our words, saying what to change; the upstream's own words
 * follow, as they carry its request id for a support ticket.
 */
export class ContentModerationError extends Error {
  override readonly name = 'ContentModerationError';
  constructor(content: ModeratedContent, concern: ModerationConcern, upstreamMessage?: string) {
    const advice = content === 'output' ? 'change the prompt or the references' : 'change it';
    const said = upstreamMessage ? ` (upstream: ${upstreamMessage})` : '';
    super(
      `the upstream's content moderation refused ${REFUSED[content]} ${CONCERN[concern]}; ${advice} and submit again${said}`,
    );
  }
}

/** Errors only an operator can fix: they feed the provider's operator alarm (lib/ship/cdk/alarms.ts). */
export function needsOperator(error: unknown): boolean {
  return error instanceof UpstreamAccountError || error instanceof UpstreamConfigurationError;
}

/** Errors of a create that the upstream answered with a refusal, or that was never sent: no job exists. */
export function madeNoJob(error: unknown): boolean {
  return [
    UpstreamRejectedError,
    UpstreamTransientError,
    UpstreamBusyError,
    UpstreamAccountError,
    UpstreamConfigurationError,
    ContentModerationError,
  ].some((kind) => error instanceof kind);
}

/** A provider job's lookup, or `missing` when the provider does not know the job (never made, or deleted). */
export async function missingWhenNotFound<T>(lookup: Promise<T>): Promise<T | { state: 'missing' }> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof UpstreamJobNotFoundError) return { state: 'missing' };
    throw error;
  }
}

/**
 * The API key of an upstream account: a fixed one, or read for the account. No key for the account is an
 * operator's job (alarmed, the account taken out of use); any other failed read is transient.
 */
export async function upstreamApiKey(
  apiKey: string | ((account: string) => Promise<string>),
  account: string,
  provider: string,
): Promise<string> {
  if (typeof apiKey === 'string') return apiKey;
  try {
    return await apiKey(account);
  } catch (error) {
    if (error instanceof UpstreamAccountError) throw error;
    throw new UpstreamTransientError(`could not read the ${provider} API key: ${(error as Error).message}`);
  }
}
