/**
 * Fault injection through the simulated upstream's prompt markers, on the shared stack: every fault ends in
 * the right final state with a reason the customer can read, and the balance is exact (failed tasks refunded
 * in full; a create answered 429 waits and succeeds, never refunded for it).
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedStack } from '../support/shared-stack.js';
import { callApi, newAccount, pollUntil } from '../support/test-stack.js';
import catalog from '../../lib/ship/seed/model-catalog.json' with { type: 'json' };

const stack = sharedStack();
const RUN = randomUUID().slice(0, 8);
// A model of this file's own whose generation deadline is 3 s, removed after: a hanging job times out.
const base = catalog.models.find((model) => model.name === 'seedance-1.5-pro') as Record<string, unknown>;
const SHORT_DEADLINE = { ...base, id: randomUUID(), name: `short-deadline-${RUN}`, max_generation_seconds: 3 };
beforeAll(async () => {
  await stack.admin.seedModels({ version: 1, models: [SHORT_DEADLINE] });
});
afterAll(async () => {
  await stack.db.send(new DeleteCommand({ TableName: stack.names.tables.models, Key: { id: SHORT_DEADLINE.id } }));
});

interface TaskData {
  task_id: string;
  status: string;
  error_message: string | null;
  video_url: string | null;
}

const CASES = [
  {
    marker: '[simulate:output-moderation]',
    status: 'failed',
    message: /^the upstream's content moderation refused the generated video: it may contain sensitive content; /,
  },
  {
    marker: '[simulate:reject]',
    status: 'failed',
    message: /^the upstream's content moderation refused the prompt: its text may contain sensitive content; /,
  },
  { marker: '[simulate:expire]', status: 'failed', message: /^generation timed out: the upstream gave up on the job/ },
  // The first two creates answer 429: StartUpstream waits (10 s, then 20 s) and the third starts the job.
  { marker: '[simulate:rate-limit]', status: 'success', message: null },
  { marker: '[simulate:lost]', status: 'failed', message: /^the generator lost the task/ },
  { marker: '[simulate:broken-download]', status: 'failed', message: /^the generated video could not be downloaded/ },
  {
    marker: '[simulate:not-video]',
    status: 'failed',
    message: /^the generated file could not be stored: .*not a video/,
  },
  { marker: '[simulate:upstream-5xx]', status: 'success', message: null },
  // Ark keeps a job at least an hour (execution_expires_after) and the poll loop waits for it that long, as
  // it may still finish and bill: this job's expiry clock runs 1,000 times faster (3.6 s).
  {
    marker: '[simulate:hang] [simulate:fast-expiry]',
    status: 'failed',
    message: /^generation timed out/,
    model: SHORT_DEADLINE.name,
  },
] as const;

describe('upstream faults', () => {
  it('each ends in the right final state with the balance exact', async () => {
    const runs = await Promise.all(
      CASES.map(async (fault) => {
        const { key } = await newAccount(stack, '20');
        const model = 'model' in fault ? fault.model : 'seedance-1.5-pro';
        // Unique: the simulator counts a rate-limited create per exact prompt.
        // A warm submit function may not see the new model until its catalog cache (1 s here) runs out; a
        // refused submit charges nothing.
        const submit = await pollUntil(
          () =>
            callApi<TaskData>(stack, 'POST', '/api/v1/video/generate', {
              key,
              body: { model, prompt: `scene ${RUN} ${fault.marker}`, duration: 5 },
            }),
          (answer) => !(model === SHORT_DEADLINE.name && answer.status === 400),
          { timeoutMs: 60_000, intervalMs: 500 },
        );
        expect(submit.body.code, fault.marker).toBe(0);
        const final = await pollUntil(
          () => callApi<TaskData>(stack, 'GET', `/api/v1/video/tasks/${submit.body.data.task_id}`, { key }),
          (response) => ['success', 'failed', 'refunded'].includes(response.body.data.status),
          { timeoutMs: 120_000, intervalMs: 200 },
        );
        const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
        return { fault, task: final.body.data, balance: balance.body.data.balance };
      }),
    );
    // All at once, so that one mismatch does not hide the others.
    expect(
      runs.map(({ fault, task, balance }) => ({
        marker: fault.marker,
        status: task.status,
        error_message: task.error_message,
        balance,
      })),
    ).toEqual(
      CASES.map((fault) => ({
        marker: fault.marker,
        status: fault.status,
        // Failed: refunded in full; succeeded: charged 4.2 once (a create answered 429 costs nothing).
        error_message: fault.message ? expect.stringMatching(fault.message) : null,
        balance: fault.message ? 20 : 15.8,
      })),
    );
  });
});
