/**
 * Our reading of a file's type from its first bytes (functions/core/media-type.ts) against the `file-type`
 * package's, on real files that ffmpeg makes here and on bytes that are no media at all.
 */
import { fileTypeFromBuffer } from 'file-type';
import { describe, expect, it } from 'vitest';
import { sniffMediaType } from '../../functions/core/media-type.js';
import { mp4VideoCodec } from '../../functions/core/mp4-codec.js';
import { testMedia } from '../support/test-media.js';
import type { MediaName } from '../support/test-media.js';

const EXPECTED: Record<MediaName, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  mp4: 'video/mp4',
  hevcMov: 'video/quicktime',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
};

describe('sniffMediaType', () => {
  it.each(Object.entries(EXPECTED) as [MediaName, string][])(
    'reads %s as %s, as file-type does',
    async (name, type) => {
      const bytes = await testMedia(name);
      expect(sniffMediaType(bytes.subarray(0, 64))).toBe(type);
      expect((await fileTypeFromBuffer(bytes))?.mime).toBe(type);
    },
  );

  it('a bare MPEG audio frame (no ID3 tag) is MP3; an AAC ADTS frame is not', () => {
    expect(sniffMediaType(Uint8Array.from([0xff, 0xfb, 0x90, 0x64]))).toBe('audio/mpeg');
    expect(sniffMediaType(Uint8Array.from([0xff, 0xf1, 0x50, 0x80]))).toBeUndefined();
  });

  it('names near relatives it does not accept (HEIF, M4A, AVI), and nothing for garbage or text', () => {
    const ftyp = (brand: string) => Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from(`ftyp${brand}`)]);
    expect(sniffMediaType(ftyp('heic'))).toBe('image/heif');
    expect(sniffMediaType(ftyp('M4A '))).toBe('audio/mp4');
    expect(sniffMediaType(ftyp('isom'))).toBe('video/mp4');
    expect(sniffMediaType(Buffer.from('RIFF\0\0\0\0AVI LIST'))).toBe('video/vnd.avi');
    expect(sniffMediaType(Buffer.from('<html><body>hello</body></html>'))).toBeUndefined();
    expect(sniffMediaType(Uint8Array.from({ length: 64 }, (_, index) => (index * 37 + 11) % 251))).toBeUndefined();
    expect(sniffMediaType(new Uint8Array())).toBeUndefined();
  });
});

describe('mp4VideoCodec', () => {
  it('reads H.264 from an MP4 and H.265 from a MOV', async () => {
    expect(mp4VideoCodec(await testMedia('mp4'))).toBe('h264');
    expect(mp4VideoCodec(await testMedia('hevcMov'))).toBe('hevc');
  });

  it('finds no video track in audio, an image or garbage, and never throws on truncated boxes', async () => {
    expect(mp4VideoCodec(await testMedia('wav'))).toBeUndefined();
    expect(mp4VideoCodec(await testMedia('png'))).toBeUndefined();
    const mp4 = await testMedia('mp4');
    for (const length of [0, 7, 40, Math.floor(mp4.length / 2)]) {
      expect(() => mp4VideoCodec(mp4.subarray(0, length))).not.toThrow();
    }
    expect(mp4VideoCodec(Buffer.from([0, 0, 0, 1, 0x6d, 0x6f, 0x6f, 0x76]))).toBeUndefined();
  });
});
