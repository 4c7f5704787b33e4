/**
 * POST /api/v1/videos (docs/openai-videos.md, "Create"). Primary course: read the model while the caller is
 * authenticated; map seconds and size to the model's duration, resolution and ratio (a 400 naming the values it
 * takes otherwise); store an uploaded input_reference as our uploads are; then the native submit does the rest
 * (price, charge, task, ledger, quotas, Idempotency-Key) and the new task is answered as OpenAI's video object.
 */
import { createHash } from 'node:crypto';
import { parseIdempotencyKey } from '../../idempotency.js';
import type { CreateVideoRequest } from '../../openai-create-request.js';
import { OpenAiParamError } from '../../openai-error.js';
import { durationFor, optionsForSize } from '../../openai-options.js';
import { toOpenAiVideo } from '../../openai-video.js';
import type { OpenAiVideo } from '../../openai-video.js';
import type { VideoModel } from '../../video-model.js';
import type { Caller } from '../authenticate.js';
import { submitTaskIdempotently } from '../submit-task.js';
import type { SubmitTaskDeps } from '../submit-task.js';
import { inputReferenceUrl } from './input-reference.js';
import type { InputReferenceDeps } from './input-reference.js';

export type CreateVideoDeps = SubmitTaskDeps &
  Omit<InputReferenceDeps, 'uploadIdFor'> & { newUploadId: () => string; videoRetentionDays?: number | undefined };

export interface CreateVideoOutcome {
  video: OpenAiVideo;
  replayed: boolean;
  headers: Record<string, string>;
}

export async function createVideo(
  authenticated: Caller | Promise<Caller>,
  request: () => CreateVideoRequest,
  deps: CreateVideoDeps,
  idempotencyKeyHeader: string | undefined,
): Promise<CreateVideoOutcome> {
  const parsed = attempt(request);
  const found = parsed.ok ? deps.models.findByNameOrId(parsed.value.model) : undefined;
  found?.catch(() => undefined);
  // Nothing, not even a 400 for the body, is answered before authentication succeeds.
  const caller = await authenticated;
  const key = parseIdempotencyKey(idempotencyKeyHeader);
  if (!parsed.ok) throw parsed.error;
  const input = parsed.value;
  const model = await found;
  if (!model) {
    throw new OpenAiParamError('model', `unknown model "${input.model}": see GET /api/v1/models for the models`);
  }
  checkReference(input, model);
  const imageMode = input.reference ? 'first_frame' : undefined;
  const duration = durationFor(input.seconds, model);
  const options = optionsForSize(input.size, model, imageMode);
  const imageUrl = input.reference
    ? await inputReferenceUrl(input.reference, caller.accountId, {
        ...deps,
        // Under a key the same file is the same upload, so a retry is the same native body (a replay).
        uploadIdFor: (bytes) =>
          key === undefined ? deps.newUploadId() : derivedUploadId(caller.accountId, key, bytes),
      })
    : undefined;
  const native = {
    model: input.model,
    prompt: input.prompt,
    ...(duration === undefined ? {} : { duration }),
    ...options,
    ...(imageUrl === undefined ? {} : { image_urls: [imageUrl], image_mode: 'first_frame' }),
  };
  const outcome = await submitTaskIdempotently(caller, native, deps, idempotencyKeyHeader);
  const task = await deps.tasks.get(outcome.answer.task_id);
  if (!task) throw new Error(`task ${outcome.answer.task_id} was charged but cannot be read`);
  return {
    video: toOpenAiVideo(task, deps.videoRetentionDays),
    replayed: outcome.replayed,
    headers: outcome.headers,
  };
}

/** The input_reference is the first frame: the model must take one, and an image-only model needs it. */
function checkReference(input: CreateVideoRequest, model: VideoModel): void {
  const { name } = model.record;
  if (input.reference && !model.upstream.imageModes.includes('first_frame')) {
    throw new OpenAiParamError(
      'input_reference',
      `model ${name} makes videos from the prompt alone and takes no input_reference: leave it out or choose another model`,
    );
  }
  if (!input.reference && !model.upstream.textOnly) {
    throw new OpenAiParamError(
      'input_reference',
      `model ${name} makes videos from an image: send input_reference (the first frame)`,
    );
  }
}

/** A UUID from the account, the Idempotency-Key and the file: the same three always name the same upload. */
function derivedUploadId(accountId: string, key: string, bytes: Uint8Array): string {
  const hex = createHash('sha256').update(accountId).update('\0').update(key).update('\0').update(bytes).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function attempt<T>(run: () => T): { ok: true; value: T } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    return { ok: false, error };
  }
}
