/**
 * The transfer step against the S3 emulator: a large video streams in through multipart upload; a
 * download that breaks, a file that is too large, or one that is not a video fails with the right error
 * and leaves no object and no unfinished multipart upload behind.
 */
import { GetObjectCommand, HeadObjectCommand, ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpToS3VideoTransfer } from '../../functions/adapters/storage/s3-video-storage.js';
import { VideoDownloadInterruptedError, VideoRejectedError } from '../../functions/core/workflow-errors.js';
import { createBucket, startS3AndSqs } from '../../lib/dev/local/emulators.js';
import type { Fauxqs } from '../../lib/dev/local/emulators.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';

const MB = 1024 * 1024;
const BUCKET = 'transfer-test';
let emulator: Fauxqs;
let s3: S3Client;
let origin: Server;
let originUrl: string;

/** /ok/<MB>, /broken/<MB> (cut after half), /unsized/<MB> (chunked, no length), /html */
function serveVideos(req: IncomingMessage, res: ServerResponse) {
  const [, kind, size] = (req.url ?? '').split('/');
  if (kind === 'html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>nope</html>');
  const bytes = Number(size) * MB;
  const headers: Record<string, string> = { 'content-type': 'video/mp4' };
  if (kind !== 'unsized') headers['content-length'] = String(bytes);
  res.writeHead(200, headers);
  const chunk = Buffer.alloc(64 * 1024, 7);
  let sent = 0;
  const pump = () => {
    while (sent < bytes) {
      if (kind === 'broken' && sent >= bytes / 2) return void res.destroy();
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}

beforeAll(async () => {
  emulator = await startS3AndSqs(undefined);
  s3 = new S3Client({
    endpoint: emulator.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    forcePathStyle: true,
  });
  await createBucket(s3, BUCKET);
  origin = createServer(serveVideos);
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});
afterAll(async () => {
  origin?.closeAllConnections();
  await new Promise((resolve) => origin?.close(resolve));
  s3?.destroy();
  await emulator?.stop();
});

const transfer = (maxBytes = 100 * MB) => new HttpToS3VideoTransfer(s3, BUCKET, { maxBytes, timeoutMs: 60_000 });
const exists = (key: string) =>
  s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })).then(
    () => true,
    () => false,
  );
const openUploads = async () => (await s3.send(new ListMultipartUploadsCommand({ Bucket: BUCKET }))).Uploads ?? [];

describe('HttpToS3VideoTransfer', () => {
  it('streams a 24 MB video in as a multipart upload, byte for byte', async () => {
    const result = await transfer().copy(`${originUrl}/ok/24`, 'videos/big.mp4');
    expect(result).toEqual({ bytes: 24 * MB, contentType: 'video/mp4' });
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'videos/big.mp4' }));
    expect(object.ContentLength).toBe(24 * MB);
    expect(object.ContentType).toBe('video/mp4');
  });

  it('a download that breaks mid-way is an interruption (retried by the state machine), nothing left behind', async () => {
    await expect(transfer().copy(`${originUrl}/broken/24`, 'videos/broken.mp4')).rejects.toBeInstanceOf(
      VideoDownloadInterruptedError,
    );
    expect(await exists('videos/broken.mp4')).toBe(false);
    expect(await openUploads()).toEqual([]);
  });

  it('a file larger than the cap is rejected, whether or not its length was announced', async () => {
    await expect(transfer(10 * MB).copy(`${originUrl}/ok/24`, 'videos/announced.mp4')).rejects.toThrow(
      VideoRejectedError,
    );
    await expect(transfer(10 * MB).copy(`${originUrl}/unsized/24`, 'videos/unsized.mp4')).rejects.toThrow(
      /larger than/,
    );
    expect(await exists('videos/unsized.mp4')).toBe(false);
    expect(await openUploads()).toEqual([]);
  });

  it('a file that is not a video is rejected', async () => {
    await expect(transfer().copy(`${originUrl}/html`, 'videos/page.mp4')).rejects.toThrow(/not a video/);
  });
});
