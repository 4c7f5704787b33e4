export interface SignedUrl {
  url: string;
  expiresAt: string;
}

export interface VideoUrlSigner {
  /** A URL to download `key` valid for the signer's lifetime (24 h: spec §8). */
  sign(key: string, now: Date): Promise<SignedUrl>;
}

export interface TransferResult {
  bytes: number;
  contentType: string;
}

export interface VideoTransfer {
  /** Streams `sourceUrl` into storage at `key` without holding the file in memory. */
  copy(sourceUrl: string, key: string): Promise<TransferResult>;
}
