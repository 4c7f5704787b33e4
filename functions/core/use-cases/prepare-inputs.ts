/**
 * State PrepareInputs (docs/api-contract.md, "Uploads"), before the wait for an upstream slot. Primary course: each file_url
 * of the task becomes a URL the upstream can fetch until the upload expires, of an H.264 copy for an H.265
 * video, of a copy with its real type for a file declared as another; the URLs are recorded on the task while
 * it is pending without a job. A task without uploads passes through untouched.
 */
import type { PreparedReferences, TaskInputsStore, UploadCopies } from '../ports/task-inputs.js';
import type { TaskRepository } from '../ports/task-repository.js';
import type { UploadRepository } from '../ports/uploads.js';
import type { VideoUrlSigner } from '../ports/video-storage.js';
import { isFinal } from '../task-status.js';
import { canonicalType, uploadIdOf } from '../uploads.js';
import { ReferencePreparationError, TaskNotFoundError } from '../workflow-errors.js';

export interface PrepareInputsDeps {
  tasks: Pick<TaskRepository, 'get'>;
  uploads: UploadRepository;
  copies: UploadCopies;
  signer: VideoUrlSigner;
  inputs: TaskInputsStore;
  now: () => Date;
}

export async function prepareInputs(taskId: string, deps: PrepareInputsDeps): Promise<{ prepared: number }> {
  const task = await deps.tasks.get(taskId);
  if (!task) throw new TaskNotFoundError(`task ${taskId} does not exist`);
  const { imageUrls, videoUrls, audioUrls } = task.generation;
  const all = [...imageUrls, ...videoUrls, ...audioUrls];
  if (isFinal(task.status) || task.upstream_job_id || !all.some((url) => uploadIdOf(url))) return { prepared: 0 };

  const prepare = (field: string, video: boolean) => (url: string, index: number) =>
    uploadIdOf(url) ? fetchableUrl(`${field}[${index}]`, url, video, task.account_id, deps) : Promise.resolve(url);
  const references: PreparedReferences = {
    imageUrls: await Promise.all(imageUrls.map(prepare('image_urls', false))),
    videoUrls: await Promise.all(videoUrls.map(prepare('video_urls', true))),
    audioUrls: await Promise.all(audioUrls.map(prepare('audio_urls', false))),
  };
  await deps.inputs.record(taskId, references);
  return { prepared: all.filter((url) => uploadIdOf(url)).length };
}

async function fetchableUrl(
  field: string,
  url: string,
  video: boolean,
  accountId: string,
  deps: PrepareInputsDeps,
): Promise<string> {
  const uploadId = uploadIdOf(url) as string;
  const upload = await deps.uploads.get(uploadId);
  // The submit checked all of this; only a record that changed since (or a forged task) gets here.
  if (!upload || upload.account_id !== accountId) {
    throw new ReferencePreparationError(`${field}: upload ${uploadId} is not available`);
  }
  const now = deps.now();
  const remainingSeconds = Math.floor((Date.parse(upload.expires_at) - now.getTime()) / 1000);
  if (remainingSeconds <= 0) {
    throw new ReferencePreparationError(`${field}: upload ${uploadId} expired at ${upload.expires_at}`);
  }
  let key = upload.object_key;
  try {
    if (video) key = await deps.copies.h264Key(upload.object_key);
    // The upload itself, stored with its declared type: a file of another real type (a PNG declared as JPEG)
    // goes as a copy with its own, so the upstream is not told one type and given another.
    if (key === upload.object_key) {
      const sniffed = await deps.copies.sniffedType(key);
      const real = sniffed === undefined ? undefined : canonicalType(sniffed);
      if (real !== undefined && real !== upload.declared_type) key = await deps.copies.typedKey(key, real);
    }
  } catch (error) {
    throw new ReferencePreparationError(`${field}: upload ${uploadId}: ${(error as Error).message}`);
  }
  // Until the upload's own end: the upstream may fetch it whenever it starts the job, never after deletion.
  return (await deps.signer.sign(key, now, remainingSeconds)).url;
}
