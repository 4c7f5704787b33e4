/**
 * Over HTTP against the local stack: Idempotency-Key on submit (docs/api-contract.md, "Idempotency-Key": replay with
 * `Idempotent-Replayed: true`, 400 for another body or a bad key), GET /api/v1/account/transactions (docs/money-and-ledger.md, "Ledger":
 * newest first, cursor paging, the caller's own), cancel twice (docs/task-lifecycle.md, "Cancel"), and the admin CLI's
 * balance:topup --request-id and ledger:verify on what all that wrote.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../../functions/adapters/runtime/resources.js';
import { runAdmin } from '../../lib/ship/admin/cli.js';
import { runtimeFile } from '../../lib/ship/admin/target.js';
import { callApi, newAccount, pollUntil } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';

interface Submitted {
  task_id: string;
  status: string;
  cost: number;
  created_at: string;
}
interface Transaction {
  id: string;
  type: string;
  amount: number;
  task_id: string | null;
  created_at: string;
}
interface TransactionsPage {
  items: Transaction[];
  next_cursor: string | null;
}

const BODY = { model: 'seedance-1.5-pro', prompt: 'a fox', duration: 5 };

const stack = sharedStack();
let dataDir: string;
beforeAll(() => {
  // What `npm start` writes for the admin CLI to find the stack.
  dataDir = mkdtempSync(join(tmpdir(), 'ledger-cli-'));
  writeFileSync(runtimeFile(dataDir), JSON.stringify({ endpoints: stack.endpoints, names: stack.names }));
  delete process.env['TABLE_PREFIX'];
  for (const table of Object.values(TABLES)) delete process.env[table.envVar];
});
afterAll(async () => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const submit = (key: string, body: unknown, idempotencyKey?: string) =>
  callApi<Submitted>(stack, 'POST', '/api/v1/video/generate', {
    key,
    body,
    ...(idempotencyKey !== undefined && { headers: { 'Idempotency-Key': idempotencyKey } }),
  });
const transactions = (key: string, query = '') =>
  callApi<TransactionsPage>(stack, 'GET', `/api/v1/account/transactions${query}`, { key });

/** The admin CLI in this process, on the test's stack (its DATA_DIR), with its lines and exit code. */
async function admin(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const saved = process.env['DATA_DIR'];
  process.env['DATA_DIR'] = dataDir;
  try {
    const code = await runAdmin(argv, { out: (line) => out.push(line), err: (line) => err.push(line) });
    return { code, out, err };
  } finally {
    if (saved === undefined) delete process.env['DATA_DIR'];
    else process.env['DATA_DIR'] = saved;
  }
}

