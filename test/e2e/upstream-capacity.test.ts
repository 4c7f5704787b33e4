/**
 * Upstream capacity and pushed completion (docs/upstream-capacity.md; docs/task-lifecycle.md, "Completion"), over HTTP against the local stack: tasks
 * past the accounts' slots wait `pending` with a queue position and start in submit order; a 429 from the
 * upstream sends a task back to waiting, never to a refund; every slot is given back; a job that cannot call
 * back is still found by the fallback poll.
 * Owns its stack: upstream accounts of 3 slots in all, and a refusal window on its simulator.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { callApi, newAccount, pollUntil, startTestStack } from '../support/test-stack.js';
import type { LocalStack } from '../support/test-stack.js';

interface TaskData {
  task_id: string;
  cost: number;
  status: string;
  queue_position: number | null;
  error_message: string | null;
}

const submit = (stack: LocalStack, key: string, prompt: string) =>
  callApi<TaskData>(stack, 'POST', '/api/v1/video/generate', {
    key,
    body: { model: 'seedance-1.5-pro', prompt, duration: 5 },
  });
const task = (stack: LocalStack, key: string, taskId: string) =>
  callApi<TaskData>(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key });
const balance = async (stack: LocalStack, key: string) =>
  (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key })).body.data.balance;

const tasks = (stack: LocalStack, key: string, ids: string[]) =>
  Promise.all(ids.map(async (id) => (await task(stack, key, id)).body.data));

async function allFinal(stack: LocalStack, key: string, ids: string[]) {
  return pollUntil(
    () => tasks(stack, key, ids),
    (views) => views.every((view) => ['success', 'failed', 'refunded'].includes(view.status)),
    { timeoutMs: 120_000, intervalMs: 250 },
  );
}

/** Every account back to 0 slots in use, 0 jobs in flight and nothing waiting: nothing leaked. */
async function expectNoSlotHeld(stack: LocalStack) {
  const { accounts, waiting } = await pollUntil(
    () => stack.admin.upstreamAccounts(),
    (state) => state.accounts.every((account) => account.in_use === 0 && (account.inflight ?? 0) === 0),
  );
  expect(accounts.map((account) => [account.in_use, account.inflight ?? 0])).toEqual(accounts.map(() => [0, 0]));
  expect(Object.values(waiting).reduce((sum, count) => sum + count, 0)).toBe(0);
}

