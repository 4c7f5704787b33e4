/**
 * The ffmpeg that transcodes uploads (docs/api-contract.md, "Uploads"): the static Linux x64 build of the npm
 * package @ffmpeg-installer/linux-x64 (ffmpeg git 20181210-g0e8eb07980). npm installs it only on Linux x64, so
 * elsewhere (macOS, arm64) synthesis fetches the locked tarball once with `npm pack`, checks it against
 * package-lock.json's integrity and unpacks it under node_modules/.cache. docs/operations.md, "ffmpeg".
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { SetupError } from '../setup-error.js';

export const FFMPEG_PACKAGE = '@ffmpeg-installer/linux-x64';
export const FFMPEG_PACKAGE_DIR = join(REPOSITORY_ROOT, 'node_modules', '@ffmpeg-installer', 'linux-x64');
export const FFMPEG_BINARY = join(FFMPEG_PACKAGE_DIR, 'ffmpeg');
/** The ffmpeg build the package holds (its package.json's `ffmpeg` field). */
export const FFMPEG_BUILD = '20181210-g0e8eb07980';

/** The locked version and integrity of the package (package-lock.json): what any host fetches. */
export function lockedFfmpegPackage(root: string = REPOSITORY_ROOT): { version: string; integrity: string } {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; integrity?: string }>;
  };
  const entry = lock.packages[`node_modules/${FFMPEG_PACKAGE}`];
  if (!entry?.version || !entry.integrity) throw new SetupError(`package-lock.json does not lock ${FFMPEG_PACKAGE}`);
  return { version: entry.version, integrity: entry.integrity };
}

/**
 * A directory holding `ffmpeg` (the layer's content, so /opt/ffmpeg): the installed package on Linux x64,
 * else the copy fetched into node_modules/.cache (fetched now if absent). Fails in one line naming the fixes.
 */
export function ffmpegPackageDir(root: string = REPOSITORY_ROOT): string {
  const installed = join(root, 'node_modules', '@ffmpeg-installer', 'linux-x64');
  if (existsSync(join(installed, 'ffmpeg'))) return installed;
  const { version, integrity } = lockedFfmpegPackage(root);
  const cached = join(root, 'node_modules', '.cache', 'ffmpeg-layer', `linux-x64-${version}`);
  if (existsSync(join(cached, 'ffmpeg'))) return cached;
  fetchPackage(version, integrity, cached);
  return cached;
}

function fetchPackage(version: string, integrity: string, into: string): void {
  const work = mkdtempSync(join(tmpdir(), 'vgs-ffmpeg-'));
  try {
    let tarball: string;
    try {
      // npm's own cache, registry and proxy settings; --prefer-offline reuses a tarball npm already holds.
      const out = execFileSync(
        'npm',
        ['pack', `${FFMPEG_PACKAGE}@${version}`, '--pack-destination', work, '--prefer-offline', '--json'],
        { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
      tarball = join(work, (JSON.parse(out) as { filename: string }[])[0]!.filename);
    } catch {
      throw new SetupError(
        `${FFMPEG_PACKAGE}@${version} (ffmpeg for the transcoding layer) is not installed on this host and ` +
          '`npm pack` could not fetch it: connect to your npm registry and synthesize again, or set ' +
          'context ffmpegLayerArn to a layer of your own (docs/operations.md, "ffmpeg")',
      );
    }
    const [algorithm, expected] = integrity.split(/-(.*)/s) as [string, string];
    const actual = createHash(algorithm).update(readFileSync(tarball)).digest('base64');
    if (actual !== expected) {
      throw new SetupError(`${tarball} does not match package-lock.json's integrity for ${FFMPEG_PACKAGE}@${version}`);
    }
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
    // The package's postinstall makes it executable; npm pack runs no scripts.
    chmodSync(join(unpacked, 'ffmpeg'), 0o755);
    mkdirSync(join(into, '..'), { recursive: true });
    rmSync(into, { recursive: true, force: true });
    renameSync(unpacked, into);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
