/**
 * The implicit label as ffmpeg reads it (docs/compliance.md, "The implicit label"): the sample video fast-start and
 * moov-last, and one an upstream labelled with ffmpeg, labelled as the transfer would (streamed in small chunks);
 * ffprobe lists the AIGC format tag, and the video stream's MD5 is the original's. Skipped without ffprobe.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { aigcLabel, labelMp4Stream, readAigcLabel, serializeAigcLabel } from '../../functions/core/mp4-label/index.js';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';

const hasFfprobe = !spawnSync('ffprobe', ['-version']).error && !spawnSync('ffmpeg', ['-version']).error;
if (!hasFfprobe) console.warn('mp4-label-ffprobe: skipped, no ffprobe/ffmpeg on PATH (apt-get install ffmpeg)');

const SAMPLE = join(REPOSITORY_ROOT, 'lib/dev/fixtures/sample.mp4');
const dir = mkdtempSync(join(tmpdir(), 'vgs-mp4-label-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ours = aigcLabel({ Label: '1', ContentProducer: 'OUR-CODE', ProduceID: 'task_01', PropagateID: 'video_01' });
const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
const formatTags = (file: string): Record<string, string> =>
  JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_format', '-of', 'json', file]).toString()).format.tags;
const videoMd5 = (file: string) => ffmpeg('-i', file, '-map', '0:v', '-c', 'copy', '-f', 'md5', '-').toString();
/** Top-level box types in order, to tell fast-start from moov-last. */
const topLevel = (file: string) => {
  const bytes = readFileSync(file);
  const types: string[] = [];
  for (let at = 0; at + 8 <= bytes.length; at += bytes.readUInt32BE(at))
    types.push(bytes.toString('latin1', at + 4, at + 8));
  return types.filter((type) => type === 'moov' || type === 'mdat');
};

async function label(source: string): Promise<string> {
  const out: Uint8Array[] = [];
  for await (const chunk of labelMp4Stream(createReadStream(source, { highWaterMark: 257 }), ours)) out.push(chunk);
  const target = `${source}.labelled.mp4`;
  writeFileSync(target, Buffer.concat(out));
  return target;
}

describe.skipIf(!hasFfprobe)('the AIGC label, read by ffprobe', () => {
  const fastStart = join(dir, 'fast-start.mp4');
  const moovLast = join(dir, 'moov-last.mp4');
  const upstream = join(dir, 'upstream.mp4');
  const upstreamLabel = { Label: '1', ContentProducer: 'UPSTREAM', ProduceID: 'job-9', ReservedCode1: 'c2ln' };

  it('labels a fast-start and a moov-last copy of the sample: the tag appears, the video is untouched', async () => {
    ffmpeg('-i', SAMPLE, '-c', 'copy', '-movflags', '+faststart', fastStart);
    ffmpeg('-i', SAMPLE, '-c', 'copy', moovLast);
    expect(topLevel(fastStart)).toEqual(['moov', 'mdat']);
    expect(topLevel(moovLast)).toEqual(['mdat', 'moov']);
    for (const file of [fastStart, moovLast]) {
      const labelled = await label(file);
      expect(formatTags(labelled).AIGC).toBe(serializeAigcLabel(ours));
      expect(formatTags(labelled).encoder).toBe(formatTags(file).encoder);
      expect(videoMd5(labelled)).toBe(videoMd5(SAMPLE));
    }
  });

  it("keeps the producer elements of a file the upstream labelled with ffmpeg's own layout", async () => {
    ffmpeg(
      '-i',
      SAMPLE,
      '-c',
      'copy',
      '-metadata',
      `AIGC=${JSON.stringify(upstreamLabel)}`,
      '-movflags',
      'use_metadata_tags',
      upstream,
    );
    const labelled = await label(upstream);
    const tag = JSON.parse(formatTags(labelled).AIGC!);
    expect(tag).toMatchObject({ ...upstreamLabel, PropagateID: 'video_01' });
    expect(readAigcLabel(readFileSync(labelled))).toEqual(tag);
    expect(videoMd5(labelled)).toBe(videoMd5(SAMPLE));
  });
});
