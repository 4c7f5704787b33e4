/**
 * Models that come and go (docs/api-contract.md, "Models that come and go"), over HTTP on the shared stack: a model
 * of its own (a copy of a seeded one, removed after) is deprecated and then retired through the admin store, as
 * `models:deprecate` and `models:retire` do; warm functions see each change within their catalog cache (`MODEL_CATALOG_CACHE_SECONDS`, 1 s on the shared stack).
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';
import { sharedStack } from '../support/shared-stack.js';
import { askedAgainWhileBusy, callApi, newAccount, pollUntil } from '../support/test-stack.js';

const stack = sharedStack();
const seeded = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'lib/ship/seed/model-catalog.json'), 'utf8')) as {
  models: { id: string; name: string }[];
};
const original = seeded.models.find((model) => model.name === 'seedance-1.5-pro')!;
const model = { ...original, id: randomUUID(), name: `lifecycle-${randomUUID().slice(0, 8)}` };
const DAY = 86_400_000;

interface ModelData {
  name: string;
  lifecycle: string;
  deprecated_at: string | null;
  sunset_at: string | null;
  replacement: string | null;
}

afterAll(async () => {
  await stack.db.send(new DeleteCommand({ TableName: stack.names.tables.models, Key: { id: model.id } }));
});

describe('a model deprecated, then retired, without a deploy', () => {
  it('/models and submits follow the catalog: Deprecation and Sunset headers, then a 400 naming the model', async () => {
    const { key } = await newAccount(stack, '100');
    const listed = async () =>
      (await callApi<ModelData[]>(stack, 'GET', '/api/v1/models', { key })).body.data.find(
        (m) => m.name === model.name,
      );
    const submit = () =>
      askedAgainWhileBusy(() =>
        callApi<{ task_id: string }>(stack, 'POST', '/api/v1/video/generate', {
          key,
          body: { model: model.name, prompt: `lifecycle ${randomUUID()}`, duration: 5 },
        }),
      );
    await stack.admin.seedModels({ version: 1, models: [model] });
    expect(await pollUntil(listed, (shown) => shown !== undefined, { intervalMs: 1_000 })).toMatchObject({
      lifecycle: 'active',
      sunset_at: null,
    });

    const deprecatedAt = new Date(Date.now() - DAY).toISOString();
    const sunsetAt = new Date(Date.now() + 30 * DAY).toISOString();
    await stack.admin.setModelLifecycle(model.name, {
      deprecated_at: deprecatedAt,
      sunset_at: sunsetAt,
      replacement: 'seedance-1.5-pro',
    });
    const deprecated = await pollUntil(submit, (answer) => answer.headers.get('deprecation') !== null, {
      intervalMs: 1_000,
    });
    expect(deprecated.status).toBe(200);
    expect(deprecated.headers.get('deprecation')).toBe(`@${Math.floor(Date.parse(deprecatedAt) / 1000)}`);
    expect(deprecated.headers.get('sunset')).toBe(new Date(sunsetAt).toUTCString());
    // Each function has its own catalog cache: /models may see the change later than the submit did.
    const shown = await pollUntil(listed, (m) => m?.lifecycle === 'deprecated', { intervalMs: 1_000 });
    expect(shown).toMatchObject({
      lifecycle: 'deprecated',
      deprecated_at: deprecatedAt,
      sunset_at: sunsetAt,
      replacement: 'seedance-1.5-pro',
    });

    await stack.admin.setModelLifecycle(model.name, { retired_at: new Date().toISOString() });
    const balance = async () =>
      (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key })).body.data.balance;
    const refused = await pollUntil(submit, (answer) => answer.status === 400, { intervalMs: 1_000 });
    expect(refused.body.message).toMatch(
      new RegExp(`^model: "${model.name}" was retired on \\d{4}-\\d{2}-\\d{2} .*use "seedance-1.5-pro" instead$`),
    );
    const before = await balance();
    expect((await submit()).status).toBe(400);
    expect(await balance()).toBe(before);
    // Retired before its sunset: sunset_at is now the retirement.
    const retired = await pollUntil(listed, (m) => m?.lifecycle === 'retired', { intervalMs: 1_000 });
    expect(Date.parse(retired!.sunset_at!)).toBeLessThan(Date.parse(sunsetAt));
  });
});

describe('a model retired on the stack’s platform only', () => {
  it('is not listed and refused there (the shared stack calls Ark on Volcengine); restored, it is back', async () => {
    const own = { ...original, id: randomUUID(), name: `platform-${randomUUID().slice(0, 8)}` };
    const { key } = await newAccount(stack, '100');
    const names = async () =>
      (await callApi<ModelData[]>(stack, 'GET', '/api/v1/models', { key })).body.data.map((m) => m.name);
    const submit = () =>
      askedAgainWhileBusy(() =>
        callApi(stack, 'POST', '/api/v1/video/generate', {
          key,
          body: { model: own.name, prompt: `platform ${randomUUID()}`, duration: 5 },
        }),
      );
    await stack.admin.seedModels({ version: 1, models: [own] });
    try {
      await pollUntil(names, (all) => all.includes(own.name), { intervalMs: 1_000 });
      // BytePlus alone: nothing changes on this stack.
      await stack.admin.setModelLifecycle(own.name, { retired_at: new Date().toISOString() }, 'byteplus');
      await stack.admin.setModelLifecycle(own.name, { retired_at: new Date().toISOString() }, 'volcengine');
      await pollUntil(names, (all) => !all.includes(own.name), { intervalMs: 1_000 });
      const refused = await pollUntil(submit, (answer) => answer.status === 400, { intervalMs: 1_000 });
      expect(refused.body.message).toMatch(new RegExp(`^model: "${own.name}" was retired on \\d{4}-\\d{2}-\\d{2} `));
      const cleared = { deprecated_at: null, sunset_at: null, retired_at: null, replacement: null };
      await stack.admin.setModelLifecycle(own.name, cleared, 'volcengine');
      await pollUntil(names, (all) => all.includes(own.name), { intervalMs: 1_000 });
      expect((await pollUntil(submit, (answer) => answer.status === 200, { intervalMs: 1_000 })).status).toBe(200);
    } finally {
      await stack.db.send(new DeleteCommand({ TableName: stack.names.tables.models, Key: { id: own.id } }));
    }
  });
});
