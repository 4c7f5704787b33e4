/**
 * State PrepareInputs: uploaded references become URLs the upstream can fetch, an H.265 video transcoded to
 * H.264 first (ffmpeg from the layer; FFMPEG_PATH). Runs before the task waits for a slot, so a transcode
 * never holds one; a reference that cannot be prepared fails the task, which is refunded.
 */
import * as v from 'valibot';
import { prepareInputs } from '../core/use-cases/prepare-inputs.js';
import { readEnv } from '../adapters/config.js';
import { FfmpegTranscoder } from '../adapters/ffmpeg-transcoder.js';
import { S3UploadFiles } from '../adapters/s3-upload-files.js';
import { taskRepository } from '../adapters/service-dependencies.js';
import { taskInputs, uploadObjectSigner, uploadRepository, uploadStorage } from '../adapters/upload-dependencies.js';
import { S3UploadCopies } from '../adapters/upload-copies.js';
import { videoUrlSigner } from '../adapters/url-signer-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';

/**
 * Within the function's 140 s with the two copies, so a stuck ffmpeg is reported as such rather than as a
 * timeout. x264 `veryfast` on the function's two vCPUs makes a 50 MB upload's H.264 well inside it.
 */
const TRANSCODE_TIMEOUT_MS = 100 * 1000;
/** One copy of an upload (50 MB at most) to or from S3 in the same region. */
const TRANSFER_TIMEOUT_MS = 15 * 1000;

const deps = {
  tasks: taskRepository(),
  uploads: uploadRepository(),
  copies: new S3UploadCopies(
    new S3UploadFiles(uploadObjectSigner(), TRANSFER_TIMEOUT_MS),
    uploadStorage(),
    new FfmpegTranscoder(readEnv('ffmpegPath'), TRANSCODE_TIMEOUT_MS),
  ),
  signer: videoUrlSigner(),
  inputs: taskInputs(),
  now: () => new Date(),
};

export const handler = stepHandler(v.object({ task_id: taskId }), (input) => prepareInputs(input.task_id, deps));
