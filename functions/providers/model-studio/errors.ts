/**
 * DashScope's answers as the gateway's errors and statuses (docs/providers/model-studio.md, "Errors",
 * "Task statuses"): error bodies `{request_id, code, message}`, task statuses PENDING, RUNNING, SUCCEEDED,
 * FAILED, CANCELED and UNKNOWN (no such task, or its 24 h are over).
 */
import * as v from 'valibot';
import type { JobFailureCause, ModeratedContent, ProviderJobStatus } from '../../core/ports/video-provider.js';
import {
  ContentModerationError,
  UpstreamAccountError,
  UpstreamBusyError,
  UpstreamConfigurationError,
  UpstreamOutcomeUnknownError,
  UpstreamRejectedError,
  UpstreamTransientError,
} from '../../core/upstream-errors.js';
import { parseJson } from '../upstream-http.js';
import type { Answer } from '../upstream-http.js';

const ErrorBodySchema = v.object({ code: v.optional(v.string()), message: v.optional(v.string()) });

export function errorCode(answer: Answer): string {
  const parsed = v.safeParse(ErrorBodySchema, parseJson(answer.text));
  return parsed.success ? (parsed.output.code ?? '') : '';
}

/** Model Studio's own words (they carry no request id; the body's `request_id` is added for tickets). */
export function upstreamMessage(answer: Answer): string {
  const body = parseJson(answer.text) as { request_id?: unknown } | undefined;
  const parsed = v.safeParse(ErrorBodySchema, body);
  const id = typeof body?.request_id === 'string' ? ` (request id ${body.request_id})` : '';
  if (parsed.success) {
    const { code, message } = parsed.output;
    if (message) return `${message}${id}`;
    if (code) return `${code}${id}`;
  }
  return `Model Studio answered HTTP ${answer.status}`;
}

function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after')?.trim();
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
}

export function transient(answer: Answer): UpstreamTransientError {
  return new UpstreamTransientError(upstreamMessage(answer), retryAfterSeconds(answer.headers));
}

/**
 * Moderation codes: `DataInspectionFailed` (input or output "may contain inappropriate content", which the
 * message names) and `IPInfringementSuspect` (copyright).
 */
export function moderationOf(
  code: string,
  message: string,
): Extract<JobFailureCause, { kind: 'moderation' }> | undefined {
  if (code === 'IPInfringementSuspect')
    return { kind: 'moderation', content: contentOf(message), concern: 'copyright' };
  if (!/^DataInspectionFailed\b/.test(code) && code !== 'data_inspection_failed') return undefined;
  return { kind: 'moderation', content: contentOf(message), concern: 'sensitive' };
}

function contentOf(message: string): ModeratedContent {
  const said = /\b(input|output)\s+(text|image|video|audio)?/i.exec(message);
  if (said?.[1]?.toLowerCase() === 'output') return 'output';
  return (said?.[2]?.toLowerCase() as ModeratedContent | undefined) ?? 'text';
}

/**
 * A task failed for one of its media (docs/providers/model-studio.md, "References"): `InvalidParameter` with
 * "Failed to download" (a third party's report) or a size or format refusal naming `input.media[n]` or
 * `input.audio_url`. `position` is the media item's index: our images come first, then videos (request.ts).
 */
export function referenceOf(
  code: string,
  message: string,
): Extract<JobFailureCause, { kind: 'reference' }> | undefined {
  if (!/^InvalidParameter\b/.test(code) && !/^InvalidURL\b/.test(code)) return undefined;
  // A URL in the message may hold any word: read the upstream's own words only.
  const words = message.replace(/\bhttps?:\/\/\S+/g, '');
  const media = /\binput\.media\[(\d+)\]/.exec(message);
  const audio = /\binput\.audio_url\b/.test(message);
  const problem = /too large|exceed|size/i.test(words)
    ? 'too-large'
    : /format|type is not|not supported/i.test(words)
      ? 'wrong-type'
      : /download|timed? ?out|unreachable|HTTP \d{3}/i.test(words)
        ? 'unreachable'
        : undefined;
  if (problem === undefined || (!media && !audio && !/download/i.test(words))) return undefined;
  if (media?.[1] !== undefined) return { kind: 'reference', problem, position: Number(media[1]) };
  return audio ? { kind: 'reference', problem, media: 'audio' } : { kind: 'reference', problem };
}

