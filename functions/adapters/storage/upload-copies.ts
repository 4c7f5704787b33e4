/**
 * Copies of an upload for the upstream, beside it (same prefix, same lifecycle rule), each made once: a file
 * stored with its real type when it was declared as another (on local disk, /tmp), and an H.265 video's H.264
 * copy, which the TranscodeUpload function makes (`h264`: transcoder-function.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UploadCopies } from '../../core/ports/task-inputs.js';
import { typedObjectKey } from '../../core/uploads.js';
import type { S3UploadFiles } from './s3-upload-files.js';
import type { S3UploadStorage } from './s3-upload-storage.js';

export class S3UploadCopies implements UploadCopies {
  constructor(
    private readonly files: S3UploadFiles,
    private readonly storage: S3UploadStorage,
    private readonly h264: Pick<UploadCopies, 'h264Key'>,
    private readonly scratchDir: string = tmpdir(),
  ) {}

  sniffedType(objectKey: string): Promise<string | undefined> {
    return this.storage.inspect(objectKey).then((stored) => stored?.sniffedType);
  }

  async typedKey(objectKey: string, contentType: string): Promise<string> {
    const target = typedObjectKey(objectKey, contentType);
    if (await this.files.exists(target)) return target;
    const dir = await mkdtemp(join(this.scratchDir, 'prepare-inputs-'));
    try {
      const copy = join(dir, 'upload');
      await this.files.download(objectKey, copy);
      await this.files.upload(copy, target, contentType);
      return target;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  h264Key(objectKey: string): Promise<string> {
    return this.h264.h264Key(objectKey);
  }
}
