/**
 * Errors the lifecycle's steps throw. The state machine matches them by `name` (Retry/Catch), and the
 * refund step turns the one that ended a task into the `error_message` the customer reads. Each `name` is a
 * string literal, never the class's own name: the bundles are minified, and `UpstreamJobFailedError.name`
 * there is `_a` or the like.
 */
import { namedError } from './named-error.js';
import type { UpstreamWords } from './provider-contract.js';
import type { ProviderJobStatus } from './ports/video-provider.js';
import type {
  UpstreamAccountError,
  UpstreamBusyError,
  UpstreamConfigurationError,
  UpstreamJobNotFoundError,
  UpstreamOutcomeUnknownError,
  UpstreamRejectedError,
  UpstreamTransientError,
} from './upstream-errors.js';
import { ContentModerationError } from './upstream-errors.js';
import { ReferenceUnusableError } from './reference-failure.js';
import type { TaskReferences } from './reference-failure.js';
import type { RequestForm } from './generation-request.js';

export class UpstreamJobFailedError extends namedError('UpstreamJobFailedError') {}

/**
 * Not a failure: the upstream cannot take the job yet (busy, or our key or account needs an operator).
 * StartUpstream throws it after giving the slot back, and the state machine returns the task to the waiting
 * room; the task's deadline, checked there, ends the wait.
 */
export class WaitingForUpstreamError extends namedError('WaitingForUpstreamError') {}

/**
 * A claim without a job (StartUpstream creating, or one that died doing so) may still make a job: the step
 * waits (the state machine retries it) until the claim's job is recorded or its lease has run out.
 */
export class UpstreamClaimHeldError extends namedError('UpstreamClaimHeldError') {}

export class GenerationTimedOutError extends namedError('GenerationTimedOutError') {}

/** The upstream's file is not a video, or is larger than allowed: retrying will not help. */
export class VideoRejectedError extends namedError('VideoRejectedError') {}

/** The download broke mid-way: retried from the start a bounded number of times. */
export class VideoDownloadInterruptedError extends namedError('VideoDownloadInterruptedError') {}

export class TaskNotFoundError extends namedError('TaskNotFoundError') {}

/** An uploaded reference could not be made ready for the upstream (PrepareInputs): expired, or not transcodable. */
export class ReferencePreparationError extends namedError('ReferencePreparationError') {}

/** An error as Step Functions hands it to a Catch target: `Cause` is Lambda's JSON or a plain message. */
export interface StepError {
  Error: string;
  Cause?: string;
}

/** The `name` of every error that ends a task with a reason of its own (the literal types of the fields). */
type DescribedError = (
  | UpstreamJobFailedError
  | UpstreamRejectedError
  | UpstreamTransientError
  | UpstreamOutcomeUnknownError
  | UpstreamJobNotFoundError
  | UpstreamBusyError
  | UpstreamAccountError
  | UpstreamConfigurationError
  | WaitingForUpstreamError
  | GenerationTimedOutError
  | UpstreamClaimHeldError
  | VideoRejectedError
  | VideoDownloadInterruptedError
  | ReferencePreparationError
)['name'];

/** Keyed by the `name` literals (the compiler checks each key is one), not by `Class.name`, which minifies. */
const PREFIXES: Record<DescribedError, string> = {
  UpstreamJobFailedError: 'generation failed',
  UpstreamRejectedError: 'the generator rejected the task',
  UpstreamTransientError: 'the generator could not be reached',
  UpstreamOutcomeUnknownError: 'the generator did not confirm the task',
  UpstreamJobNotFoundError: 'the generator lost the task',
  // These three wait in StartUpstream and would reach a refund only if that wait ran out (WITHOUT_DETAIL).
  UpstreamBusyError: 'the generator had no capacity for the task',
  UpstreamAccountError: 'the generator could not be used',
  WaitingForUpstreamError: 'the generator had no capacity for the task',
  UpstreamConfigurationError:
    'the model is not available from the generator (a configuration problem on our side; our operators were alerted)',
  GenerationTimedOutError: 'generation timed out',
  UpstreamClaimHeldError: 'the generator did not confirm the task',
  VideoRejectedError: 'the generated file could not be stored',
  VideoDownloadInterruptedError: 'the generated video could not be downloaded',
  ReferencePreparationError: 'a reference file could not be prepared',
};

/**
 * Errors whose message is for operators (our key, our account, the upstream's quotas, its job ids): the prefix
 * alone. Operators read the whole message in the execution's history and the FailAndRefund step's log.
 */
