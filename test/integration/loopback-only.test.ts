/**
 * The local S3 keeps its objects as files across a restart, and listens on loopback only. (That every server
 * of a whole local stack binds to loopback is checked in test/e2e/local-stack-children.test.ts, which owns a
 * stack.)
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createBucket, startS3AndSqs } from '../../lib/dev/local/emulators.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';
import { listenersOf } from '../support/process-sockets.js';

it('keeps S3 objects as files across a restart of the local S3 (listening on loopback)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopback-s3-'));
  const client = (endpoint: string) =>
    new S3Client({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, forcePathStyle: true });
  try {
    const first = await startS3AndSqs(dir);
    const writer = client(first.endpoint);
    await createBucket(writer, 'kept');
    await writer.send(new PutObjectCommand({ Bucket: 'kept', Key: 'a.txt', Body: 'still here' }));
    writer.destroy();
    await first.stop();

    const second = await startS3AndSqs(dir);
    const reader = client(second.endpoint);
    try {
      const object = await reader.send(new GetObjectCommand({ Bucket: 'kept', Key: 'a.txt' }));
      expect(await object.Body!.transformToString()).toBe('still here');
      const mine = listenersOf([process.pid]).filter((listener) => listener.port === second.port);
      expect(mine.map((listener) => listener.address)).toEqual(['127.0.0.1']);
    } finally {
      reader.destroy();
      await second.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
