/** createUpload: the declared type and size, the record, the presigned PUT, the file_url, Idempotency-Key. */
import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../functions/core/api-error.js';
import { createUpload } from '../../../functions/core/use-cases/create-upload.js';
import { MAX_UPLOAD_BYTES, UPLOAD_CONTENT_TYPES, uploadIdOf } from '../../../functions/core/uploads.js';
import { CALLER, InMemoryIdempotency } from '../fakes.js';
import { rejection } from '../support.js';
import { FakeUploadStorage, InMemoryUploads } from './upload-fakes.js';

const NOW = new Date('2026-11-21T10:00:00.000Z');

function setup() {
  const idempotency = new InMemoryIdempotency();
  const uploads = new InMemoryUploads(idempotency);
  let next = 0;
  const deps = {
    uploads,
    storage: new FakeUploadStorage(),
    idempotency,
    now: () => NOW,
    newUploadId: () => `0f8fad5b-d9cb-469f-a165-7086772895${String(next++).padStart(2, '0')}`,
  };
  return { deps, uploads, idempotency };
}

describe('createUpload', () => {
  it('records the upload under uploads/<account>/ for 48 h and answers a 15-minute PUT of that type and size', async () => {
    const { deps, uploads } = setup();
    const { answer, replayed } = await createUpload(CALLER, { content_type: 'image/png', size: 1234 }, deps);
    expect(replayed).toBe(false);
    expect(answer).toEqual({
      upload_id: '0f8fad5b-d9cb-469f-a165-708677289500',
      upload_url: expect.stringContaining('type=image%2Fpng&size=1234&ttl=900'),
      upload_method: 'PUT',
      upload_headers: { 'Content-Type': 'image/png', 'Content-Length': '1234' },
      file_url: 'upload://0f8fad5b-d9cb-469f-a165-708677289500',
      expires_at: '2026-11-23T10:00:00.000Z',
    });
    expect(uploadIdOf(answer.file_url)).toBe(answer.upload_id);
    expect(uploads.uploads.get(answer.upload_id)).toEqual({
      upload_id: answer.upload_id,
      account_id: CALLER.accountId,
      object_key: `uploads/${CALLER.accountId}/${answer.upload_id}`,
      declared_type: 'image/png',
      declared_size: 1234,
      created_at: NOW.toISOString(),
      expires_at: '2026-11-23T10:00:00.000Z',
      ttl: Date.parse('2026-11-23T10:00:00.000Z') / 1000,
    });
    expect(answer.upload_url).toContain(`uploads/${CALLER.accountId}/${answer.upload_id}`);
  });

  it.each(UPLOAD_CONTENT_TYPES)('accepts %s', async (type) => {
    const { answer } = await createUpload(CALLER, { content_type: type, size: 1 }, setup().deps);
    expect(answer.upload_headers['Content-Type']).toBe(type);
  });

  it('accepts exactly 50 MB (52,428,800 bytes)', async () => {
    const { answer } = await createUpload(CALLER, { content_type: 'video/mp4', size: MAX_UPLOAD_BYTES }, setup().deps);
    expect(answer.upload_headers['Content-Length']).toBe('52428800');
  });

  it.each([
    [{ content_type: 'video/mp4', size: 51 * 1024 * 1024 }, 'size must be at most 52428800 bytes (50 MB)'],
    [{ content_type: 'video/mp4', size: MAX_UPLOAD_BYTES + 1 }, 'size must be at most 52428800 bytes (50 MB)'],
    [{ content_type: 'image/gif', size: 10 }, 'content_type must be one of image/jpeg, image/png, image/webp'],
    [{ content_type: 'image/png; charset=binary', size: 10 }, 'content_type must be one of'],
    [{ size: 10 }, 'content_type is required'],
    [{ content_type: 'image/png', size: null }, 'size must be a number of bytes, not null'],
    [
      { content_type: null, size: 10 },
      'content_type must be one of image/jpeg, image/png, image/webp, video/mp4, video/quicktime, audio/mpeg, audio/wav, not null',
    ],
    [{ content_type: 'image/png', size: '10' }, 'size must be a number of bytes'],
    [{ content_type: 'image/png', size: 0 }, 'size must be at least 1 byte'],
    [{ content_type: 'image/png', size: 1.5 }, 'size must be a whole number of bytes'],
    [{ content_type: 'image/png', size: 10, name: 'fox.png' }, 'unknown field: name'],
    [[], 'request body must be a JSON object'],
    [null, 'request body must be a JSON object'],
  ])('refuses %j with a 400 naming the problem, recording nothing', async (body, message) => {
    const { deps, uploads } = setup();
    const error = await rejection(createUpload(CALLER, body, deps));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toContain(message);
    expect(uploads.uploads.size).toBe(0);
  });

  it('an authentication failure wins over a bad body', async () => {
    const denied = Promise.reject(new Error('denied'));
    const error = await rejection(createUpload(denied, { size: -1 }, setup().deps));
    expect(error.message).toBe('denied');
  });

  describe('with an Idempotency-Key', () => {
    it('the same key and body answer the first upload again, marked replayed; one upload is recorded', async () => {
      const { deps, uploads } = setup();
      const body = { content_type: 'audio/wav', size: 99 };
      const first = await createUpload(CALLER, body, deps, 'upload-1');
      const again = await createUpload(CALLER, { size: 99, content_type: 'audio/wav' }, deps, 'upload-1');
      expect(again).toEqual({ answer: first.answer, replayed: true });
      expect(uploads.uploads.size).toBe(1);
    });

    it('the same key with another body is a 400; another key makes another upload', async () => {
      const { deps, uploads } = setup();
      await createUpload(CALLER, { content_type: 'audio/wav', size: 99 }, deps, 'upload-1');
      const error = await rejection(createUpload(CALLER, { content_type: 'audio/wav', size: 98 }, deps, 'upload-1'));
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error.message).toContain('different request body');
      const other = await createUpload(CALLER, { content_type: 'audio/wav', size: 99 }, deps, 'upload-2');
      expect(other.replayed).toBe(false);
      expect(uploads.uploads.size).toBe(2);
    });

    it('a malformed key is a 400', async () => {
      const error = await rejection(createUpload(CALLER, { content_type: 'audio/wav', size: 9 }, setup().deps, ''));
      expect(error).toBeInstanceOf(InvalidRequestError);
    });
  });
});