const WITHOUT_DETAIL: ReadonlySet<string> = new Set<DescribedError>([
  'UpstreamBusyError',
  'UpstreamAccountError',
  'WaitingForUpstreamError',
  'UpstreamClaimHeldError',
  'UpstreamTransientError',
  'UpstreamOutcomeUnknownError',
  'UpstreamJobNotFoundError',
  'UpstreamConfigurationError',
]);

/** Errors whose detail is the upstream's own words: shown, as they say what to change, without its names and ids. */
const UPSTREAM_WORDS: ReadonlySet<string> = new Set<DescribedError>([
  'UpstreamRejectedError',
  'UpstreamJobFailedError',
]);

/** Who made the video, and the upstream's ids, are not the customer's business (docs/api-contract.md, "Envelope and errors"). */
const REQUEST_ID = /\s*\(?\brequest ?id\b[:=]?\s*[\w-]+\)?\.?/gi;

/** The upstream's words without its request id and the providers' names and ids (their contracts' privateWords). */
export function withoutUpstreamNames(text: string, words: readonly UpstreamWords[]): string {
  let scrubbed = text.replace(REQUEST_ID, '');
  for (const pattern of words.flatMap((word) => word.ids)) scrubbed = scrubbed.replace(pattern, 'the task');
  const names = words.flatMap((word) => word.names).map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (names.length > 0) scrubbed = scrubbed.replace(new RegExp(`\\b(${names.join('|')})\\b`, 'gi'), 'the generator');
  return scrubbed.replace(/\s+/g, ' ').trim();
}

/** Every registered provider's private words, from their adapters (a provider without any hides nothing). */
export function privateWordsOf(providers: Readonly<Record<string, { privateWords?: UpstreamWords }>>): UpstreamWords[] {
  return Object.values(providers).flatMap((provider) => (provider.privateWords ? [provider.privateWords] : []));
}

/**
 * Errors whose message is the whole customer-facing reason, written by our own code (upstream-errors.ts):
 * the message as it is, or this when it is missing.
 */
const SELF_DESCRIBED: Record<ContentModerationError['name'] | ReferenceUnusableError['name'], string> = {
  ContentModerationError: "the upstream's content moderation refused the task",
  ReferenceUnusableError: 'a reference could not be used by the generator; the charge was refunded',
};

/** The customer-facing reason for a failure, without the `words` of upstreams. Unknown errors never leak internals. */
export function describeFailure(error: StepError, words: readonly UpstreamWords[] = []): string {
  if (error.Error === 'States.Timeout') return 'a processing step timed out';
  if (Object.hasOwn(SELF_DESCRIBED, error.Error)) {
    // The upstream's own words (its request id) follow ours in parentheses: for operators only.
    const ours = causeMessage(error.Cause)?.replace(/\s*\(upstream: [\s\S]*\)$/, '');
    return ours || SELF_DESCRIBED[error.Error as keyof typeof SELF_DESCRIBED];
  }
  // Own keys only: an Error named "constructor" or "toString" is unknown, not Object.prototype's.
  const prefix = Object.hasOwn(PREFIXES, error.Error) ? PREFIXES[error.Error as DescribedError] : undefined;
  if (!prefix) return 'internal error while processing the task';
  if (WITHOUT_DETAIL.has(error.Error)) return prefix;
  const cause = causeMessage(error.Cause);
  const detail = cause && UPSTREAM_WORDS.has(error.Error) ? withoutUpstreamNames(cause, words) : cause;
  return detail ? `${prefix}: ${detail}` : prefix;
}

/**
 * The error that ends a task whose upstream job failed: the upstream's moderation, expiry and unusable
 * references in our words (docs/providers/ark.md, "Errors", "References"), anything else with its message.
 * `task` names the reference as the customer sent it.
 */
export function jobFailure(
  job: Extract<ProviderJobStatus, { state: 'failed' }>,
  task: { form: RequestForm; generation: TaskReferences },
): Error {
  switch (job.cause?.kind) {
    case 'moderation':
      return new ContentModerationError(job.cause.content, job.cause.concern, job.message);
    case 'reference':
      return new ReferenceUnusableError(job.cause, task.form, task.generation, job.message);
    case 'expired':
      // Its execution_expires_after ran out: what Ark says adds nothing the customer can use.
      return new GenerationTimedOutError('the upstream gave up on the job before it finished');
    default:
      return new UpstreamJobFailedError(job.message);
  }
}

function causeMessage(cause: string | undefined): string | undefined {
  if (!cause) return undefined;
  try {
    const parsed: unknown = JSON.parse(cause);
    if (parsed && typeof parsed === 'object' && 'errorMessage' in parsed) {
      return String((parsed as { errorMessage: unknown }).errorMessage);
    }
  } catch {
    // Not Lambda's JSON: the local runtime passes the message itself.
  }
  return cause;
}
