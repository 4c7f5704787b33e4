/**
 * State PrepareInputs: uploaded references become URLs the upstream can fetch, an H.265 video transcoded to
 * H.264 first by the TranscodeUpload function (this one never decodes an upload). Runs before the task waits
 * for a slot, so a transcode never holds one; a reference that cannot be prepared fails the task, refunded.
 */
import * as v from 'valibot';
import { prepareInputs } from '../core/use-cases/prepare-inputs.js';
import { readEnv } from '../adapters/runtime/config.js';
import { lambdaInvoker } from '../adapters/media/lambda-invoker.js';
import { UPLOAD_TRANSCODER } from '../adapters/runtime/resources.js';
import { TranscoderFunction } from '../adapters/media/transcoder-function.js';
import { S3UploadFiles } from '../adapters/storage/s3-upload-files.js';
import { taskRepository } from '../adapters/wiring/service-dependencies.js';
import {
  taskInputs,
  uploadObjectSigner,
  uploadRepository,
  uploadStorage,
} from '../adapters/wiring/upload-dependencies.js';
import { S3UploadCopies } from '../adapters/storage/upload-copies.js';
import { videoUrlSigner } from '../adapters/wiring/url-signer-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';

/** TranscodeUpload's whole timeout and a little more: its own timeout is what ends a stuck transcode. */
const TRANSCODE_CALL_TIMEOUT_MS = (UPLOAD_TRANSCODER.timeoutSeconds + 5) * 1000;
/** One copy of an upload (50 MB at most) to or from S3 in the same region. */
const TRANSFER_TIMEOUT_MS = 15 * 1000;

const deps = {
  tasks: taskRepository(),
  uploads: uploadRepository(),
  copies: new S3UploadCopies(
    new S3UploadFiles(uploadObjectSigner(), TRANSFER_TIMEOUT_MS),
    uploadStorage(),
    new TranscoderFunction(lambdaInvoker(TRANSCODE_CALL_TIMEOUT_MS), readEnv('transcoderFunction')),
  ),
  signer: videoUrlSigner(),
  inputs: taskInputs(),
  now: () => new Date(),
};

export const handler = stepHandler(v.object({ task_id: taskId }), (input) => prepareInputs(input.task_id, deps));
