/**
 * Ark's answers as the gateway's errors and statuses (docs/providers/ark.md, "Errors", "Get reply and statuses"):
 * error bodies `{error: {code, message, param, type}}`, task statuses queued, running, succeeded, failed,
 * cancelled and expired. Ark's codes: docs/providers/ark.md, "Errors"; the code table in volcengine/ark-cli
 * skills/arkcli-doctor/references/error-codes.md, which also gives the `.PrivacyInformation` and `.PolicyViolation` suffixes.
 */
import * as v from 'valibot';
import type {
  JobFailureCause,
  ModeratedContent,
  ModerationConcern,
  ProviderJobStatus,
} from '../../core/ports/video-provider.js';
import {
  ContentModerationError,
  UpstreamAccountError,
  UpstreamBusyError,
  UpstreamConcurrencyError,
  UpstreamConfigurationError,
  UpstreamOutcomeUnknownError,
  UpstreamRejectedError,
  UpstreamTransientError,
} from '../../core/upstream-errors.js';
import { parseJson } from '../upstream-http.js';
import type { Answer } from '../upstream-http.js';

/** Only the fields we use; v.object ignores the rest (seed, usage, ratio, ...). */
export const TaskSchema = v.object({
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

const ErrorBodySchema = v.object({
  error: v.object({ code: v.optional(v.string()), message: v.optional(v.string()) }),
});

function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
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
export function createRefusal(answer: Answer): Error {
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

/** A refusal of a read or a list: the account's or no room, else transient (the job is left as it is). */
export function readRefusal(answer: Answer): Error {
  return accountOrBusy(answer, errorCode(answer)) ?? transient(answer);
}

/** Why Ark refused to cancel a job that is still queued. */
export function cancelRefusal(answer: Answer, jobId: string): Error {
  const refused = accountOrBusy(answer, errorCode(answer)) ?? (answer.status >= 500 ? transient(answer) : undefined);
  return refused ?? new UpstreamRejectedError(`Ark refused to cancel queued task ${jobId}: ${upstreamMessage(answer)}`);
}

export function toStatus(task: Task): ProviderJobStatus | undefined {
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
