/**
 * Uploads against DynamoDB Local and the S3 emulator: bytes PUT through the presigned URL, then our check of
 * what is stored (real JPEG, PNG, MP4, MOV, a PNG declared as JPEG, a too-large object, garbage), the
 * Idempotency-Key transaction, H.265 transcoded by the real ffmpeg, and the local 48-h sweep. The emulator
 * verifies no signature and enforces no signed header: these tests hold our own checks, not its.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbIdempotencyStore } from '../../functions/adapters/dynamodb/idempotency.js';
import { DynamoDbTaskInputs, DynamoDbUploadRepository } from '../../functions/adapters/dynamodb/uploads.js';
import { FfmpegTranscoder } from '../../functions/adapters/media/ffmpeg-transcoder.js';
import { S3H264Copies } from '../../functions/adapters/media/h264-copies.js';
import { S3UploadFiles } from '../../functions/adapters/storage/s3-upload-files.js';
import { S3UploadStorage } from '../../functions/adapters/storage/s3-upload-storage.js';
import { S3UrlSigner } from '../../functions/adapters/storage/s3-url-signer.js';
import { S3UploadCopies } from '../../functions/adapters/storage/upload-copies.js';
import { ForbiddenError, InvalidRequestError } from '../../functions/core/api-error.js';
import { mp4VideoCodec } from '../../functions/core/mp4-codec.js';
import type { ReferenceKind } from '../../functions/core/uploads.js';
import { createUpload } from '../../functions/core/use-cases/create-upload.js';
import { UploadChecks } from '../../functions/core/use-cases/resolve-uploads.js';
import { createBucket, startS3AndSqs } from '../../lib/dev/local/emulators.js';
import type { Fauxqs } from '../../lib/dev/local/emulators.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';
import { sweepUploads } from '../../lib/dev/local/upload-sweeper.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { taskRecord } from '../support/task-records.js';
import { FFMPEG_BINARY, testMedia } from '../support/test-media.js';

const local = useDynamoDbLocal('uploads');
const BUCKET = `uploads-test-${randomUUID().slice(0, 8)}`;
const ACCOUNT = 'acct-uploads';
let emulator: Fauxqs;
let s3: S3Client;
let signer: S3UrlSigner;

beforeAll(async () => {
  emulator = await startS3AndSqs(undefined);
  s3 = new S3Client({
    endpoint: emulator.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    forcePathStyle: true,
  });
  await createBucket(s3, BUCKET);
  signer = new S3UrlSigner({
    bucket: BUCKET,
    region: LOCAL_REGION,
    endpoint: emulator.endpoint,
    forcePathStyle: true,
    credentials: async () => LOCAL_CREDENTIALS,
  });
});
afterAll(async () => {
  s3?.destroy();
  await emulator?.stop();
});

function deps() {
  const idempotency = new DynamoDbIdempotencyStore(local.db, local.names.tables.idempotency);
  const uploads = new DynamoDbUploadRepository(local.db, local.names.tables.uploads, local.names.tables.idempotency);
  const storage = new S3UploadStorage(signer);
  return { uploads, storage, idempotency, now: () => new Date(), newUploadId: randomUUID };
}

/** POST /uploads as the use case does it, then the bytes PUT to the answered URL with the answered headers. */
async function uploaded(declaredType: string, bytes: Buffer, declaredSize = bytes.length) {
  const { answer } = await createUpload(
    { accountId: ACCOUNT, keyHash: 'k', keyHasQuota: false },
    { content_type: declaredType, size: declaredSize },
    deps(),
  );
  const put = await fetch(answer.upload_url, {
    method: answer.upload_method,
    headers: answer.upload_headers,
    body: bytes,
  });
  expect(put.status).toBe(200);
  return answer;
}

const checks = () => {
  const { uploads, storage } = deps();
  return new UploadChecks({ uploads, storage, now: () => new Date() });
};
const reference = (kind: ReferenceKind, url: string) => ({ field: `${kind}_urls[0]`, kind, url });

