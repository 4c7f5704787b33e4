/**
 * A submit that names uploads: file_urls parse as references, go to the upload check (never to the address
 * check), a refusal there charges nothing, and the task keeps the file_urls for PrepareInputs.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ForbiddenError, InvalidRequestError } from '../../../functions/core/api-error.js';
import { parseGenerationBody } from '../../../functions/core/generation-request.js';
import type { UploadReference } from '../../../functions/core/ports/uploads.js';
import { submitTask } from '../../../functions/core/use-cases/submit-task.js';
import type { SubmitTaskDeps } from '../../../functions/core/use-cases/submit-task.js';
import { catalogVideoModel } from '../../../functions/providers/registry.js';
import { apiKeyRecord, CALLER, InMemoryCatalog, InMemoryKeys, InMemoryTasks, NOW } from '../fakes.js';
import { catalogRecords, PRO, rejection, V2 } from '../support.js';

const UPLOAD = 'upload://0f8fad5b-d9cb-469f-a165-70867728950e';
const NEW_ID = '99999999-9999-4999-8999-999999999999';

describe('a submit naming uploads', () => {
  let tasks: InMemoryTasks;
  let checked: { references: readonly UploadReference[]; accountId: string }[];
  let addressChecked: string[];
  let refusal: Error | undefined;
  let deps: SubmitTaskDeps;

  beforeEach(() => {
    tasks = new InMemoryTasks();
    checked = [];
    addressChecked = [];
    refusal = undefined;
    deps = {
      keys: new InMemoryKeys([apiKeyRecord()]),
      models: new InMemoryCatalog(catalogRecords().map((record) => catalogVideoModel(record))),
      tasks,
      urls: { assertPublic: async (urls) => void addressChecked.push(...urls.map(({ url }) => url)) },
      uploads: {
        assertUsable: async (references, accountId) => {
          checked.push({ references, accountId });
          if (refusal) throw refusal;
        },
      },
      idempotency: tasks.idempotency,
      now: () => NOW,
      newTaskId: () => NEW_ID,
    };
  });

  it('checks each file_url as the upload of its field’s kind, not as an address; the task keeps them', async () => {
    const body = {
      model: V2,
      prompt: 'p',
      duration: 5,
      image_mode: 'reference',
      image_urls: ['https://cdn.example.com/a.png', UPLOAD],
      video_urls: [UPLOAD],
      audio_urls: [UPLOAD],
    };
    await submitTask(CALLER, body, deps);
    expect(addressChecked).toEqual(['https://cdn.example.com/a.png']);
    expect(checked).toEqual([
      {
        accountId: CALLER.accountId,
        references: [
          { field: 'image_urls[1]', kind: 'image', url: UPLOAD },
          { field: 'video_urls[0]', kind: 'video', url: UPLOAD },
          { field: 'audio_urls[0]', kind: 'audio', url: UPLOAD },
        ],
      },
    ]);
    expect((await tasks.get(NEW_ID))?.generation.imageUrls).toEqual(['https://cdn.example.com/a.png', UPLOAD]);
  });

  it.each([
    ['a 400', new InvalidRequestError('image_urls[0]: unknown upload x')],
    ['a 403', new ForbiddenError('image_urls[0]: upload x belongs to another account')],
  ])('the check’s refusal (%s) is the answer, and nothing is charged', async (_name, error) => {
    refusal = error;
    const thrown = await rejection(
      submitTask(CALLER, { model: PRO, prompt: 'p', duration: 5, image_urls: [UPLOAD] }, deps),
    );
    expect(thrown).toBe(error);
    expect(tasks.charges).toEqual([]);
  });

  it('without an upload checker a file_url is refused, never passed on unchecked', async () => {
    const { uploads: _uploads, ...withoutChecker } = deps;
    await expect(
      submitTask(CALLER, { model: PRO, prompt: 'p', duration: 5, image_urls: [UPLOAD] }, withoutChecker),
    ).rejects.toThrow(/no upload checker/);
    expect(tasks.charges).toEqual([]);
  });

  it('a file_url must be ours and well-formed: another scheme or a bad id is a 400 at parse', () => {
    expect(parseGenerationBody({ model: PRO, prompt: 'p', image_urls: [UPLOAD] }).imageUrls).toEqual([UPLOAD]);
    for (const url of [
      'upload://not-an-id',
      'ftp://example.com/a.png',
      'upload:/0f8fad5b-d9cb-469f-a165-70867728950e',
    ]) {
      expect(() => parseGenerationBody({ model: PRO, prompt: 'p', image_urls: [url] })).toThrow(
        'image_urls[0]: must be an absolute http or https URL, or a file_url from POST /api/v1/uploads',
      );
    }
  });
});
