/**
 * The result video as every simulator serves it at its stand-in for the presigned URL: a small real MP4,
 * sent whole or with the download fault its job's markers picked (markers.ts).
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import type { Download } from './markers.js';

const FIXTURE_URL = new URL('../fixtures/sample.mp4', import.meta.url);
/** How long `[simulate:slow-download]` holds back the second half of the file. */
const SLOW_DOWNLOAD_MS = 15_000;

export const loadVideo = (): Promise<Buffer> => readFile(FIXTURE_URL);

/** A `[simulate:held-download]` job's release: whether it came, and where to wait for it if not. */
export interface DownloadRelease {
  released: boolean;
  onRelease(finish: () => void): void;
}

/** `not-video` is the provider's own page, answered before this. */
export function sendVideo(
  res: ServerResponse,
  video: Buffer,
  download: Exclude<Download, 'not-video'>,
  release: DownloadRelease,
): void {
  res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': video.length });
  if (download === 'ok' || (download === 'held' && release.released)) return void res.end(video);
  const half = Math.floor(video.length / 2);
  const rest = () => {
    if (!res.destroyed) res.end(video.subarray(half));
  };
  if (download === 'held') {
    res.write(video.subarray(0, half));
    release.onRelease(rest);
    return;
  }
  if (download === 'slow') {
    // Half now, the rest after 15 s: a transfer that takes a while (unless the reader gives up first).
    res.write(video.subarray(0, half));
    setTimeout(rest, SLOW_DOWNLOAD_MS).unref();
    return;
  }
  // Broken download: promise the whole file, send half, then drop the connection.
  res.write(video.subarray(0, half), () => res.destroy());
}
