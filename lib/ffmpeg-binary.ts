/**
 * The ffmpeg that PrepareInputs runs (H.265 → H.264, docs/api-contract.md, "Uploads"): the static build of the npm package
 * @ffmpeg-installer/linux-x64, no system install. CDK ships the package's directory as a Lambda layer (the
 * binary at /opt/ffmpeg, the function on x86_64); the local stack points FFMPEG_PATH at the very same file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from './repository-root.js';

export const FFMPEG_PACKAGE_DIR = join(REPOSITORY_ROOT, 'node_modules', '@ffmpeg-installer', 'linux-x64');
export const FFMPEG_BINARY = join(FFMPEG_PACKAGE_DIR, 'ffmpeg');

/** The package's directory, or a clear error where npm skipped the (optional, linux-x64 only) package. */
export function ffmpegPackageDir(): string {
  if (!existsSync(FFMPEG_BINARY)) {
    throw new Error(
      `${FFMPEG_BINARY} is missing: @ffmpeg-installer/linux-x64 is an optional dependency that npm installs only ` +
        'on Linux x64, where the service is built and tested',
    );
  }
  return FFMPEG_PACKAGE_DIR;
}
