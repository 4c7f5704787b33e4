/**
 * State TransferVideo: stream the upstream's video into our bucket (bounded memory), under the key
 * AwaitCompletion handed over. It reads no table: the task was moved to `transferring` before this step.
 */
import * as v from 'valibot';
import { transferVideo } from '../core/use-cases/transfer-video.js';
import { aigcParties, videoTransfer } from '../adapters/wiring/storage-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';

const deps = { transfer: videoTransfer(), ...aigcParties() };

const Input = v.object({
  task_id: taskId,
  source_url: v.pipe(v.string(), v.url()),
  video_key: v.pipe(v.string(), v.regex(/^videos\/[^/]+\/[^/]+\.mp4$/)),
  job_id: v.pipe(v.string(), v.minLength(1)),
  provider: v.pipe(v.string(), v.minLength(1)),
});

export const handler = stepHandler(Input, (input) =>
  transferVideo(
    {
      taskId: input.task_id,
      jobId: input.job_id,
      provider: input.provider,
      sourceUrl: input.source_url,
      videoKey: input.video_key,
    },
    deps,
  ),
);
