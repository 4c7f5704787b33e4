/**
 * A model retired on one upstream platform only (docs/api-contract.md, "Models that come and go"): the seeded
 * Seedance 1.0 lite models, retired by BytePlus on 2026-05-13 (docs/providers/ark.md, "Models per platform").
 */
import { describe, expect, it } from 'vitest';
import { lifecycleOn } from '../../../functions/core/model-lifecycle.js';
import { listModels } from '../../../functions/core/use-cases/list-models.js';
import { submitTaskIdempotently } from '../../../functions/core/use-cases/submit-task.js';
import { catalogVideoModel } from '../../../functions/providers/registry.js';
import { apiKeyRecord, CALLER, InMemoryCatalog, InMemoryKeys, InMemoryTasks, NOW } from '../fakes.js';
import { catalogRecord, catalogRecords, LITE, LITE_T2V, PRO } from '../support.js';

const onArk = (platform: string, records = catalogRecords()) =>
  new InMemoryCatalog(records.map((record) => catalogVideoModel(record, { ark: platform })));

describe('lifecycleOn', () => {
  it('takes the earlier of the model’s and its platform’s dates, and the platform’s replacement first', () => {
    const record = {
      sunset_at: '2027-01-01T00:00:00.000Z',
      replacement: 'a',
      platform_lifecycle: { byteplus: { retired_at: '2026-05-13T00:00:00.000Z', replacement: 'b' } },
    };
    expect(lifecycleOn(record, 'byteplus')).toEqual({
      sunset_at: '2027-01-01T00:00:00.000Z',
      retired_at: '2026-05-13T00:00:00.000Z',
      replacement: 'b',
    });
    expect(lifecycleOn(record, 'volcengine')).toEqual({ sunset_at: '2027-01-01T00:00:00.000Z', replacement: 'a' });
  });
});

describe('the lite models on each Ark platform', () => {
  it('BytePlus: /models does not list them; Volcengine and an unknown platform do', async () => {
    const names = async (platform: string) => (await listModels(onArk(platform), NOW)).map((model) => model.name);
    expect(NOW.getTime()).toBeGreaterThan(Date.parse('2026-05-13'));
    expect(await names('byteplus')).not.toContain(LITE);
    expect(await names('byteplus')).not.toContain(LITE_T2V);
    expect(await names('byteplus')).toContain(PRO);
    expect(await names('volcengine')).toEqual(expect.arrayContaining([LITE, LITE_T2V]));
    const unknown = (await listModels(new InMemoryCatalog(catalogRecords().map((r) => catalogVideoModel(r))), NOW)).map(
      (model) => model.name,
    );
    expect(unknown).toContain(LITE);
  });

  it('BytePlus: a submit naming one is a 400 naming the model and the date, nothing charged', async () => {
    const tasks = new InMemoryTasks();
    const deps = {
      keys: new InMemoryKeys([apiKeyRecord()]),
      models: onArk('byteplus'),
      tasks,
      urls: { assertPublic: async () => undefined },
      idempotency: tasks.idempotency,
      now: () => NOW,
      newTaskId: () => '99999999-9999-4999-8999-999999999999',
    };
    await expect(
      submitTaskIdempotently(CALLER, { model: LITE_T2V, prompt: 'A fox', duration: 5 }, deps, undefined),
    ).rejects.toMatchObject({
      code: 400,
      message: `model: "${LITE_T2V}" was retired on 2026-05-13 and is no longer made; choose another: see GET /api/v1/models`,
    });
    expect(tasks.charges).toEqual([]);
  });

  it('a platform the provider does not have is refused when the catalog is read', () => {
    const record = { ...catalogRecord(PRO), platform_lifecycle: { nowhere: { retired_at: NOW.toISOString() } } };
    expect(() => catalogVideoModel(record)).toThrow(/ark has no platform nowhere/);
  });
});
