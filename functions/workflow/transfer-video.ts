/**
 * State TransferVideo: stream the upstream's video into our bucket (bounded memory), under the key
 * AwaitCompletion handed over. It reads no table: the task was moved to `transferring` before this step.
 */
import * as v from 'valibot';
import { transferVideo } from '../core/use-cases/transfer-video.js';
import { videoTransfer } from '../adapters/wiring/storage-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';

const deps = { transfer: videoTransfer() };

const Input = v.object({
  task_id: taskId,
  source_url: v.pipe(v.string(), v.url()),
  video_key: v.pipe(v.string(), v.regex(/^videos\/[^/]+\/[^/]+\.mp4$/)),
});

export const handler = stepHandler(Input, (input) => transferVideo(input.source_url, input.video_key, deps));
