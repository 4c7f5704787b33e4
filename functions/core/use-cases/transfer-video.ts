/**
 * TransferVideo (docs/task-lifecycle.md, "Completion"). Primary course: the succeeded job's video is copied from
 * the upstream's URL into our bucket under the key AwaitCompletion handed over, labelled on the way as AI-generated
 * (docs/compliance.md, "The implicit label"): the upstream's job and our task named; the step answers the key, the
 * size and the label the file carries.
 */
import { aigcLabel } from '../mp4-label/index.js';
import type { AigcView } from '../task.js';
import type { VideoTransfer } from '../ports/video-storage.js';

export interface TransferDeps {
  transfer: VideoTransfer;
  /** The producer's code of a provider's content (its file's own label wins) and our operator's code. */
  producerOf: (provider: string) => string;
  propagator: string;
}

export interface TransferInput {
  taskId: string;
  jobId: string;
  provider: string;
  sourceUrl: string;
  videoKey: string;
}

/** AwaitCompletion hands over the key, so this step needs no table (and its bundle no DynamoDB). */
export async function transferVideo(input: TransferInput, deps: TransferDeps) {
  const label = aigcLabel({
    Label: '1',
    ContentProducer: deps.producerOf(input.provider),
    ProduceID: input.jobId,
    ContentPropagator: deps.propagator,
    PropagateID: input.taskId,
  });
  const { bytes, label: written } = await deps.transfer.copy(input.sourceUrl, input.videoKey, label);
  const aigc: AigcView | null = written
    ? {
        content_producer: written.ContentProducer,
        produce_id: written.ProduceID,
        content_propagator: written.ContentPropagator,
        propagate_id: written.PropagateID,
      }
    : null;
  return { video_key: input.videoKey, bytes, aigc };
}
