/**
 * TransferVideo (docs/task-lifecycle.md, "Completion"). Primary course: the succeeded job's video is copied from
 * the upstream's URL into our bucket under the key AwaitCompletion handed over; the step answers the key and size.
 */
import type { VideoTransfer } from '../ports/video-storage.js';

export interface TransferDeps {
  transfer: VideoTransfer;
}

/** AwaitCompletion hands over the key, so this step needs no table (and its bundle no DynamoDB). */
export async function transferVideo(sourceUrl: string, videoKey: string, deps: TransferDeps) {
  const { bytes } = await deps.transfer.copy(sourceUrl, videoKey);
  return { video_key: videoKey, bytes };
}
