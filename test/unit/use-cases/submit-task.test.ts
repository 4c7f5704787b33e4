/** submitTask: validate, price, charge and store a pending task; a charge that finds the key changed. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../../../functions/core/api-error.js';
import { DISABLED_API_KEY_MESSAGE } from '../../../functions/core/api-key.js';
import {
  AuthenticationError,
  InsufficientBalanceError,
  InvalidRequestError,
} from '../../../functions/core/api-error.js';
import { submitTask } from '../../../functions/core/use-cases/submit-task.js';
import type { SubmitTaskDeps } from '../../../functions/core/use-cases/submit-task.js';
import { catalogVideoModel } from '../../../functions/providers/registry.js';
import { ACCOUNT } from '../../support/task-records.js';
import { apiKeyRecord, CALLER, InMemoryCatalog, InMemoryKeys, InMemoryTasks, NOW } from '../fakes.js';
import { catalogModel, catalogRecords, LITE, PRO, rejection, V2 } from '../support.js';

describe('submitTask', () => {
  let tasks: InMemoryTasks;
  let catalog: InMemoryCatalog;
  let deps: SubmitTaskDeps;
  const NEW_ID = '99999999-9999-4999-8999-999999999999';

  beforeEach(() => {
    tasks = new InMemoryTasks();
    catalog = new InMemoryCatalog(catalogRecords().map((record) => catalogVideoModel(record)));
    deps = {
      keys: new InMemoryKeys([storedKey()]),
      models: catalog,
      tasks,
      urls: { assertPublic: async () => undefined },
      idempotency: tasks.idempotency,
      now: () => NOW,
      newTaskId: () => NEW_ID,
    };
  });

  const storedKey = apiKeyRecord;

  it('a charge that finds the key given a quota since the caller read it charges again, by the stored key', async () => {
    tasks.storedKeyHasQuota = true;
    const keys = new InMemoryKeys([storedKey({ quota_units: 100_000, quota_remaining_units: 100_000 })]);
    const result = await submitTask(CALLER, { model: PRO, prompt: 'A fox', duration: 5 }, { ...deps, keys });
    expect(result.task_id).toBe(NEW_ID);
    expect(keys.lookups).toEqual([CALLER.keyHash]);
    expect(tasks.charges).toEqual([
      { accountId: ACCOUNT, keyHash: CALLER.keyHash, keyHasQuota: true, costUnits: 42_000 },
    ]);
    expect((await tasks.get(NEW_ID))?.key_quota_charged).toBe(true);
  });

  it('a charge the stored key refuses (disabled since authentication): 401, the key not read again', async () => {
    tasks.chargeError = new AuthenticationError(DISABLED_API_KEY_MESSAGE);
    const keys = new InMemoryKeys([storedKey({ status: 'disabled' })]);
    await expect(
      submitTask(CALLER, { model: PRO, prompt: 'A fox', duration: 5 }, { ...deps, keys }),
    ).rejects.toMatchObject({ code: 401 });
    expect(keys.lookups).toEqual([]);
  });

  it('a charge that finds the key changed, and the re-read finds it disabled: 401, nothing charged', async () => {
    tasks.storedKeyHasQuota = true;
    const keys = new InMemoryKeys([storedKey({ status: 'disabled', quota_units: 1, quota_remaining_units: 1 })]);
    await expect(
      submitTask(CALLER, { model: PRO, prompt: 'A fox', duration: 5 }, { ...deps, keys }),
    ).rejects.toMatchObject({ code: 401, message: DISABLED_API_KEY_MESSAGE });
    expect(tasks.charges).toEqual([]);
    expect(await tasks.get(NEW_ID)).toBeUndefined();
  });

  it('validates, prices, charges and stores a pending task (its stream starts the lifecycle)', async () => {
    const result = await submitTask(CALLER, { model: PRO, prompt: 'A fox', duration: 5 }, deps);
    expect(result).toEqual({
      task_id: NEW_ID,
      status: 'pending',
      cost: 4.2,
      // 0.6 × 5 at 720p (× 1), and the audio extra: generate_audio defaults to true on a model with sound.
      cost_breakdown: { base: 3, resolution: 0, audio: 1.2, surcharges: 0 },
      created_at: NOW.toISOString(),
    });
    expect(tasks.charges).toEqual([
      { accountId: ACCOUNT, keyHash: 'key-hash-1', keyHasQuota: false, costUnits: 42_000 },
    ]);
    expect(await tasks.get(NEW_ID)).toMatchObject({
      status: 'pending',
      form: 'A',
      cost_units: 42_000,
      account_id: ACCOUNT,
      upstream_provider: 'ark',
      upstream_model: 'seedance-1-5-pro',
      deadline_at: new Date(NOW.getTime() + 3600 * 1000).toISOString(),
      generation: {
        modelName: PRO,
        durationSeconds: 5,
        resolution: '720p',
        ratio: '16:9',
        generateAudio: true,
        imageUrls: [],
      },
    });
    expect((await tasks.get(NEW_ID))?.generation).not.toHaveProperty('imageMode');
  });

  it('stores the images mode it resolved, and the upstream contract key of the model', async () => {
    const body = {
      model: V2,
      prompt: 'A fox',
      duration: 5,
      image_urls: ['https://a.example/1.png', 'https://a.example/2.png'],
      image_mode: 'reference',
      video_urls: ['https://a.example/v.mp4'],
    };
    const result = await submitTask(CALLER, body, deps);
    // 1.4 × 5 + 18.5 per reference video = 25.5 yuan
    expect(result.cost).toBe(25.5);
    expect(await tasks.get(NEW_ID)).toMatchObject({
      upstream_model: 'seedance-2-0',
      generation: { imageMode: 'reference', videoUrls: ['https://a.example/v.mp4'], durationSeconds: 5 },
    });
  });

  it('a task that asks for a webhook is stored owing it: in the pending-webhooks index from the start', async () => {
    const body = { model: PRO, prompt: 'A fox', duration: 5, webhook_url: 'https://hooks.example.com/v' };
    await submitTask(CALLER, body, deps);
    expect(await tasks.get(NEW_ID)).toMatchObject({ webhook_pending: '9', webhook_due_at: NOW.toISOString() });
    tasks = new InMemoryTasks();
    await submitTask(CALLER, { model: PRO, prompt: 'A fox', duration: 5 }, { ...deps, tasks });
    expect(await tasks.get(NEW_ID)).not.toHaveProperty('webhook_pending');
  });

  it('modelId is looked up by id, model by name or id', async () => {
    const lite = catalogModel(LITE).record.id;
    const result = await submitTask(
      CALLER,
      { modelId: lite, prompt: 'p', imageUrls: ['https://a.example/x.png'] },
      deps,
    );
    expect(result.cost).toBe(3);
    expect(await tasks.get(NEW_ID)).toMatchObject({
      form: 'B',
      upstream_model: 'seedance-1-0-lite-i2v',
      generation: { modelName: LITE, durationSeconds: 5, imageMode: 'first_frame' },
    });
    await submitTask(CALLER, { model: V2, prompt: 'p' }, deps);
    expect(catalog.calls).toEqual([`findById:${lite}`, `findByNameOrId:${V2}`]);
  });

  it('an unknown model → 400', async () => {
    const error = await rejection(submitTask(CALLER, { model: 'nope', prompt: 'p' }, deps));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toContain('unknown model "nope"');
  });

  it('a misspelt field → 400 naming it, nothing charged (it must not bill the default)', async () => {
    const error = await rejection(submitTask(CALLER, { model: PRO, prompt: 'p', durration: 5 }, deps));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toBe('unknown field: durration');
    expect(tasks.charges).toEqual([]);
    expect(await tasks.get(NEW_ID)).toBeUndefined();
  });

  it("an input the model's upstream refuses → 400 naming the rule, nothing charged", async () => {
    const body = { model: PRO, prompt: 'p', video_urls: ['https://a.example/v.mp4'] };
    const error = await rejection(submitTask(CALLER, body, deps));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toBe('seedance-1.5-pro does not accept video references (video_urls)');
    expect(tasks.charges).toEqual([]);
    expect(await tasks.get(NEW_ID)).toBeUndefined();
  });

  it('an invalid body → 400 and nothing charged', async () => {
    expect(await rejection(submitTask(CALLER, { model: PRO }, deps))).toBeInstanceOf(InvalidRequestError);
    expect(tasks.charges).toEqual([]);
    expect(await tasks.get(NEW_ID)).toBeUndefined();
  });

  it('insufficient balance → 402, no task stored', async () => {
    tasks.chargeError = new InsufficientBalanceError();
    const error = await rejection(submitTask(CALLER, { model: PRO, prompt: 'p' }, deps));
    expect((error as ApiError).code).toBe(402);
    expect(await tasks.get(NEW_ID)).toBeUndefined();
  });
});