const BUSY_CODES = /^Throttling\b/;

/** 401 `InvalidApiKey`, 403 `AccessDenied[.…]`, `Arrearage` (an overdue account): an operator's; 429: later. */
export function accountOrBusy(answer: Answer, code: string): Error | undefined {
  const said = `${code || `HTTP ${answer.status}`}: ${upstreamMessage(answer)}`;
  if (answer.status === 401 || answer.status === 403 || code === 'Arrearage' || code === 'InvalidApiKey') {
    return new UpstreamAccountError(`Model Studio refused our API key or account (${said})`);
  }
  if (answer.status === 429 || BUSY_CODES.test(code)) {
    return new UpstreamBusyError(`Model Studio has no room for the task now (${said})`);
  }
  return undefined;
}

/** Why a create was refused, as the error the workflow acts on. */
export function createRefusal(answer: Answer): Error {
  if (answer.status === 502 || answer.status === 504) {
    return new UpstreamOutcomeUnknownError(`Model Studio create answered HTTP ${answer.status}; the task may exist`);
  }
  const code = errorCode(answer);
  const moderation = moderationOf(code, upstreamMessage(answer));
  if (moderation) return new ContentModerationError(moderation.content, moderation.concern, upstreamMessage(answer));
  // `ModelNotFound`, a model not opened in the region, or a base URL that is not Model Studio's.
  if (answer.status === 404 || code === 'ModelNotFound') return new UpstreamConfigurationError(upstreamMessage(answer));
  const shared = accountOrBusy(answer, code);
  if (shared) return shared;
  if (answer.status >= 500) return transient(answer);
  return new UpstreamRejectedError(upstreamMessage(answer));
}

/** A refusal of a read or a list: the account's or no room, else transient (the task is left as it is). */
export function readRefusal(answer: Answer): Error {
  return accountOrBusy(answer, errorCode(answer)) ?? transient(answer);
}

/** Why Model Studio refused to cancel a task that is still PENDING. */
export function cancelRefusal(answer: Answer, jobId: string): Error {
  const refused = accountOrBusy(answer, errorCode(answer)) ?? (answer.status >= 500 ? transient(answer) : undefined);
  return refused ?? new UpstreamRejectedError(`Model Studio refused to cancel PENDING task ${jobId}`);
}

export const TASK_STATUSES = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED', 'UNKNOWN'] as const;

export const TaskSchema = v.object({
  output: v.object({
    task_id: v.string(),
    task_status: v.picklist(TASK_STATUSES),
    video_url: v.optional(v.pipe(v.string(), v.url())),
    code: v.optional(v.string()),
    message: v.optional(v.string()),
    orig_prompt: v.optional(v.string()),
  }),
});
export type Task = v.InferOutput<typeof TaskSchema>['output'];

/** The job's status; undefined for UNKNOWN (the caller's not-found) or a success without its URL. */
export function toStatus(task: Task): ProviderJobStatus | undefined {
  switch (task.task_status) {
    case 'PENDING':
      return { state: 'queued' };
    case 'RUNNING':
      return { state: 'running' };
    case 'CANCELED':
      return { state: 'cancelled' };
    case 'SUCCEEDED':
      return task.video_url === undefined ? undefined : { state: 'succeeded', videoUrl: task.video_url };
    case 'FAILED': {
      const message = task.message || task.code || 'Model Studio reported the task failed';
      const cause =
        moderationOf(task.code ?? '', task.message ?? '') ?? referenceOf(task.code ?? '', task.message ?? '');
      return cause ? { state: 'failed', message, cause } : { state: 'failed', message };
    }
    case 'UNKNOWN':
      return undefined;
  }
}