describe('the submit’s check of stored uploads', () => {
  it.each([
    ['jpeg', 'image/jpeg', 'image', 'image/jpeg'],
    ['png', 'image/png', 'image', 'image/png'],
    ['webp', 'image/webp', 'image', 'image/webp'],
    ['mp4', 'video/mp4', 'video', 'video/mp4'],
    ['hevcMov', 'video/quicktime', 'video', 'video/quicktime'],
    ['mp3', 'audio/mpeg', 'audio', 'audio/mpeg'],
    ['wav', 'audio/wav', 'audio', 'audio/wav'],
    // Declared as JPEG, stored bytes of a PNG: handled as a PNG.
    ['png', 'image/jpeg', 'image', 'image/png'],
  ] as const)('a real %s declared %s is usable as %s, read as %s', async (media, declared, kind, real) => {
    const answer = await uploaded(declared, await testMedia(media));
    const { type, upload } = await checks().check(reference(kind, answer.file_url), ACCOUNT);
    expect(type).toBe(real);
    expect(upload.declared_type).toBe(declared);
  });

  it('refuses an object larger than declared (the emulator enforces no signed Content-Length; we do)', async () => {
    const bytes = await testMedia('jpeg');
    const answer = await uploaded('image/jpeg', bytes);
    // What S3 would refuse (a PUT longer than the signed length), stored anyway: our check must catch it.
    const larger = Buffer.concat([bytes, Buffer.alloc(10)]);
    await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: `uploads/${ACCOUNT}/${answer.upload_id}`, Body: larger }),
    );
    const error = await checks()
      .check(reference('image', answer.file_url), ACCOUNT)
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toContain(`holds ${larger.length} bytes, more than the ${bytes.length} declared`);
  });

  it('refuses garbage declared as an image, and nothing uploaded at all', async () => {
    const garbage = Buffer.from(Array.from({ length: 5000 }, (_, index) => (index * 31 + 7) % 256));
    const answer = await uploaded('image/png', garbage);
    const error = await checks()
      .check(reference('image', answer.file_url), ACCOUNT)
      .catch((e: Error) => e);
    expect((error as Error).message).toContain('is not a supported file (its content is of no known format');

    const { answer: empty } = await createUpload(
      { accountId: ACCOUNT, keyHash: 'k', keyHasQuota: false },
      { content_type: 'image/png', size: 10 },
      deps(),
    );
    const missing = await checks()
      .check(reference('image', empty.file_url), ACCOUNT)
      .catch((e: Error) => e);
    expect((missing as Error).message).toContain('has no file yet');
  });

  it('refuses a video in image_urls, and another account’s upload with 403', async () => {
    const answer = await uploaded('video/mp4', await testMedia('mp4'));
    const wrongKind = await checks()
      .check(reference('image', answer.file_url), ACCOUNT)
      .catch((e: Error) => e);
    expect((wrongKind as Error).message).toContain('is a video (video/mp4), not an image');
    const foreign = await checks()
      .check(reference('video', answer.file_url), 'someone-else')
      .catch((e: Error) => e);
    expect(foreign).toBeInstanceOf(ForbiddenError);
  });
});

describe('Idempotency-Key on uploads, in the upload’s own transaction', () => {
  it('one record, one upload, however many requests with the key arrive at once', async () => {
    const caller = { accountId: `acct-${randomUUID().slice(0, 8)}`, keyHash: 'k', keyHasQuota: false };
    const body = { content_type: 'image/png', size: 77 };
    const results = await Promise.all(Array.from({ length: 5 }, () => createUpload(caller, body, deps(), 'same-key')));
    const ids = new Set(results.map((result) => result.answer.upload_id));
    expect(ids.size).toBe(1);
    expect(results.filter((result) => !result.replayed)).toHaveLength(1);
    const [id] = [...ids];
    const stored = await local.db.send(
      new GetCommand({ TableName: local.names.tables.uploads, Key: { upload_id: id } }),
    );
    expect(stored.Item?.['account_id']).toBe(caller.accountId);
  });
});

describe('H.265 transcoded to H.264 by the shipped ffmpeg', () => {
  it('makes <key>.h264.mp4 beside an H.265 MOV, once; an H.264 MP4 is used as it is', async () => {
    const videos = new S3H264Copies(new S3UploadFiles(signer, 30_000), new FfmpegTranscoder(FFMPEG_BINARY, 120_000));
    const hevc = await uploaded('video/quicktime', await testMedia('hevcMov'));
    const key = `uploads/${ACCOUNT}/${hevc.upload_id}`;
    expect(await videos.h264Key(key)).toBe(`${key}.h264.mp4`);
    const made = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${key}.h264.mp4` }));
    expect(made.ContentType).toBe('video/mp4');
    expect(mp4VideoCodec(await made.Body!.transformToByteArray())).toBe('h264');
    // A second run finds the copy (no second transcode: the copy's time stays).
    const first = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${key}.h264.mp4` }));
    expect(await videos.h264Key(key)).toBe(`${key}.h264.mp4`);
    const second = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${key}.h264.mp4` }));
    expect(second.LastModified).toEqual(first.LastModified);

    const h264 = await uploaded('video/mp4', await testMedia('mp4'));
    const h264Key = `uploads/${ACCOUNT}/${h264.upload_id}`;
    expect(await videos.h264Key(h264Key)).toBe(h264Key);
  });

  it('a file ffmpeg cannot decode fails with ffmpeg’s reason, and leaves no copy', async () => {
    const videos = new S3H264Copies(new S3UploadFiles(signer, 30_000), new FfmpegTranscoder(FFMPEG_BINARY, 120_000));
    // The H.265 MOV with its media data emptied: its boxes still say H.265, its samples point at nothing.
    const broken = withoutMediaData(await testMedia('hevcMov'));
    expect(mp4VideoCodec(broken)).toBe('hevc');
    const answer = await uploaded('video/quicktime', broken);
    const key = `uploads/${ACCOUNT}/${answer.upload_id}`;
    await expect(videos.h264Key(key)).rejects.toThrow(/ffmpeg could not transcode the video: .*Invalid/s);
    await expect(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${key}.h264.mp4` }))).rejects.toThrow();
  });
});

