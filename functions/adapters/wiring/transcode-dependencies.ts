/**
 * Composition root for uploads' copies (docs/security.md, "Untrusted media"): PrepareInputs stores a reference
 * with its real type and hands an H.265 video to the TranscodeUpload function; TranscodeUpload runs ffmpeg.
 */
import { readEnv } from '../runtime/config.js';
import { UPLOAD_TRANSCODER } from '../runtime/resources.js';
import { lambdaInvoker } from '../media/lambda-invoker.js';
import { TranscoderFunction } from '../media/transcoder-function.js';
import { FfmpegTranscoder } from '../media/ffmpeg-transcoder.js';
import { S3H264Copies } from '../media/h264-copies.js';
import { S3UploadFiles } from '../storage/s3-upload-files.js';
import { S3UploadCopies } from '../storage/upload-copies.js';
import { uploadObjectSigner, uploadStorage } from './upload-dependencies.js';

export type { TranscodeResult } from '../media/transcoder-function.js';

/** One copy of an upload (50 MB at most) to or from S3 in the same region. */
const TRANSFER_TIMEOUT_MS = 15 * 1000;
/** TranscodeUpload's whole timeout and a little more: its own timeout is what ends a stuck transcode. */
const TRANSCODE_CALL_TIMEOUT_MS = (UPLOAD_TRANSCODER.timeoutSeconds + 5) * 1000;

/** PrepareInputs' copies: a retyped upload stored beside it, an H.265 video's copy made by TranscodeUpload. */
export function uploadCopies() {
  return new S3UploadCopies(
    new S3UploadFiles(uploadObjectSigner(), TRANSFER_TIMEOUT_MS),
    uploadStorage(),
    new TranscoderFunction(lambdaInvoker(TRANSCODE_CALL_TIMEOUT_MS), readEnv('transcoderFunction')),
  );
}

/** TranscodeUpload's copies, ffmpeg stopped after `transcodeTimeoutMs`. */
export function h264Copies(transcodeTimeoutMs: number) {
  return new S3H264Copies(
    new S3UploadFiles(uploadObjectSigner(), TRANSFER_TIMEOUT_MS),
    new FfmpegTranscoder(readEnv('ffmpegPath'), transcodeTimeoutMs),
  );
}
