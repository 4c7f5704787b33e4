/**
 * submitTaskIdempotently (docs/api-contract.md, "Idempotency-Key"): one task per Idempotency-Key and body; the first answer again with
 * `replayed`; another body with the key is a 400; a bad key is a 400 after authentication; a key expires.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  InsufficientBalanceError,
  InvalidRequestError,
} from '../../../functions/core/api-error.js';
import { IDEMPOTENCY_TTL_SECONDS } from '../../../functions/core/idempotency.js';
import { submitTaskIdempotently } from '../../../functions/core/use-cases/submit-task.js';
import type { SubmitTaskDeps } from '../../../functions/core/use-cases/submit-task.js';
import { catalogVideoModel } from '../../../functions/providers/registry.js';
import { CALLER, InMemoryCatalog, InMemoryKeys, InMemoryTasks, NOW, OTHER_ACCOUNT, apiKeyRecord } from '../fakes.js';
import { catalogRecords, PRO, rejection } from '../support.js';

const BODY = { model: PRO, prompt: 'A fox', duration: 5 };

describe('submitTaskIdempotently', () => {
  let tasks: InMemoryTasks;
  let now: Date;
  let ids: number;
  let deps: SubmitTaskDeps;

  beforeEach(() => {
    tasks = new InMemoryTasks();
    now = NOW;
    ids = 0;
    deps = {
      keys: new InMemoryKeys([apiKeyRecord()]),
      models: new InMemoryCatalog(catalogRecords().map((record) => catalogVideoModel(record))),
      tasks,
      urls: { assertPublic: async () => undefined },
      uploads: { assertUsable: async () => undefined },
      idempotency: tasks.idempotency,
      now: () => now,
      newTaskId: () => `00000000-0000-4000-8000-${String((ids += 1)).padStart(12, '0')}`,
    };
  });

  const submit = (body: unknown, key: string | undefined, caller = CALLER) =>
    submitTaskIdempotently(caller, body, deps, key);

  it('the same key and body: the first answer again, one task, one charge', async () => {
    const first = await submit(BODY, 'order-1');
    expect(first.replayed).toBe(false);
    // Key order and spacing do not make another body.
    const again = await submit({ duration: 5, prompt: 'A fox', model: PRO }, 'order-1');
    expect(again).toEqual({ answer: first.answer, replayed: true, headers: {} });
    expect(tasks.charges).toHaveLength(1);
    expect(tasks.tasks.size).toBe(1);
  });

  it('the same key with another body: 400, nothing charged', async () => {
    await submit(BODY, 'order-2');
    const error = await rejection(submit({ ...BODY, prompt: 'A cat' }, 'order-2'));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toMatch(/different request body/);
    expect(tasks.charges).toHaveLength(1);
  });

  it('no key: every submit is a task of its own', async () => {
    await submit(BODY, undefined);
    await submit(BODY, undefined);
    expect(tasks.charges).toHaveLength(2);
  });

  it('a key is the account’s own: another account with the same key gets its own task', async () => {
    const mine = await submit(BODY, 'shared');
    const theirs = await submit(BODY, 'shared', { ...CALLER, accountId: OTHER_ACCOUNT });
    expect(theirs.replayed).toBe(false);
    expect(theirs.answer.task_id).not.toBe(mine.answer.task_id);
  });

  it('a key that is empty, too long or not printable ASCII: 400, after authentication', async () => {
    for (const key of ['', 'x'.repeat(256), 'naïve', 'tab\there']) {
      expect(await rejection(submit(BODY, key)), JSON.stringify(key)).toBeInstanceOf(InvalidRequestError);
    }
    expect((await submit(BODY, 'x'.repeat(255))).replayed).toBe(false);
    expect((await submit(BODY, ' !~')).replayed).toBe(false);
    const unauthenticated = Promise.reject(new AuthenticationError());
    expect(await rejection(submitTaskIdempotently(unauthenticated, BODY, deps, ''))).toBeInstanceOf(
      AuthenticationError,
    );
    expect(tasks.charges).toHaveLength(2);
  });

  it('a replay answers even when the body would no longer be accepted (the model since removed)', async () => {
    const first = await submit(BODY, 'order-3');
    deps.models = new InMemoryCatalog([]);
    expect(await submit(BODY, 'order-3')).toEqual({ answer: first.answer, replayed: true, headers: {} });
  });

  it('after 24 h the key is free again: a new task', async () => {
    const first = await submit(BODY, 'order-4');
    now = new Date(NOW.getTime() + IDEMPOTENCY_TTL_SECONDS * 1000);
    const later = await submit(BODY, 'order-4');
    expect(later.replayed).toBe(false);
    expect(later.answer.task_id).not.toBe(first.answer.task_id);
  });

  it('a duplicate whose charge failed on another condition (the balance) while the key was won: the winner’s answer', async () => {
    const first = await submit(BODY, 'masked');
    // As a duplicate that looked the key up just before the winner committed, then found the balance short.
    let reads = 0;
    const racing: SubmitTaskDeps = {
      ...deps,
      idempotency: { find: (id, at) => (++reads === 1 ? Promise.resolve(undefined) : tasks.idempotency.find(id, at)) },
    };
    tasks.chargeError = new InsufficientBalanceError();
    expect(await submitTaskIdempotently(CALLER, BODY, racing, 'masked')).toEqual({
      answer: first.answer,
      replayed: true,
      headers: {},
    });
    // Without a record the refusal stands.
    expect(await rejection(submit(BODY, 'other'))).toBeInstanceOf(InsufficientBalanceError);
  });

  it('losing the race to a request with the same key: the winner’s answer, no charge of its own', async () => {
    // Both look the key up before either commits; the second commit fails on the record's condition.
    const winner = submit(BODY, 'race');
    const loser = submit(BODY, 'race');
    const [a, b] = await Promise.all([winner, loser]);
    expect([a.replayed, b.replayed].sort()).toEqual([false, true]);
    expect(a.answer).toEqual(b.answer);
    expect(tasks.charges).toHaveLength(1);
  });
});
