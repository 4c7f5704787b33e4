/**
 * TranscodeUpload, invoked by PrepareInputs: an uploaded H.265 video's H.264 copy, made by ffmpeg from the
 * layer (FFMPEG_PATH) with an empty environment. Its role reads uploads and writes their copies and nothing
 * else: no table, no secret (docs/security.md, "Untrusted media"). Answers the key to use (the upload's own
 * key when it is not H.265).
 */
import * as v from 'valibot';
import { UPLOADS } from '../adapters/runtime/resources.js';
import { h264Copies } from '../adapters/wiring/transcode-dependencies.js';
import type { TranscodeResult } from '../adapters/wiring/transcode-dependencies.js';
import { stepHandler } from './step-handler.js';

/** Within the function's 130 s with the two copies, so a stuck ffmpeg is reported as such, not as a timeout. */
const TRANSCODE_TIMEOUT_MS = 100 * 1000;

const copies = h264Copies(TRANSCODE_TIMEOUT_MS);

/** An upload's key: under the uploads prefix, no way out of it. */
const objectKey = v.pipe(
  v.string(),
  v.startsWith(UPLOADS.prefix),
  v.check((key) => !key.split('/').includes('..'), 'must not climb out of the uploads prefix'),
);

export const handler = stepHandler(v.object({ object_key: objectKey }), async (input): Promise<TranscodeResult> => ({
  key: await copies.h264Key(input.object_key),
}));