/** The file's top-level boxes with `mdat` reduced to an empty box. */
function withoutMediaData(file: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at + 8 <= file.length;) {
    const size = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    parts.push(type === 'mdat' ? Buffer.from([0, 0, 0, 8, 0x6d, 0x64, 0x61, 0x74]) : file.subarray(at, at + size));
    at += size;
  }
  return Buffer.concat(parts);
}

describe('a copy with the real type', () => {
  it('a PNG declared as JPEG: read as a PNG and copied beside it, stored as image/png, byte for byte', async () => {
    const copies = new S3UploadCopies(new S3UploadFiles(signer, 30_000), new S3UploadStorage(signer), {
      h264Key: () => Promise.reject(new Error('no video here')),
    });
    const png = await testMedia('png');
    const answer = await uploaded('image/jpeg', png);
    const key = `uploads/${ACCOUNT}/${answer.upload_id}`;
    expect(await copies.sniffedType(key)).toBe('image/png');
    expect(await copies.typedKey(key, 'image/png')).toBe(`${key}.png`);
    const copy = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${key}.png` }));
    expect(copy.ContentType).toBe('image/png');
    expect(Buffer.from(await copy.Body!.transformToByteArray()).equals(png)).toBe(true);
  });
});

describe('the task’s prepared references', () => {
  it('are written while the task is pending without a job, and never after', async () => {
    const inputs = new DynamoDbTaskInputs(local.db, local.names.tables.tasks);
    const pending = taskRecord({ task_id: randomUUID() });
    const ended = taskRecord({ task_id: randomUUID(), status: 'refunded' });
    for (const task of [pending, ended]) {
      await local.db.send(new PutCommand({ TableName: local.names.tables.tasks, Item: task }));
    }
    const references = {
      imageUrls: ['https://signed.example/a'],
      videoUrls: [],
      audioUrls: ['https://signed.example/b'],
    };
    expect(await inputs.record(pending.task_id, references)).toBe(true);
    expect(await inputs.record(ended.task_id, references)).toBe(false);
    const read = async (taskId: string) =>
      (await local.db.send(new GetCommand({ TableName: local.names.tables.tasks, Key: { task_id: taskId } }))).Item;
    expect((await read(pending.task_id))?.['generation']).toMatchObject(references);
    expect((await read(ended.task_id))?.['generation']).toMatchObject({ imageUrls: ended.generation.imageUrls });
  });
});

describe('the local 48-h sweep (the lifecycle rule’s stand-in)', () => {
  it('deletes upload objects and records once 48 h old, and nothing younger or outside uploads/', async () => {
    const fresh = await uploaded('image/png', await testMedia('png'));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'videos/keep.mp4', Body: 'x' }));
    const target = { s3, bucket: BUCKET, db: local.db, uploadsTable: local.names.tables.uploads };
    const exists = (key: string) =>
      s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })).then(
        () => true,
        () => false,
      );
    await sweepUploads(target, new Date());
    expect(await exists(`uploads/${ACCOUNT}/${fresh.upload_id}`)).toBe(true);

    const later = new Date(Date.now() + 48 * 3600_000 + 1000);
    const swept = await sweepUploads(target, later);
    expect(swept.objects).toBeGreaterThan(0);
    expect(swept.records).toBeGreaterThan(0);
    expect(await exists(`uploads/${ACCOUNT}/${fresh.upload_id}`)).toBe(false);
    expect(await exists('videos/keep.mp4')).toBe(true);
    const record = await local.db.send(
      new GetCommand({ TableName: local.names.tables.uploads, Key: { upload_id: fresh.upload_id } }),
    );
    expect(record.Item).toBeUndefined();
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'videos/keep.mp4' }));
  });
});
