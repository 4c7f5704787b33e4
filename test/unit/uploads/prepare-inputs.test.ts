/**
 * prepareInputs (state PrepareInputs): file_urls become URLs the upstream can fetch until the upload expires,
 * an H.265 video's H.264 copy in its place; other URLs untouched; nothing to do without uploads; a reference
 * that cannot be prepared fails with a reason the customer can read.
 */
import { describe, expect, it } from 'vitest';
import { fileUrlOf, uploadObjectKey } from '../../../functions/core/uploads.js';
import type { UploadRecord } from '../../../functions/core/uploads.js';
import { prepareInputs } from '../../../functions/core/use-cases/prepare-inputs.js';
import { describeFailure, ReferencePreparationError } from '../../../functions/core/workflow-errors.js';
import { ACCOUNT, taskRecord, TASK_ID } from '../../support/task-records.js';
import { InMemoryTasks, OTHER_ACCOUNT } from '../fakes.js';
import { rejection } from '../support.js';
import { FakeSigner, FakeUploadCopies, InMemoryUploads, RecordedInputs } from './upload-fakes.js';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const IMAGE = '0f8fad5b-d9cb-469f-a165-70867728950e';
const VIDEO = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

function upload(uploadId: string, fields: Partial<UploadRecord> = {}): UploadRecord {
  return {
    upload_id: uploadId,
    account_id: ACCOUNT,
    object_key: uploadObjectKey(ACCOUNT, uploadId),
    declared_type: 'image/png',
    declared_size: 100,
    created_at: '2026-11-21T09:00:00.000Z',
    expires_at: '2026-11-23T09:00:00.000Z',
    ttl: 0,
    ...fields,
  };
}

function setup(generation: NonNullable<Parameters<typeof taskRecord>[0]>['generation'], uploads: UploadRecord[] = []) {
  const tasks = new InMemoryTasks();
  tasks.tasks.set(TASK_ID, taskRecord({ generation }));
  const repository = new InMemoryUploads();
  for (const record of uploads) repository.uploads.set(record.upload_id, record);
  const copies = new FakeUploadCopies();
  const inputs = new RecordedInputs();
  const deps = { tasks, uploads: repository, copies, signer: new FakeSigner(), inputs, now: () => NOW };
  return { deps, copies, inputs, tasks };
}

describe('prepareInputs', () => {
  it('signs each upload until its expiry, transcodes an H.265 video, keeps other URLs as they are', async () => {
    const { deps, copies, inputs } = setup(
      {
        imageUrls: ['https://cdn.example.com/fox.png', fileUrlOf(IMAGE)],
        videoUrls: [fileUrlOf(VIDEO)],
        audioUrls: [],
      },
      [upload(IMAGE), upload(VIDEO, { declared_type: 'video/quicktime' })],
    );
    copies.hevc.add(uploadObjectKey(ACCOUNT, VIDEO));
    expect(await prepareInputs(TASK_ID, deps)).toEqual({ prepared: 2 });
    expect(inputs.recorded.get(TASK_ID)).toEqual({
      imageUrls: [
        'https://cdn.example.com/fox.png',
        `https://cdn.example.com/uploads/${ACCOUNT}/${IMAGE}?until=2026-11-23T09:00:00.000Z`,
      ],
      videoUrls: [`https://cdn.example.com/uploads/${ACCOUNT}/${VIDEO}.h264.mp4?until=2026-11-23T09:00:00.000Z`],
      audioUrls: [],
    });
    expect(copies.transcodes).toBe(1);
  });

  it('a PNG declared as JPEG goes as a copy stored as a PNG; a file of its declared type as it is', async () => {
    const { deps, copies, inputs } = setup({ imageUrls: [fileUrlOf(IMAGE), fileUrlOf(VIDEO)] }, [
      upload(IMAGE, { declared_type: 'image/jpeg' }),
      upload(VIDEO, { declared_type: 'image/png' }),
    ]);
    copies.types.set(uploadObjectKey(ACCOUNT, IMAGE), 'image/png');
    copies.types.set(uploadObjectKey(ACCOUNT, VIDEO), 'image/png');
    await prepareInputs(TASK_ID, deps);
    expect(inputs.recorded.get(TASK_ID)?.imageUrls).toEqual([
      `https://cdn.example.com/uploads/${ACCOUNT}/${IMAGE}.png?until=2026-11-23T09:00:00.000Z`,
      `https://cdn.example.com/uploads/${ACCOUNT}/${VIDEO}?until=2026-11-23T09:00:00.000Z`,
    ]);
  });

  it('an H.264 video goes as uploaded', async () => {
    const { deps, inputs } = setup({ imageUrls: [], videoUrls: [fileUrlOf(VIDEO)] }, [upload(VIDEO)]);
    await prepareInputs(TASK_ID, deps);
    expect(inputs.recorded.get(TASK_ID)?.videoUrls).toEqual([
      `https://cdn.example.com/uploads/${ACCOUNT}/${VIDEO}?until=2026-11-23T09:00:00.000Z`,
    ]);
  });

  it('a task without uploads, or already final, is left alone', async () => {
    const plain = setup({});
    expect(await prepareInputs(TASK_ID, plain.deps)).toEqual({ prepared: 0 });
    expect(plain.inputs.recorded.size).toBe(0);
    const ended = setup({ imageUrls: [fileUrlOf(IMAGE)] }, [upload(IMAGE)]);
    ended.tasks.tasks.get(TASK_ID)!.status = 'refunded';
    expect(await prepareInputs(TASK_ID, ended.deps)).toEqual({ prepared: 0 });
    expect(ended.inputs.recorded.size).toBe(0);
  });

  it('an upload expired since the submit fails the task with a readable reason', async () => {
    const { deps, inputs } = setup({ imageUrls: [fileUrlOf(IMAGE)] }, [
      upload(IMAGE, { expires_at: NOW.toISOString() }),
    ]);
    const error = await rejection(prepareInputs(TASK_ID, deps));
    expect(error).toBeInstanceOf(ReferencePreparationError);
    expect(describeFailure({ Error: error.name, Cause: error.message })).toBe(
      `a reference file could not be prepared: image_urls[0]: upload ${IMAGE} expired at ${NOW.toISOString()}`,
    );
    expect(inputs.recorded.size).toBe(0);
  });

  it('a video ffmpeg cannot transcode fails the task, naming the reference', async () => {
    const { deps, copies } = setup({ imageUrls: [], videoUrls: [fileUrlOf(VIDEO)] }, [upload(VIDEO)]);
    copies.broken.add(uploadObjectKey(ACCOUNT, VIDEO));
    const error = await rejection(prepareInputs(TASK_ID, deps));
    expect(error).toBeInstanceOf(ReferencePreparationError);
    expect(error.message).toContain(`video_urls[0]: upload ${VIDEO}: ffmpeg could not transcode the video`);
  });

  it('an upload of another account (a forged task) is not handed to the upstream', async () => {
    const { deps } = setup({ imageUrls: [fileUrlOf(IMAGE)] }, [upload(IMAGE, { account_id: OTHER_ACCOUNT })]);
    const error = await rejection(prepareInputs(TASK_ID, deps));
    expect(error).toBeInstanceOf(ReferencePreparationError);
  });
});
