/**
 * Copies of an upload for the upstream, beside it (same prefix, same lifecycle rule), each made once: an H.265
 * video transcoded by ffmpeg into `<key>.h264.mp4` (on local disk, /tmp: 512 MB in Lambda, a 50 MB upload and
 * its copy fit), and a file stored with its real type when it was declared as another.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UploadCopies } from '../core/ports/task-inputs.js';
import { transcodedObjectKey, typedObjectKey } from '../core/uploads.js';
import type { FfmpegTranscoder } from './ffmpeg-transcoder.js';
import type { S3UploadFiles } from './s3-upload-files.js';
import type { S3UploadStorage } from './s3-upload-storage.js';

export class S3UploadCopies implements UploadCopies {
  constructor(
    private readonly files: S3UploadFiles,
    private readonly storage: S3UploadStorage,
    private readonly transcoder: FfmpegTranscoder,
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

  async h264Key(objectKey: string): Promise<string> {
    const target = transcodedObjectKey(objectKey);
    if (await this.files.exists(target)) return target;
    const dir = await mkdtemp(join(this.scratchDir, 'prepare-inputs-'));
    try {
      const input = join(dir, 'upload');
      await this.files.download(objectKey, input);
      if ((await this.transcoder.videoCodec(input)) !== 'hevc') return objectKey;
      const output = join(dir, 'h264.mp4');
      await this.transcoder.toH264(input, output);
      await this.files.upload(output, target, 'video/mp4');
      return target;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
