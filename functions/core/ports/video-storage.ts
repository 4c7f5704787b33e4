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
}

export interface VideoTransfer {
  /** Streams `sourceUrl` into storage at `key` without holding the file in memory. */
  copy(sourceUrl: string, key: string): Promise<TransferResult>;
}

/** A finished video removed at its owner's request (DELETE /api/v1/videos/{id}: docs/openai-videos.md, "Delete"). */
export interface VideoDeletion {
  /** Removes the stored video; a key already gone is no error. */
  deleteObject(key: string): Promise<void>;
  /** Records on the succeeded task that its video is gone (`video_deleted_at`), dropping its key and URL. */
  markDeleted(taskId: string, deletedAt: string): Promise<void>;
}