describe('Idempotency-Key on POST /api/v1/video/generate', () => {
  it('the same key and body: the first answer again with Idempotent-Replayed: true, charged once', async () => {
    const { key } = await newAccount(stack, '100');
    const first = await submit(key, BODY, 'order-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await submit(key, { duration: 5, prompt: 'a fox', model: 'seedance-1.5-pro' }, 'order-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
    expect(balance.body.data.balance).toBe(Number((100 - first.body.data.cost).toFixed(4)));
  });

  it('the same key with another body: 400 in the envelope, nothing charged', async () => {
    const { key } = await newAccount(stack, '100');
    await submit(key, BODY, 'order-2');
    const other = await submit(key, { ...BODY, prompt: 'a cat' }, 'order-2');
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({
      code: 400,
      data: null,
      message: expect.stringMatching(/different request body/),
    });
    const page = await transactions(key);
    expect(page.body.data.items.filter((item) => item.type === 'charge')).toHaveLength(1);
  });

  it('a key longer than 255 characters or not printable ASCII: 400, nothing charged', async () => {
    const { key } = await newAccount(stack, '100');
    for (const bad of ['k'.repeat(256), 'caf\u00e9']) {
      const response = await submit(key, BODY, bad);
      expect(response.status, bad).toBe(400);
      expect(response.body.message).toMatch(/Idempotency-Key/);
    }
    expect((await transactions(key)).body.data.items.map((item) => item.id)).toEqual(['opening']);
  });

  it('concurrent duplicates: one task, one charge, the others replayed', async () => {
    const { key } = await newAccount(stack, '100');
    const responses = await Promise.all(Array.from({ length: 8 }, () => submit(key, BODY, 'burst')));
    expect(responses.map((response) => response.status)).toEqual(Array(8).fill(200));
    expect(new Set(responses.map((response) => response.body.data.task_id)).size).toBe(1);
    expect(responses.filter((response) => response.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);
    const charges = (await transactions(key)).body.data.items.filter((item) => item.type === 'charge');
    expect(charges).toHaveLength(1);
  });
});

describe('GET /api/v1/account/transactions', () => {
  it('newest first, paged by cursor, in yuan, signed; only the caller’s own', async () => {
    const { accountId, key } = await newAccount(stack, '100');
    const other = await newAccount(stack, '7');
    const submitted: Submitted[] = [];
    for (const prompt of ['one', 'two', 'three']) {
      const response = await submit(key, { ...BODY, prompt });
      expect(response.status).toBe(200);
      submitted.push(response.body.data);
    }
    const requestId = randomUUID();
    expect(
      (await admin('balance:topup', '--account', accountId, '--amount', '5', '--request-id', requestId)).code,
    ).toBe(0);

    const items: Transaction[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await transactions(key, query);
      expect(response.status).toBe(200);
      expect(response.body.data.items.length).toBeLessThanOrEqual(2);
      items.push(...response.body.data.items);
      cursor = response.body.data.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(items.map((item) => item.id)).toEqual([
      `topup:${requestId}`,
      ...submitted.map((task) => `charge:${task.task_id}`).reverse(),
      'opening',
    ]);
    expect(items[0]).toMatchObject({ type: 'topup', amount: 5, task_id: null });
    expect(items[1]).toMatchObject({ type: 'charge', amount: -submitted[2]!.cost, task_id: submitted[2]!.task_id });
    expect(items.at(-1)).toMatchObject({ type: 'topup', amount: 100, task_id: null });
    const sorted = [...items].sort((a, b) => b.created_at.localeCompare(a.created_at));
    expect(items.map((item) => item.created_at)).toEqual(sorted.map((item) => item.created_at));

    // Another account sees its own only; a cursor of this account's is refused there, and reads nothing.
    const theirs = await transactions(other.key);
    expect(theirs.body.data).toEqual({
      items: [expect.objectContaining({ id: 'opening', amount: 7 })],
      next_cursor: null,
    });
    const firstPage = await transactions(key, '?limit=1');
    const stolen = await transactions(other.key, `?cursor=${firstPage.body.data.next_cursor}`);
    expect(stolen.status).toBe(400);
    expect(stolen.body).toMatchObject({ code: 400, data: null, message: expect.stringMatching(/cursor/) });
  });

  it('a bad limit or cursor: 400 invalid request; no key: 401', async () => {
    const { key } = await newAccount(stack, '1');
    for (const query of ['?limit=0', '?limit=101', '?limit=abc', '?cursor=not-a-cursor', '?cursor=%7B%7D', '?page=2']) {
      const response = await transactions(key, query);
      expect(response.status, query).toBe(400);
      expect(response.body, query).toMatchObject({ code: 400, data: null });
    }
    expect((await callApi(stack, 'GET', '/api/v1/account/transactions')).status).toBe(401);
  });
});

describe('cancel twice, and the ledger it leaves', () => {
  it('a second cancel answers 200 with the refunded task; one refund entry; ledger:verify finds no mismatch', async () => {
    const { accountId, key } = await newAccount(stack, '100');
    // The marker keeps the job queued upstream for 30 s, so the cancel lands while it is.
    const created = await submit(key, { ...BODY, prompt: `a fox ${randomUUID()} [simulate:queued]` });
    const taskId = created.body.data.task_id;
    const cancel = () =>
      callApi<{ task_id: string; status: string }>(stack, 'POST', `/api/v1/video/tasks/${taskId}/cancel`, { key });
    // The cancel refuses nothing while the job is queued; until the task has one, it may be refunded without it.
    const first = await pollUntil(cancel, (response) => response.status === 200, { timeoutMs: 60_000 });
    expect(first.body.data).toMatchObject({ task_id: taskId, status: 'refunded' });
    const [second, third] = await Promise.all([cancel(), cancel()]);
    for (const again of [second, third]) {
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
    }
    const items = (await transactions(key)).body.data.items;
    expect(items.filter((item) => item.id === `refund:${taskId}`)).toEqual([
      expect.objectContaining({ type: 'refund', amount: created.body.data.cost, task_id: taskId }),
    ]);

    // This account's: other files share the stack, and some store balances without entries on purpose.
    const verify = await admin('ledger:verify', '--account', accountId);
    expect(verify.out.filter((line) => line.startsWith('mismatch'))).toEqual([]);
    expect(verify.out.at(-1)).toMatch(/1 account\(s\) checked, 0 mismatch\(es\)/);
    expect(verify.code).toBe(0);
  });

  it('balance:topup retried with its request id adds once and says so', async () => {
    const { accountId, key } = await newAccount(stack, '1');
    const generated = await admin('balance:topup', '--account', accountId, '--amount', '2');
    expect(generated.code).toBe(0);
    const requestId = /--request-id ([0-9a-f-]{36})$/m.exec(generated.err.join('\n'))?.[1];
    expect(requestId).toBeDefined();
    const retried = await admin('balance:topup', '--account', accountId, '--amount', '2', '--request-id', requestId!);
    expect(retried.code).toBe(0);
    expect(retried.out.join('\n')).toMatch(/already applied: nothing added/);
    const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key });
    expect(balance.body.data.balance).toBe(3);

    // An operator's correction shows in the customer's listing as an adjustment.
    const adjusted = await admin(
      'balance:adjust',
      '--account',
      accountId,
      '--amount=-0.5',
      '--reason',
      'duplicate top-up',
      '--request-id',
      'adj-1',
    );
    expect(adjusted).toMatchObject({ code: 0, out: [`account ${accountId} balance: 2.5 CNY`] });
    const [latest] = (await transactions(key, '?limit=1')).body.data.items;
    expect(latest).toMatchObject({ id: 'adjustment:adj-1', type: 'adjustment', amount: -0.5, task_id: null });
  });
});
