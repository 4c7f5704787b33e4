/**
 * Small real media files made at test time by the ffmpeg the service ships (@ffmpeg-installer/linux-x64):
 * a 64×64 image, a 1-s 64×64 clip in H.264 (MP4) and H.265 (MOV), a 1-s tone. Made once per process.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FFMPEG_BINARY } from '../../lib/ship/build/ffmpeg-binary.js';

const run = promisify(execFile);

const RECIPES = {
  jpeg: ['-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=1', '-frames:v', '1', 'out.jpg'],
  png: ['-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=1', '-frames:v', '1', 'out.png'],
  webp: ['-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=1', '-frames:v', '1', 'out.webp'],
  mp4: [
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=64x64:rate=10:duration=1',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    'out.mp4',
  ],
  hevcMov: [
    ...['-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=10:duration=1', '-c:v', 'libx265', '-tag:v', 'hvc1'],
    ...['-x265-params', 'log-level=error', '-pix_fmt', 'yuv420p', 'out.mov'],
  ],
  mp3: ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-c:a', 'libmp3lame', 'out.mp3'],
  wav: ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', 'out.wav'],
} as const;
export type MediaName = keyof typeof RECIPES;

const made = new Map<MediaName, Promise<Buffer>>();

export function testMedia(name: MediaName): Promise<Buffer> {
  let media = made.get(name);
  if (!media) {
    // A folder of its own for each file, removed once read: the bytes are kept in memory, nothing in /tmp.
    const workDir = mkdtempSync(join(tmpdir(), 'test-media-'));
    const args = [...RECIPES[name]];
    const output = join(workDir, `${name}-${args.pop() as string}`);
    media = run(FFMPEG_BINARY, ['-hide_banner', '-loglevel', 'error', '-y', ...args, output])
      .then(() => readFileSync(output))
      .finally(() => rmSync(workDir, { recursive: true, force: true }));
    made.set(name, media);
  }
  return media;
}

export { FFMPEG_BINARY };
