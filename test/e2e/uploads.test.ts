/**
 * Uploads over real HTTP against the local stack (docs/api-contract.md, "Uploads"): POST /uploads, the bytes PUT to the
 * answered URL, a submit naming the file_url, the task through to success with the upstream handed a URL that
 * serves the file (an H.265 MOV's H.264 copy, probed); and the refusals: 51 MB declared, an expired upload,
 * another account's, a PNG declared as JPEG taken as a PNG, a video in image_urls.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { mp4VideoCodec } from '../../functions/core/mp4-codec.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { testMedia } from '../support/test-media.js';
import { callApi, newAccount, pollUntil } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';

interface UploadData {
  upload_id: string;
  upload_url: string;
  upload_method: 'PUT';
  upload_headers: Record<string, string>;
  file_url: string;
  expires_at: string;
}

const stack = sharedStack();

async function createUpload(key: string, contentType: string, size: number) {
  return callApi<UploadData>(stack, 'POST', '/api/v1/uploads', { key, body: { content_type: contentType, size } });
}

/** POST /uploads, then PUT the bytes as the answer says, as curl would. */
async function upload(key: string, contentType: string, bytes: Buffer): Promise<UploadData> {
  const created = await createUpload(key, contentType, bytes.length);
  expect(created.status).toBe(200);
  const { upload_url: url, upload_method: method, upload_headers: headers } = created.body.data;
  const put = await fetch(url, { method, headers, body: bytes });
  expect(put.status).toBe(200);
  return created.body.data;
}

async function submit(key: string, body: Record<string, unknown>) {
  return callApi<{ task_id: string; status: string }>(stack, 'POST', '/api/v1/video/generate', { key, body });
}

async function storedTask(taskId: string): Promise<TaskRecord> {
  const { Item } = await stack.db.send(
    new GetCommand({ TableName: stack.names.tables.tasks, Key: { task_id: taskId }, ConsistentRead: true }),
  );
  return Item as TaskRecord;
}

async function finished(key: string, taskId: string) {
  const answer = await pollUntil(
    () =>
      callApi<{ status: string; error_message: string | null }>(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key }),
    (response) => ['success', 'failed', 'refunded'].includes(response.body.data.status),
    { timeoutMs: 120_000, intervalMs: 100 },
  );
  return answer.body.data;
}

