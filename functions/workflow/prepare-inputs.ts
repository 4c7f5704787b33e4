/**
 * State PrepareInputs: uploaded references become URLs the upstream can fetch, an H.265 video transcoded to
 * H.264 first by the TranscodeUpload function (this one never decodes an upload). Runs before the task waits
 * for a slot, so a transcode never holds one; a reference that cannot be prepared fails the task, refunded.
 */
import * as v from 'valibot';
import { prepareInputs } from '../core/use-cases/prepare-inputs.js';
import { taskRepository } from '../adapters/wiring/service-dependencies.js';
import { uploadCopies } from '../adapters/wiring/transcode-dependencies.js';
import { taskInputs, uploadRepository } from '../adapters/wiring/upload-dependencies.js';
import { videoUrlSigner } from '../adapters/wiring/url-signer-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';

const deps = {
  tasks: taskRepository(),
  uploads: uploadRepository(),
  copies: uploadCopies(),
  signer: videoUrlSigner(),
  inputs: taskInputs(),
  now: () => new Date(),
};

export const handler = stepHandler(v.object({ task_id: taskId }), (input) => prepareInputs(input.task_id, deps));
