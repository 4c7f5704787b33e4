/**
 * Errors the lifecycle's steps throw. The state machine matches them by `name` (Retry/Catch), and the
 * refund step turns the one that ended a task into the `error_message` the customer reads.
 */
import {
  UpstreamJobNotFoundError,
  UpstreamOutcomeUnknownError,
  UpstreamRejectedError,
  UpstreamTransientError,
} from './upstream-errors.js';

export class UpstreamJobFailedError extends Error {
  override readonly name = 'UpstreamJobFailedError';
}

/**
 * Not a failure: the upstream job is still generating. PollUpstream throws it so that the state's
 * first retrier, the poll loop, asks again later. Only if that retrier ran out would it end a task.
 */
export class GenerationInProgressError extends Error {
  override readonly name = 'GenerationInProgressError';
}

export class GenerationTimedOutError extends Error {
  override readonly name = 'GenerationTimedOutError';
}

/** The upstream's file is not a video, or is larger than allowed: retrying will not help. */
export class VideoRejectedError extends Error {
  override readonly name = 'VideoRejectedError';
}

/** The download broke mid-way: retried from the start a bounded number of times. */
export class VideoDownloadInterruptedError extends Error {
  override readonly name = 'VideoDownloadInterruptedError';
}

export class TaskNotFoundError extends Error {
  override readonly name = 'TaskNotFoundError';
}

/** An error as Step Functions hands it to a Catch target: `Cause` is Lambda's JSON or a plain message. */
export interface StepError {
  Error: string;
  Cause?: string;
}

const PREFIXES: Record<string, string> = {
  [UpstreamJobFailedError.name]: 'generation failed',
  [UpstreamRejectedError.name]: 'the generator rejected the task',
  [UpstreamTransientError.name]: 'the generator could not be reached',
  [UpstreamOutcomeUnknownError.name]: 'the generator did not confirm the task',
  [UpstreamJobNotFoundError.name]: 'the generator lost the task',
  [GenerationTimedOutError.name]: 'generation timed out',
  [GenerationInProgressError.name]: 'generation timed out',
  [VideoRejectedError.name]: 'the generated file could not be stored',
  [VideoDownloadInterruptedError.name]: 'the generated video could not be downloaded',
};

/** The customer-facing reason for a failure. Unknown errors never leak internals. */
export function describeFailure(error: StepError): string {
  if (error.Error === 'States.Timeout') return 'a processing step timed out';
  const prefix = PREFIXES[error.Error];
  if (!prefix) return 'internal error while processing the task';
  const detail = causeMessage(error.Cause);
  return detail ? `${prefix}: ${detail}` : prefix;
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
