/** The references a task's upstream job is made with, once PrepareInputs has turned file_urls into fetchable URLs. */
export interface PreparedReferences {
  imageUrls: string[];
  videoUrls: string[];
  audioUrls: string[];
}

export interface TaskInputsStore {
  /** Replaces the task's references while it is pending without a job; false when it no longer is. */
  record(taskId: string, references: PreparedReferences): Promise<boolean>;
}

/** An upload's file as the upstream may take it: copies beside the upload, under its prefix and lifecycle rule. */
export interface UploadCopies {
  /**
   * The key of an H.264 version of the video at `objectKey`: the key itself when it is not H.265, else a
   * transcoded copy beside it (made once; a copy an earlier run made is reused).
   */
  h264Key(objectKey: string): Promise<string>;
  /** What the object's first bytes show (undefined when nothing is recognised or there is no object). */
  sniffedType(objectKey: string): Promise<string | undefined>;
  /**
   * The key of a copy stored with `contentType` (its real type), for an upload whose declared type (signed into
   * its PUT, so stored with it) was another: the upstream then reads the type it gets.
   */
  typedKey(objectKey: string, contentType: string): Promise<string>;
}