describe('two upstream accounts with 3 slots in all', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack({
      upstreamAccounts: [
        { name: 'a', capacity: 2 },
        { name: 'b', capacity: 1 },
      ],
      upstream: { queuedMs: 100, runningMs: 1000 },
      // The fallback look of a job that calls back (30 s locally): short, for the silent job below.
      environment: { COMPLETION_CHECK_SECONDS: '3' },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('8 tasks: 3 start, the rest wait with a queue position, then start in submit order; all succeed', async () => {
    const { key } = await newAccount(stack, '100');
    const before = await balance(stack, key);
    const run = randomUUID();
    const ids: string[] = [];
    let cost = 0;
    // The first two waves stay queued upstream until the test releases them, so no slot frees before the
    // test has looked, however busy the machine (a slot is a queued job: it frees when the job runs).
    const wave = (i: number) => (i < 3 ? 1 : i < 6 ? 2 : 3);
    const prompt = (i: number) => `burst ${run} wave ${wave(i)} #${i}${wave(i) < 3 ? ' [simulate:held-queued]' : ''}`;
    const releaseWave = (n: number) =>
      fetch(`${stack.upstreams.ark.baseUrl}/simulator/release?prompt=${encodeURIComponent(`${run} wave ${n}`)}`, {
        method: 'POST',
      });
    const release = async (n: number) => expect(await (await releaseWave(n)).json()).toEqual({ released: 3 });
    // Even when a check fails, the held jobs end: they would hold the slots that the next tests need.
    onTestFinished(async () => {
      await Promise.all([releaseWave(1), releaseWave(2)]);
    });
    const add = async (i: number) => {
      const { data } = (await submit(stack, key, prompt(i))).body;
      ids.push(data.task_id);
      cost += data.cost;
    };
    const views = () => tasks(stack, key, ids);
    const jobs = () => stack.upstream.jobs().filter((job) => job.prompt.includes(run));
    for (let i = 0; i < 3; i += 1) await add(i);
    // The first three hold the three slots (their jobs exist) before the others come.
    await pollUntil(
      async () => jobs().length,
      (count) => count === 3,
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    for (let i = 3; i < 8; i += 1) await add(i);

    // The five others wait, each saying where it stands: in submit order. A place counts the entries in the
    // waiting room before it, so until the last of them has entered (its execution's step, later on a busy
    // machine), two may say the same place: wait for all five to be in.
    const expected = [1, 2, 3, 4, 5].map((position) => ({ status: 'pending', queue_position: position }));
    const places = (all: TaskData[]) => all.slice(3).map(({ status, queue_position }) => ({ status, queue_position }));
    const waiting = await pollUntil(views, (all) => JSON.stringify(places(all)) === JSON.stringify(expected), {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    expect(places(waiting)).toEqual(expected);
    // The first wave ends: the three oldest waiting take its slots, and the last two move up.
    await release(1);
    await pollUntil(
      async () => jobs().length,
      (count) => count === 6,
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(new Set(jobs().map((job) => job.prompt))).toEqual(new Set([0, 1, 2, 3, 4, 5].map(prompt)));
    expect((await views()).slice(6).map((view) => view.queue_position)).toEqual([1, 2]);
    await release(2);

    const final = await allFinal(stack, key, ids);
    expect(final.map((view) => view.status)).toEqual(ids.map(() => 'success'));
    expect(final.map((view) => view.queue_position)).toEqual(ids.map(() => null));
    expect(jobs()).toHaveLength(8);
    // Never more jobs queued on an account than its slots.
    const stats = (await (await fetch(`${stack.upstreams.ark.baseUrl}/simulator/stats`)).json()) as {
      accounts: { peakQueued: number }[];
    };
    expect(stats.accounts.map((a) => a.peakQueued).sort()).toEqual([1, 2]);
    expect(await balance(stack, key)).toBeCloseTo(before - cost, 4);
    await expectNoSlotHeld(stack);
  });

  it('a task cancelled while it waits leaves the room, refunded; the others go on', async () => {
    const { key } = await newAccount(stack, '100');
    const run = randomUUID();
    const ids: string[] = [];
    // The first three hold the three slots (queued upstream) until the test releases them, so the last
    // surely waits.
    const prompt = (i: number) => `cancel ${run} #${i}${i < 3 ? ' [simulate:held-queued]' : ''}`;
    const releaseHeld = () =>
      fetch(`${stack.upstreams.ark.baseUrl}/simulator/release?prompt=${encodeURIComponent(run)}`, { method: 'POST' });
    onTestFinished(async () => {
      await releaseHeld();
    });
    // The held three first, and their jobs made, before the others come: a task takes a free slot when its
    // execution enters the waiting room, so a later task whose execution entered first would take one of the
    // three (seen beside two CPU-bound processes), and its job's end would let a fourth job in.
    for (let i = 0; i < 3; i += 1) ids.push((await submit(stack, key, prompt(i))).body.data.task_id);
    await pollUntil(
      async () => stack.upstream.jobs().filter((job) => job.prompt.includes(run)).length,
      (count) => count === 3,
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    for (let i = 3; i < 5; i += 1) ids.push((await submit(stack, key, prompt(i))).body.data.task_id);
    const last = ids[4] as string;
    await pollUntil(
      () => task(stack, key, last),
      (response) => response.body.data.queue_position !== null,
    );
    const cancelled = await callApi<TaskData>(stack, 'POST', `/api/v1/video/tasks/${last}/cancel`, { key });
    expect(cancelled.body.data.status).toBe('refunded');
    expect(await (await releaseHeld()).json()).toEqual({ released: 3 });
    const views = await allFinal(stack, key, ids.slice(0, 4));
    expect(views.map((view) => view.status)).toEqual(['success', 'success', 'success', 'success']);
    expect(stack.upstream.jobs().filter((job) => job.prompt === `cancel ${run} #4`)).toEqual([]);
    await expectNoSlotHeld(stack);
  });

  it('a job that cannot call back is found by the fallback poll', async () => {
    const { key } = await newAccount(stack, '10');
    const taskId = (await submit(stack, key, `silent ${randomUUID()} [simulate:no-callback]`)).body.data.task_id;
    // No GET here (a query would settle it): the execution's own look, after its fallback timeout, finds it.
    const done = await pollUntil(
      async () => (await stack.workflow.executions()).find((record) => record.name === taskId)?.status,
      (status) => status === 'SUCCEEDED',
      { timeoutMs: 90_000, intervalMs: 250 },
    );
    expect(done).toBe('SUCCEEDED');
    expect((await task(stack, key, taskId)).body.data.status).toBe('success');
  });

  it('a 429 sends the refused tasks back to waiting, never to a refund: all 3 succeed', async () => {
    const { key } = await newAccount(stack, '50');
    const simulator = stack.upstreams.ark.baseUrl;
    const refuseFor = (seconds: number) =>
      fetch(`${simulator}/simulator/refuse?seconds=${seconds}&code=InflightBatchsizeExceeded`, { method: 'POST' });
    const refusedCreates = async () =>
      ((await (await fetch(`${simulator}/simulator/stats`)).json()) as { refusedCreates: number }).refusedCreates;
    const refusedBefore = await refusedCreates();
    // The upstream turns every create away (its unpublished limit on jobs in flight) until the test lifts it.
    await refuseFor(3600);
    onTestFinished(async () => {
      await refuseFor(0);
    });
    const run = randomUUID();
    const ids: string[] = [];
    let cost = 0;
    for (let i = 0; i < 3; i += 1) {
      const { data } = (await submit(stack, key, `refused ${run} #${i}`)).body;
      ids.push(data.task_id);
      cost += data.cost;
    }
    await pollUntil(refusedCreates, (count) => count > refusedBefore, { timeoutMs: 120_000, intervalMs: 250 });
    expect((await tasks(stack, key, ids)).map((view) => view.status)).toEqual(['pending', 'pending', 'pending']);
    await refuseFor(0);
    const views = await allFinal(stack, key, ids);
    expect(views.map((view) => view.status)).toEqual(['success', 'success', 'success']);
    expect(await balance(stack, key)).toBeCloseTo(50 - cost, 4);
    await expectNoSlotHeld(stack);
  });
});