/** The bytes behind the URL the upstream was handed. */
async function fetched(url: string): Promise<Buffer> {
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

describe('POST /api/v1/uploads', () => {
  it('answers a presigned PUT limited to the declared type and size, a file_url and the 48-h expiry', async () => {
    const { key } = await newAccount(stack, '10');
    const before = Date.now();
    const { status, body } = await createUpload(key, 'image/png', 1234);
    expect(status).toBe(200);
    expect(body.data).toEqual({
      upload_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      upload_url: expect.stringContaining('X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost'),
      upload_method: 'PUT',
      upload_headers: { 'Content-Type': 'image/png', 'Content-Length': '1234' },
      file_url: `upload://${body.data.upload_id}`,
      expires_at: expect.any(String),
    });
    const expiresIn = Date.parse(body.data.expires_at) - before;
    expect(expiresIn).toBeGreaterThan(48 * 3600_000 - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(48 * 3600_000 + 60_000);
    expect(new URL(body.data.upload_url).searchParams.get('X-Amz-Expires')).toBe('900');
  });

  it('refuses 51 MB declared, and an unsupported content type, with 400', async () => {
    const { key } = await newAccount(stack, '10');
    const large = await createUpload(key, 'video/mp4', 51 * 1024 * 1024);
    expect(large.status).toBe(400);
    expect(large.body).toEqual({ code: 400, message: 'size must be at most 52428800 bytes (50 MB)', data: null });
    const gif = await createUpload(key, 'image/gif', 100);
    expect(gif.status).toBe(400);
    expect(gif.body.message).toContain('content_type must be one of image/jpeg, image/png, image/webp, video/mp4');
  });

  it('without a key: 401', async () => {
    const answer = await callApi(stack, 'POST', '/api/v1/uploads', { body: { content_type: 'image/png', size: 1 } });
    expect(answer.status).toBe(401);
  });

  it('the same Idempotency-Key and body answer the first upload again', async () => {
    const { key } = await newAccount(stack, '10');
    const headers = { 'Idempotency-Key': 'upload-e2e-1' };
    const body = { content_type: 'audio/wav', size: 4410 };
    const first = await callApi<UploadData>(stack, 'POST', '/api/v1/uploads', { key, body, headers });
    const again = await callApi<UploadData>(stack, 'POST', '/api/v1/uploads', { key, body, headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
  });
});

describe('a submit naming uploads', () => {
  it.each([
    ['jpeg', 'image/jpeg'],
    ['png', 'image/png'],
  ] as const)(
    'a real %s in image_urls: accepted, and the upstream is handed a URL serving its bytes',
    async (media, type) => {
      const { key } = await newAccount(stack, '50');
      const bytes = await testMedia(media);
      const uploaded = await upload(key, type, bytes);
      const answer = await submit(key, {
        model: 'seedance-1.5-pro',
        prompt: 'the picture comes alive',
        duration: 5,
        image_urls: [uploaded.file_url],
      });
      expect(answer.status).toBe(200);
      expect(answer.body.data.status).toBe('pending');
      expect((await finished(key, answer.body.data.task_id)).status).toBe('success');
      const task = await storedTask(answer.body.data.task_id);
      expect((await fetched(task.generation.imageUrls[0] as string)).equals(bytes)).toBe(true);
    },
  );

  it('a real MP4 in video_urls: accepted, handed upstream as it is (already H.264)', async () => {
    const { key } = await newAccount(stack, '50');
    const bytes = await testMedia('mp4');
    const uploaded = await upload(key, 'video/mp4', bytes);
    const answer = await submit(key, {
      model: 'seedance-2.0',
      prompt: 'continue this clip',
      duration: 5,
      video_urls: [uploaded.file_url],
    });
    expect(answer.status).toBe(200);
    expect((await finished(key, answer.body.data.task_id)).status).toBe('success');
    const task = await storedTask(answer.body.data.task_id);
    expect((await fetched(task.generation.videoUrls[0] as string)).equals(bytes)).toBe(true);
  });

  it('an H.265 MOV is transcoded: the upstream gets an H.264 MP4 stored beside the upload', async () => {
    const { key } = await newAccount(stack, '50');
    const mov = await testMedia('hevcMov');
    expect(mp4VideoCodec(mov)).toBe('hevc');
    const uploaded = await upload(key, 'video/quicktime', mov);
    const answer = await submit(key, {
      model: 'seedance-2.0',
      prompt: 'continue this clip',
      duration: 5,
      video_urls: [uploaded.file_url],
    });
    expect(answer.status).toBe(200);
    expect((await finished(key, answer.body.data.task_id)).status).toBe('success');
    const task = await storedTask(answer.body.data.task_id);
    const url = task.generation.videoUrls[0] as string;
    expect(new URL(url).pathname).toMatch(new RegExp(`/uploads/[^/]+/${uploaded.upload_id}\\.h264\\.mp4$`));
    const copy = await fetched(url);
    expect(mp4VideoCodec(copy)).toBe('h264');
  });

  it('an H.265 video ffmpeg cannot decode fails the task with the reason, refunded', async () => {
    const { key } = await newAccount(stack, '50');
    // Its boxes say H.265 (so it passes the submit's check and is transcoded), its media data is gone.
    const broken = withoutMediaData(await testMedia('hevcMov'));
    expect(mp4VideoCodec(broken)).toBe('hevc');
    const uploaded = await upload(key, 'video/quicktime', broken);
    const answer = await submit(key, {
      model: 'seedance-2.0',
      prompt: 'p',
      duration: 5,
      video_urls: [uploaded.file_url],
    });
    expect(answer.status).toBe(200);
    const task = await finished(key, answer.body.data.task_id);
    expect(task.status).toBe('failed');
    expect(task.error_message).toMatch(
      new RegExp(
        `^a reference file could not be prepared: video_urls\\[0\\]: upload ${uploaded.upload_id}: ffmpeg could not transcode the video`,
      ),
    );
    const { body } = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
    expect(body.data.balance).toBe(50);
  });

  it('a PNG declared as JPEG is taken as the PNG it is: the upstream gets it as image/png', async () => {
    const { key } = await newAccount(stack, '50');
    const png = await testMedia('png');
    const uploaded = await upload(key, 'image/jpeg', png);
    const answer = await submit(key, {
      model: 'seedance-1.5-pro',
      prompt: 'p',
      duration: 5,
      image_urls: [uploaded.file_url],
    });
    expect(answer.status).toBe(200);
    expect((await finished(key, answer.body.data.task_id)).status).toBe('success');
    const url = (await storedTask(answer.body.data.task_id)).generation.imageUrls[0] as string;
    const response = await fetch(url);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer()).equals(png)).toBe(true);
  });

  it('refuses with 400 and charges nothing: an expired upload, an unknown one, one never uploaded, a video as an image', async () => {
    const { key } = await newAccount(stack, '50');
    const balance = async () =>
      (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key })).body.data.balance;
    const start = await balance();

    const expired = await upload(key, 'image/png', await testMedia('png'));
    await stack.db.send(
      new UpdateCommand({
        TableName: stack.names.tables.uploads,
        Key: { upload_id: expired.upload_id },
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    const base = { model: 'seedance-1.5-pro', prompt: 'p', duration: 5 };
    const late = await submit(key, { ...base, image_urls: [expired.file_url] });
    expect(late.status).toBe(400);
    expect(late.body.message).toContain(`image_urls[0]: upload ${expired.upload_id} expired at`);

    const unknown = await submit(key, { ...base, image_urls: ['upload://7c9e6679-7425-40de-944b-e07fc1f90ae7'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('image_urls[0]: unknown upload 7c9e6679-7425-40de-944b-e07fc1f90ae7');

    const empty = (await createUpload(key, 'image/png', 100)).body.data;
    const never = await submit(key, { ...base, image_urls: [empty.file_url] });
    expect(never.status).toBe(400);
    expect(never.body.message).toContain('has no file yet');

    const video = await upload(key, 'video/mp4', await testMedia('mp4'));
    const asImage = await submit(key, { ...base, image_urls: [video.file_url] });
    expect(asImage.status).toBe(400);
    expect(asImage.body.message).toContain('is a video (video/mp4), not an image');

    expect(await balance()).toBe(start);
  });

  it('another account’s upload: 403, nothing charged', async () => {
    const owner = await newAccount(stack, '50');
    const other = await newAccount(stack, '50');
    const uploaded = await upload(owner.key, 'image/png', await testMedia('png'));
    const answer = await submit(other.key, {
      model: 'seedance-1.5-pro',
      prompt: 'p',
      duration: 5,
      image_urls: [uploaded.file_url],
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({
      code: 403,
      message: `image_urls[0]: upload ${uploaded.upload_id} belongs to another account`,
      data: null,
    });
    const { body } = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key: other.key });
    expect(body.data.balance).toBe(50);
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
