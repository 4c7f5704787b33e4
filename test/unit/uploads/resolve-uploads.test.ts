/**
 * UploadChecks (the submit's check of its file_urls): unknown and expired uploads 400, another account's 403,
 * and what storage holds decides: missing, larger than declared, no accepted type, or the wrong kind for the
 * field, each a 400 naming the field. The declared type is never trusted.
 */
import { describe, expect, it } from 'vitest';
import { ForbiddenError, InvalidRequestError } from '../../../functions/core/api-error.js';
import type { UploadReference } from '../../../functions/core/ports/uploads.js';
import { fileUrlOf, uploadObjectKey } from '../../../functions/core/uploads.js';
import type { UploadContentType, UploadRecord } from '../../../functions/core/uploads.js';
import { UploadChecks } from '../../../functions/core/use-cases/resolve-uploads.js';
import { CALLER, OTHER_ACCOUNT } from '../fakes.js';
import { rejection } from '../support.js';
import { FakeUploadStorage, InMemoryUploads } from './upload-fakes.js';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const OTHER_ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

function upload(fields: Partial<UploadRecord> = {}): UploadRecord {
  const accountId = fields.account_id ?? CALLER.accountId;
  const uploadId = fields.upload_id ?? ID;
  return {
    upload_id: uploadId,
    account_id: accountId,
    object_key: uploadObjectKey(accountId, uploadId),
    declared_type: 'image/jpeg',
    declared_size: 1000,
    created_at: '2026-11-21T09:00:00.000Z',
    expires_at: '2026-11-23T09:00:00.000Z',
    ttl: 0,
    ...fields,
  };
}

function setup(record: UploadRecord = upload(), stored?: { size: number; sniffedType: string | undefined }) {
  const uploads = new InMemoryUploads();
  uploads.uploads.set(record.upload_id, record);
  const storage = new FakeUploadStorage();
  if (stored) storage.objects.set(record.object_key, stored);
  return new UploadChecks({ uploads, storage, now: () => NOW });
}

const image = (url = fileUrlOf(ID)): UploadReference => ({ field: 'image_urls[0]', kind: 'image', url });

describe('UploadChecks', () => {
  it('passes an upload of the caller whose stored bytes are an accepted type of the field’s kind', async () => {
    const checks = setup(upload(), { size: 1000, sniffedType: 'image/jpeg' });
    await expect(checks.assertUsable([image()], CALLER.accountId)).resolves.toBeUndefined();
  });

  it('a PNG declared as JPEG is handled as its real type, a PNG (still an image)', async () => {
    const checks = setup(upload({ declared_type: 'image/jpeg' }), { size: 900, sniffedType: 'image/png' });
    const { type } = await checks.check(image(), CALLER.accountId);
    expect(type).toBe('image/png');
  });

  it.each([
    ['video', 'video/mp4', 'video_urls[0]'],
    ['video', 'video/quicktime', 'video_urls[0]'],
    ['audio', 'audio/mpeg', 'audio_urls[0]'],
    ['audio', 'audio/wav', 'audio_urls[0]'],
  ] as const)('a %s (%s) in its own field passes', async (kind, type, field) => {
    const checks = setup(upload({ declared_type: type as UploadContentType }), { size: 10, sniffedType: type });
    await expect(checks.assertUsable([{ field, kind, url: fileUrlOf(ID) }], CALLER.accountId)).resolves.toBeUndefined();
  });

  it('an unknown upload → 400', async () => {
    const error = await rejection(setup().assertUsable([image(fileUrlOf(OTHER_ID))], CALLER.accountId));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toBe(`image_urls[0]: unknown upload ${OTHER_ID}`);
  });

  it('a malformed file_url (our scheme, no upload id) → 400', async () => {
    const error = await rejection(setup().assertUsable([image('upload://not-an-id')], CALLER.accountId));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toContain('is not a file_url from POST /api/v1/uploads');
  });

  it('another account’s upload → 403, before anything about its content', async () => {
    const checks = setup(upload({ account_id: OTHER_ACCOUNT }));
    const error = await rejection(checks.assertUsable([image()], CALLER.accountId));
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error.message).toBe(`image_urls[0]: upload ${ID} belongs to another account`);
  });

  it('an expired upload (48 h after creation) → 400, even while storage still holds it', async () => {
    const checks = setup(upload({ expires_at: NOW.toISOString() }), { size: 10, sniffedType: 'image/png' });
    const error = await rejection(checks.assertUsable([image()], CALLER.accountId));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toContain(`upload ${ID} expired at ${NOW.toISOString()} (uploads are kept 48 hours)`);
  });

  it('nothing stored yet → 400 telling to PUT the bytes first', async () => {
    const error = await rejection(setup().assertUsable([image()], CALLER.accountId));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toContain('has no file yet: PUT the bytes to its upload_url first');
  });

  it('an object larger than declared → 400 (whatever the storage policy let through)', async () => {
    const checks = setup(upload({ declared_size: 1000 }), { size: 1001, sniffedType: 'image/jpeg' });
    const error = await rejection(checks.assertUsable([image()], CALLER.accountId));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toBe(`image_urls[0]: upload ${ID} holds 1001 bytes, more than the 1000 declared`);
  });

  it.each([
    [undefined, 'of no known format'],
    ['image/heif', 'image/heif'],
    ['video/vnd.avi', 'video/vnd.avi'],
  ])('bytes of no accepted type (%s) → 400 naming what they are', async (sniffed, named) => {
    const checks = setup(upload(), { size: 10, sniffedType: sniffed });
    const error = await rejection(checks.assertUsable([image()], CALLER.accountId));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toContain(`is not a supported file (its content is ${named}`);
  });

  it('a real type of another kind than the field → 400 (a video declared as JPEG in image_urls)', async () => {
    const checks = setup(upload({ declared_type: 'image/jpeg' }), { size: 10, sniffedType: 'video/mp4' });
    const error = await rejection(checks.assertUsable([image()], CALLER.accountId));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toBe(`image_urls[0]: upload ${ID} is a video (video/mp4), not an image`);
  });

  it('an M4V-branded MP4 counts as video/mp4', async () => {
    const checks = setup(upload({ declared_type: 'video/mp4' }), { size: 10, sniffedType: 'video/x-m4v' });
    const { type } = await checks.check(
      { field: 'video_urls[0]', kind: 'video', url: fileUrlOf(ID) },
      CALLER.accountId,
    );
    expect(type).toBe('video/mp4');
  });

  it('reports the first failing reference in the request’s order', async () => {
    const checks = setup(upload(), { size: 10, sniffedType: 'image/png' });
    const error = await rejection(
      checks.assertUsable(
        [image(), { field: 'image_urls[1]', kind: 'image', url: fileUrlOf(OTHER_ID) }],
        CALLER.accountId,
      ),
    );
    expect(error.message).toBe(`image_urls[1]: unknown upload ${OTHER_ID}`);
  });
});
