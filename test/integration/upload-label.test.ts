/**
 * A video transcoded from a customer's upload keeps the AI-content label it had (docs/compliance.md): the shipped
 * ffmpeg copies the file's metadata with its keys, so the H.264 copy carries the same `AIGC` entry.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FfmpegTranscoder } from '../../functions/adapters/media/ffmpeg-transcoder.js';
import { aigcLabel, labelMp4, readAigcLabel } from '../../functions/core/mp4-label/index.js';
import { FFMPEG_BINARY, testMedia } from '../support/test-media.js';

const dir = mkdtempSync(join(tmpdir(), 'vgs-upload-label-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("an upload's AI-content label", () => {
  it('survives its transcode to H.264, and a file without one gets none', async () => {
    const label = aigcLabel({ Label: '1', ContentProducer: 'another-service', ProduceID: 'their-job-7' });
    const hevc = await testMedia('hevcMov');
    writeFileSync(join(dir, 'labelled.mov'), labelMp4(hevc, label).bytes);
    writeFileSync(join(dir, 'plain.mov'), hevc);
    const transcoder = new FfmpegTranscoder(FFMPEG_BINARY, 120_000);
    await transcoder.toH264(join(dir, 'labelled.mov'), join(dir, 'labelled.mp4'));
    await transcoder.toH264(join(dir, 'plain.mov'), join(dir, 'plain.mp4'));
    expect(readAigcLabel(readFileSync(join(dir, 'labelled.mp4')))).toEqual(label);
    expect(readAigcLabel(readFileSync(join(dir, 'plain.mp4')))).toBeUndefined();
    expect(await transcoder.videoCodec(join(dir, 'labelled.mp4'))).toBe('h264');
  });
});
