import type { AigcLabel } from '../mp4-label/index.js';

export interface SignedUrl {
  url: string;
  expiresAt: string;
}

export interface VideoUrlSigner {
  /**
   * A URL to download `key`, valid 24 h (docs/security.md, "Video URLs") unless `expiresInSeconds` says otherwise (an upload handed
   * to the upstream: until the upload's own expiry).
   */
  sign(key: string, now: Date, expiresInSeconds?: number): Promise<SignedUrl>;
}

export interface TransferResult {
  bytes: number;
  contentType: string;
  /** The label written into the stored file; undefined when it could not be labelled (it went on as it was). */
  label?: AigcLabel;
}

export interface VideoTransfer {
  /** Streams `sourceUrl` into storage at `key` without holding the file in memory. */
  /** With `label`, the stored file carries it (an upstream's own producer elements kept). */
  copy(sourceUrl: string, key: string, label?: AigcLabel): Promise<TransferResult>;
}

/** A finished video removed at its owner's request (DELETE /api/v1/videos/{id}: docs/openai-videos.md, "Delete"). */
export interface VideoDeletion {
  /** Removes the stored video; a key already gone is no error. */
  deleteObject(key: string): Promise<void>;
  /** Records on the succeeded task that its video is gone (`video_deleted_at`), dropping its key and URL. */
  markDeleted(taskId: string, deletedAt: string): Promise<void>;
}
