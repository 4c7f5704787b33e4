/**
 * H.265 → H.264 with the ffmpeg binary of the @ffmpeg-installer npm package (a Lambda layer in AWS, the
 * package's own file locally: FFMPEG_PATH). The codec is read from the file's boxes, not by a probe.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { mp4VideoCodec } from '../../core/mp4-codec.js';

/** At most this much of ffmpeg's reason goes into the error. */
const DETAIL_CHARS = 300;

export class FfmpegTranscoder {
  constructor(
    private readonly ffmpegPath: string,
    private readonly timeoutMs: number,
  ) {}

  async videoCodec(path: string): Promise<string | undefined> {
    return mp4VideoCodec(await readFile(path));
  }

  toH264(input: string, output: string): Promise<void> {
    // yuv420p: what every H.264 decoder takes (a 10-bit HEVC source would stay 10-bit otherwise); faststart puts
    // the index first, so the upstream can read the file as it downloads. The file's metadata is kept, its keys
    // as they were (use_metadata_tags): an AI-content label (`AIGC`) survives the copy (docs/compliance.md).
    const args = [
      ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-i', input, '-map_metadata', '0'],
      ...['-map', '0:v:0', '-map', '0:a:0?', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20'],
      ...['-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k'],
      ...['-movflags', '+faststart+use_metadata_tags', '-f', 'mp4', output],
    ];
    return new Promise((resolve, reject) => {
      // An empty environment: the function's AWS credentials (AWS_ACCESS_KEY_ID, AWS_SESSION_TOKEN, …) never
      // reach the decoder of an untrusted file (docs/security.md, "Untrusted media").
      const options = { timeout: this.timeoutMs, maxBuffer: 1024 * 1024, env: {} };
      execFile(this.ffmpegPath, args, options, (error, _stdout, stderr) => {
        if (!error) return resolve();
        // ffmpeg's last word, without our scratch paths: it ends in the customer's error_message.
        const lines = String(stderr)
          .split('\n')
          .map((line) => line.replaceAll(input, 'the upload').replaceAll(output, 'the copy').trim())
          // Its log's repeats and decoder addresses (`[hevc @ 0x55d0…]`) say nothing to a customer.
          .map((line) => line.replace(/^\[[^\]]* @ 0x[0-9a-f]+\]\s*/, ''))
          .filter((line) => line !== '' && !line.startsWith('Last message repeated'));
        const detail = error.killed
          ? `it took longer than ${Math.round(this.timeoutMs / 1000)} s`
          : (lines.at(-1) ?? `ffmpeg exited with ${error.code ?? error.signal}`).slice(0, DETAIL_CHARS);
        reject(new Error(`ffmpeg could not transcode the video: ${detail}`));
      });
    });
  }
}
