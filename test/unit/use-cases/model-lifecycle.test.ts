/** Models that come and go: deprecation headers on submits, retired models refused uncharged, /models shows both. */
import { beforeEach, describe, expect, it } from 'vitest';
import { deprecationHeaders, phaseOf } from '../../../functions/core/model-lifecycle.js';
import { listModels } from '../../../functions/core/use-cases/list-models.js';
import { submitTaskIdempotently } from '../../../functions/core/use-cases/submit-task.js';
import type { SubmitTaskDeps } from '../../../functions/core/use-cases/submit-task.js';
import { catalogVideoModel } from '../../../functions/providers/registry.js';
import { apiKeyRecord, CALLER, InMemoryCatalog, InMemoryKeys, InMemoryTasks, NOW } from '../fakes.js';
import { catalogRecords, PRO } from '../support.js';

const DAY = 86_400_000;
const at = (days: number) => new Date(NOW.getTime() + days * DAY).toISOString();

describe('phaseOf and deprecationHeaders', () => {
  it('active, deprecated from deprecated_at, retired at retired_at or the sunset, whichever comes first', () => {
    expect(phaseOf({}, NOW)).toBe('active');
    expect(phaseOf({ deprecated_at: at(1), sunset_at: at(30) }, NOW)).toBe('active');
    expect(phaseOf({ deprecated_at: at(-1), sunset_at: at(30) }, NOW)).toBe('deprecated');
    expect(phaseOf({ deprecated_at: at(-30), sunset_at: at(-1) }, NOW)).toBe('retired');
    expect(phaseOf({ deprecated_at: at(-1), sunset_at: at(30), retired_at: at(-0.5) }, NOW)).toBe('retired');
  });

  it('RFC 9745 Deprecation (@ and Unix seconds) and RFC 8594 Sunset (an HTTP date); none while active', () => {
    const dates = { deprecated_at: '2026-01-01T00:00:00.000Z', sunset_at: '2099-12-31T23:59:59.000Z' };
    expect(deprecationHeaders(dates, NOW)).toEqual({
      Deprecation: '@1767225600',
      Sunset: 'Thu, 31 Dec 2099 23:59:59 GMT',
    });
    expect(deprecationHeaders({}, NOW)).toEqual({});
  });
});

describe('a submit to a model of the catalog by its lifecycle', () => {
  let tasks: InMemoryTasks;
  let deps: SubmitTaskDeps;
  const withPro = (change: Record<string, string>) =>
    new InMemoryCatalog(
      catalogRecords().map((record) => catalogVideoModel(record.name === PRO ? { ...record, ...change } : record)),
    );

  beforeEach(() => {
    tasks = new InMemoryTasks();
    deps = {
      keys: new InMemoryKeys([apiKeyRecord()]),
      models: withPro({}),
      tasks,
      urls: { assertPublic: async () => undefined },
      idempotency: tasks.idempotency,
      now: () => NOW,
      newTaskId: () => '99999999-9999-4999-8999-999999999999',
    };
  });
  const submit = () => submitTaskIdempotently(CALLER, { model: PRO, prompt: 'A fox', duration: 5 }, deps, undefined);

  it('active: no lifecycle headers', async () => {
    expect((await submit()).headers).toEqual({});
  });

  it('deprecated: made and charged, with Deprecation and Sunset', async () => {
    deps.models = withPro({ deprecated_at: at(-1), sunset_at: at(30), replacement: 'seedance-2.0' });
    const outcome = await submit();
    expect(outcome.headers).toEqual({
      Deprecation: `@${Math.floor(Date.parse(at(-1)) / 1000)}`,
      Sunset: new Date(at(30)).toUTCString(),
    });
    expect(tasks.charges).toHaveLength(1);
  });

  it('retired: a 400 naming the field, the model, the date and the replacement; nothing charged', async () => {
    deps.models = withPro({ deprecated_at: at(-30), sunset_at: at(-1), replacement: 'seedance-2.0' });
    await expect(submit()).rejects.toMatchObject({
      code: 400,
      message: `model: "${PRO}" was retired on ${at(-1).slice(0, 10)} and is no longer made; use "seedance-2.0" instead`,
    });
    expect(tasks.charges).toEqual([]);
  });

  it('/models shows the lifecycle, the sunset and the replacement', async () => {
    const catalog = withPro({ deprecated_at: at(-1), sunset_at: at(30), replacement: 'seedance-2.0' });
    const shown = (await listModels(catalog, NOW)).find((model) => model.name === PRO);
    expect(shown).toMatchObject({
      lifecycle: 'deprecated',
      deprecated_at: at(-1),
      sunset_at: at(30),
      replacement: 'seedance-2.0',
    });
    const others = (await listModels(catalog, NOW)).filter((model) => model.name !== PRO);
    expect(others.every((model) => model.lifecycle === 'active' && model.sunset_at === null)).toBe(true);
  });
});
