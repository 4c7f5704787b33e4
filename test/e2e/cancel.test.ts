/**
 * Cancel (docs/task-lifecycle.md, "Cancel"): a task without an upstream job, or whose job is still queued there, is cancelled
 * upstream, refunded and ends `refunded`; one whose job has started is refused (400) and not refunded; one
 * that meets the task being started upstream answers 429 (nothing moved) and a client asks again; a cancel
 * racing the task's own end ends in exactly one final state and at most one refund.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../functions/core/api-key.js';
import { newClaim } from '../../functions/core/use-cases/upstream-claim.js';
import { createUnstartedTask, taskRecordFor } from '../support/task-records.js';
import { mediaUrl } from '../support/media-server.js';
import { askedAgainWhileBusy, callApi, newAccount, pollUntil } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';

interface TaskData {
  task_id: string;
  status: string;
  error_message: string | null;
  cost: number;
}

const stack = sharedStack();

const submit = (key: string, prompt: string) =>
  askedAgainWhileBusy(() =>
    callApi<TaskData>(stack, 'POST', '/api/v1/video/generate', {
      key,
      body: { model: 'seedance-1.5-pro', prompt, duration: 5 },
    }),
  );
// A cancel landing while the task is being started upstream answers 429 with Retry-After (nothing moved), on
// a busy machine for longer: asked again, as a client would.
const cancel = (key: string, taskId: string) =>
  askedAgainWhileBusy(() => callApi<TaskData>(stack, 'POST', `/api/v1/video/tasks/${taskId}/cancel`, { key }));
const task = (key: string, taskId: string) => callApi<TaskData>(stack, 'GET', `/api/v1/video/tasks/${taskId}`, { key });
const balance = async (key: string) =>
  (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key })).body.data.balance;

const jobsOf = async (prompt: string) => (await stack.upstream.jobs()).filter((job) => job.prompt === prompt);

describe('cancel', () => {
  it('a job still queued upstream: cancelled there, refunded in full, execution stopped; a second cancel answers the same', async () => {
    const { key } = await newAccount(stack, '10');
    const prompt = `queued ${randomUUID()} [simulate:queued]`;
    const taskId = (await submit(key, prompt)).body.data.task_id;
    // The marker keeps the job queued upstream for 30 s (the task stays pending): wait until its id is recorded.
    await pollUntil(
      async () =>
        (await stack.db.send(new GetCommand({ TableName: stack.names.tables.tasks, Key: { task_id: taskId } }))).Item,
      (record) => typeof record?.['upstream_job_id'] === 'string',
      { timeoutMs: 120_000 },
    );
    expect((await task(key, taskId)).body.data.status).toBe('pending');
    const cancelled = await cancel(key, taskId);
    expect(cancelled.body).toMatchObject({
      code: 0,
      data: { task_id: taskId, status: 'refunded', error_message: null },
    });
    expect(await balance(key)).toBe(10);
    expect((await jobsOf(prompt)).map((job) => job.status)).toEqual(['cancelled']);
    const execution = await pollUntil(
      () => stack.execution(taskId),
      (record) => record?.status === 'ABORTED',
    );
    expect(execution?.status).toBe('ABORTED');
    // A second cancel answers the refunded task again, and refunds nothing more.
    const again = await cancel(key, taskId);
    expect(again.body).toMatchObject({ code: 0, data: { task_id: taskId, status: 'refunded' } });
    expect(await balance(key)).toBe(10);
  });

  it('a job the upstream has started generating: 400, nothing refunded, the task goes on', async () => {
    const { key } = await newAccount(stack, '10');
    const prompt = `forever ${randomUUID()} [simulate:hang]`;
    const taskId = (await submit(key, prompt)).body.data.task_id;
    await pollUntil(
      async () => jobsOf(prompt),
      (jobs) => jobs[0]?.status === 'running',
    );
    const refused = await cancel(key, taskId);
    expect(refused.body).toMatchObject({
      code: 400,
      message: 'generation has started and can no longer be cancelled',
      data: null,
    });
    expect(await balance(key)).toBe(5.8);
    expect((await task(key, taskId)).body.data.status).toBe('running');
  });

  it('a task not started upstream yet (its first creates answered 429): refunded, and no job left running for it', async () => {
    const { key } = await newAccount(stack, '10');
    const prompt = `busy ${randomUUID()} [simulate:rate-limit]`;
    const taskId = (await submit(key, prompt)).body.data.task_id;
    expect((await cancel(key, taskId)).body).toMatchObject({ code: 0, data: { status: 'refunded' } });
    expect(await balance(key)).toBe(10);
    // Stopped by the cancel, or ended on its own first: a retry that finds the task final ends the execution
    // (SUCCEEDED, upstream "final") before the cancel's stop lands, on a busy machine.
    await pollUntil(
      () => stack.execution(taskId),
      (record) =>
        record?.status === 'ABORTED' || (record?.status === 'SUCCEEDED' && record.output?.includes('"final"') === true),
    );
    // A create in flight when the cancel came makes a job that no task collects: StartUpstream cancels it.
    await pollUntil(
      async () => jobsOf(prompt),
      (jobs) => jobs.every((job) => job.status === 'cancelled'),
    );
  });

  it('refunds a pending task whose execution never started', async () => {
    const { accountId, key } = await newAccount(stack, '10');
    const task = taskRecordFor(
      { accountId, keyHash: hashApiKey(key) },
      { generation: { imageUrls: [await mediaUrl('png')] } },
    );
    const taskId = task.task_id;
    await createUnstartedTask(stack.db, stack.names.tables, task);
    expect(await balance(key)).toBe(7);
    expect((await cancel(key, taskId)).body).toMatchObject({ code: 0, data: { status: 'refunded' } });
    expect(await balance(key)).toBe(10);
  });

  it('meets the task being started upstream: 429 with Retry-After, nothing moved; asked again after, refunded', async () => {
    const { accountId, key } = await newAccount(stack, '10');
    // What StartUpstream leaves while its create is in flight: a live claim, no job yet.
    const claim = newClaim(new Date(), `claim-${randomUUID()}`, 7);
    const task = taskRecordFor(
      { accountId, keyHash: hashApiKey(key) },
      {
        upstream_claim_id: claim.id,
        upstream_claim_at: claim.at,
        upstream_claim_until: claim.until,
        upstream_seed: claim.seed,
        generation: { imageUrls: [await mediaUrl('png')] },
      },
    );
    await createUnstartedTask(stack.db, stack.names.tables, task);
    const path = `/api/v1/video/tasks/${task.task_id}/cancel`;
    const busy = await callApi<TaskData>(stack, 'POST', path, { key });
    expect(busy.status).toBe(429);
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(busy.body).toMatchObject({ code: 429, data: null });
    expect(await balance(key)).toBe(7);
    // The start is over without a job (its lease ran out): the next ask refunds.
    await stack.db.send(
      new UpdateCommand({
        TableName: stack.names.tables.tasks,
        Key: { task_id: task.task_id },
        UpdateExpression: 'SET upstream_claim_until = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1_000).toISOString() },
      }),
    );
    expect((await cancel(key, task.task_id)).body).toMatchObject({ code: 0, data: { status: 'refunded' } });
    expect(await balance(key)).toBe(10);
  });

  it('refuses finished tasks (400), other accounts (403) and unknown tasks (404)', async () => {
    const owner = await newAccount(stack, '10');
    const stranger = await newAccount(stack, '10');
    const created = await submit(owner.key, 'quick');
    const taskId = created.body.data.task_id;
    expect((await cancel(stranger.key, taskId)).body.code).toBe(403);
    await pollUntil(
      () => task(owner.key, taskId),
      (response) => response.body.data.status === 'success',
    );
    const refused = await cancel(owner.key, taskId);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/success/);
    expect((await cancel(owner.key, randomUUID())).body.code).toBe(404);
    expect(await balance(owner.key)).toBe(5.8);
  });

  it('racing the task’s own end: one final state each, and the balance pays exactly for the successes', async () => {
    const { key } = await newAccount(stack, '200');
    const run = randomUUID();
    // A third fail, a third stay queued upstream (so some cancel surely lands before the end), the rest succeed.
    const markers = ['[simulate:fail]', '[simulate:queued]', ''];
    const prompts = Array.from({ length: 24 }, (_, index) => `r${index} ${run} ${markers[index % 3]}`);
    const ids = await Promise.all(prompts.map(async (prompt) => (await submit(key, prompt)).body.data.task_id));
    // Cancel each at a different moment across the task's whole life (queued, running, then the end).
    await Promise.all(
      ids.map(async (taskId, index) => {
        await new Promise((resolve) => setTimeout(resolve, index * 180));
        expect([0, 400]).toContain((await cancel(key, taskId)).body.code);
      }),
    );
    const finals = await Promise.all(
      ids.map((taskId) =>
        pollUntil(
          () => task(key, taskId),
          (response) => ['success', 'failed', 'refunded'].includes(response.body.data.status),
        ),
      ),
    );
    const statuses = finals.map((response) => response.body.data.status);
    const succeeded = statuses.filter((status) => status === 'success').length;
    expect(statuses.filter((status) => status === 'refunded').length).toBeGreaterThan(0);
    // Settle: a task the cancel lost to may still be finishing its own refund.
    await pollUntil(
      () => balance(key),
      (value) => value === Number((200 - 4.2 * succeeded).toFixed(4)),
      { timeoutMs: 120_000 },
    );
    // And nothing moves afterwards.
    const again = await Promise.all(ids.map((taskId) => task(key, taskId)));
    expect(again.map((response) => response.body.data.status)).toEqual(statuses);
  });
});
