/**
 * Money under mixed concurrency: clients of one account submit, cancel and query at once while tasks
 * run; at every stable moment balance = opening − Σ cost of tasks in flight or succeeded, and the key's
 * spend equals that sum. Scenarios come from fast-check, so a failure prints the seed that replays it.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { hashApiKey } from '../../functions/core/api-key.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { askedAgainWhileBusy, callApi, newAccount, pollUntil, tasksOfAccount } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';
import { FINAL, sumUnits, toUnits } from './support/money.js';
import { mediaUrl } from '../support/media-server.js';
import { storedSpend } from '../support/stored-money.js';

/** A real image the simulator downloads (it fetches every reference, as the upstream does). */
const REFERENCE_IMAGE = await mediaUrl('png');

const OPENING_YUAN = 150;
const CLIENTS = 16;
const CHARGED = new Set(['pending', 'running', 'transferring', 'success']);

// Jobs finish upstream about half a second after creation: tasks end while others are submitted.
const stack = sharedStack();

type Operation =
  | { kind: 'submit'; body: Record<string, unknown> }
  | { kind: 'cancel'; pick: number }
  | { kind: 'query'; pick: number }
  | { kind: 'balance' };

const submitBody = fc.oneof(
  fc.record({
    model: fc.constant('seedance-1.5-pro'),
    prompt: fc.constantFrom('a fox', 'a boat [simulate:fail]', 'rain', 'a city'),
    duration: fc.integer({ min: 5, max: 12 }),
    resolution: fc.constantFrom('480p', '720p', '1080p'),
    generate_audio: fc.boolean(),
  }),
  fc.record({
    model: fc.constant('seedance-1.0-lite-i2v'),
    prompt: fc.constantFrom('a kite', 'a leaf [simulate:fail]'),
    duration: fc.constant(5),
    image_urls: fc.constant([REFERENCE_IMAGE]),
  }),
);
const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 4, arbitrary: submitBody.map((body) => ({ kind: 'submit' as const, body })) },
  { weight: 3, arbitrary: fc.nat().map((pick) => ({ kind: 'cancel' as const, pick })) },
  { weight: 3, arbitrary: fc.nat().map((pick) => ({ kind: 'query' as const, pick })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'balance' as const }) },
);
const scenario = fc.array(fc.array(operation, { minLength: 6, maxLength: 14 }), {
  minLength: CLIENTS,
  maxLength: CLIENTS,
});

