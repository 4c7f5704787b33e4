/**
 * The H.264 copy of an uploaded video, made by ffmpeg on local disk (/tmp: 512 MB in Lambda; a 50 MB upload
 * and its copy fit) and stored beside it as `<key>.h264.mp4`. Runs only in TranscodeUpload, the function that
 * may read uploads and write their copies and nothing else (docs/security.md, "Untrusted media").
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UploadCopies } from '../../core/ports/task-inputs.js';
import { transcodedObjectKey } from '../../core/uploads.js';
import type { FfmpegTranscoder } from './ffmpeg-transcoder.js';
import type { S3UploadFiles } from '../storage/s3-upload-files.js';

export class S3H264Copies implements Pick<UploadCopies, 'h264Key'> {
  constructor(
    private readonly files: S3UploadFiles,
    private readonly transcoder: FfmpegTranscoder,
    private readonly scratchDir: string = tmpdir(),
  ) {}

  async h264Key(objectKey: string): Promise<string> {
    const target = transcodedObjectKey(objectKey);
    if (await this.files.exists(target)) return target;
    const dir = await mkdtemp(join(this.scratchDir, 'transcode-'));
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