it('the balance equals the opening balance minus the cost of tasks in flight or succeeded, to the 0.0001', async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async (clients) => {
      const { accountId, key } = await newAccount(stack, String(OPENING_YUAN), { ratePerSecond: 1_000_000 });
      const created: { id: string; costUnits: number; cancelled: boolean }[] = [];
      const statuses: number[] = [];

      const run = async (operations: Operation[]) => {
        for (const op of operations) {
          if (op.kind === 'submit') {
            const response = await askedAgainWhileBusy(() =>
              callApi<{ task_id: string; cost: number }>(stack, 'POST', '/api/v1/video/generate', {
                key,
                body: op.body,
              }),
            );
            statuses.push(response.status);
            if (response.status === 200) {
              created.push({
                id: response.body.data.task_id,
                costUnits: toUnits(response.body.data.cost),
                cancelled: false,
              });
            } else expect(response.status, JSON.stringify(response.body)).toBe(402);
          } else if (op.kind === 'balance') {
            const response = await callApi(stack, 'GET', '/api/v1/account/balance', { key });
            statuses.push(response.status);
          } else if (created.length > 0) {
            const task = created[op.pick % created.length]!;
            const path = `/api/v1/video/tasks/${task.id}${op.kind === 'cancel' ? '/cancel' : ''}`;
            const send = () => callApi<{ status: string }>(stack, op.kind === 'cancel' ? 'POST' : 'GET', path, { key });
            // A cancel that meets the task being started upstream answers 429: asked again, as a client would.
            const response = await pollUntil(send, (answer) => answer.status !== 429, {
              timeoutMs: 300_000,
              intervalMs: 500,
            });
            statuses.push(response.status);
            if (op.kind === 'cancel' && response.status === 200) {
              // A second cancel answers 0 with the refunded task (docs/task-lifecycle.md, "Cancel"); the money checks below
              // show that it refunded once.
              expect(response.body.data.status).toBe('refunded');
              task.cancelled = true;
            }
          }
        }
      };
      await Promise.all(clients.map(run));
      expect(statuses.filter((status) => status !== 200 && status !== 400 && status !== 402)).toEqual([]);

      const records = () => tasksOfAccount(stack, accountId);
      const ledger = async () => {
        // The key's spend is the sum of its shards (docs/money-and-ledger.md, "Balance shards").
        const [balance, spent] = await Promise.all([
          callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key }),
          storedSpend(stack.db, stack.names.tables.apiKeys, hashApiKey(key)),
        ]);
        return { balance: toUnits(balance.body.data.balance), spent };
      };
      const expectExact = (tasks: TaskRecord[], money: { balance: number; spent: number }) => {
        const charged = sumUnits(tasks.filter((task) => CHARGED.has(task.status)).map((task) => task.cost_units));
        expect(money.balance).toBe(toUnits(OPENING_YUAN) - charged);
        expect(money.spent).toBe(charged);
      };

      // While tasks are still in flight: a moment where nothing moved between two reads is a consistent view.
      const stable = await pollUntil(
        async () => {
          const before = await records();
          const money = await ledger();
          const after = await records();
          const same =
            JSON.stringify(before.map((t) => [t.task_id, t.status]).sort()) ===
            JSON.stringify(after.map((t) => [t.task_id, t.status]).sort());
          return { same, tasks: after, money };
        },
        (view) => view.same,
        { timeoutMs: 300_000, intervalMs: 50, describe: (view) => unfinished(view.tasks) },
      );
      expectExact(stable.tasks, stable.money);

      // Once everything is final: every task accounted for, in the state its history allows.
      const finals = await pollUntil(records, (tasks) => tasks.every((task) => FINAL.has(task.status)), {
        timeoutMs: 300_000,
        intervalMs: 250,
        describe: unfinished,
      });
      expect(finals.map((task) => task.task_id).sort()).toEqual(created.map((task) => task.id).sort());
      for (const task of created) {
        const record = finals.find((item) => item.task_id === task.id)!;
        if (task.cancelled) expect(record.status).toBe('refunded');
        else if (record.generation.prompt.includes('[simulate:fail]')) expect(record.status).toBe('failed');
        else expect(record.status).toBe('success');
        expect(record.cost_units).toBe(task.costUnits);
      }
      expectExact(finals, await ledger());
      // The ledger after the races: the account's balance is the sum of its entries (ledger:verify), and its
      // charges and refunds are one entry per task each.
      const verified = await stack.admin.verifyLedger(accountId);
      expect(verified.mismatches).toEqual([]);
      const entries = await stack.db.send(
        new QueryCommand({
          TableName: stack.names.tables.ledger,
          KeyConditionExpression: 'account_id = :account',
          ExpressionAttributeValues: { ':account': accountId },
          ConsistentRead: true,
        }),
      );
      const ids = (entries.Items ?? []).map((item) => item['entry_id'] as string).sort();
      const refundedTasks = finals.filter((task) => task.status === 'refunded' || task.status === 'failed');
      expect(ids).toEqual(
        [
          'opening',
          ...finals.map((task) => `charge:${task.task_id}`),
          ...refundedTasks.map((task) => `refund:${task.task_id}`),
        ].sort(),
      );
      const count = (status: string) => finals.filter((task) => task.status === status).length;
      console.log(
        `money concurrency: ${statuses.length} requests, ${created.length} tasks (${count('success')} success, ` +
          `${count('failed')} failed, ${count('refunded')} cancelled), ${statuses.filter((s) => s === 402).length} refused 402`,
      );
    }),
    // One scenario a run (a new one each run, its seed printed on failure): two took a minute longer.
    { numRuns: 1, endOnFailure: true },
  );
}, 1_500_000);

/** What a wait that timed out prints: the tasks not yet final, with what tells where each one stands. */
function unfinished(tasks: TaskRecord[]): string {
  const fields = [
    'status',
    'upstream_job_id',
    'upstream_slot',
    'upstream_claim_until',
    'updated_at',
    'restarts',
  ] as const;
  const open = tasks.filter((task) => !FINAL.has(task.status));
  return `${open.length} of ${tasks.length} not final: ${JSON.stringify(
    open.map((task) => ({ task_id: task.task_id, ...Object.fromEntries(fields.map((f) => [f, task[f]])) })),
  )}`;
}
