/**
 * Top-ups end to end (docs/money-and-ledger.md, "Top-ups"): an order over the API, its QR code paid at the Alipay
 * simulator, the signed notification credits the balance once, five copies of it at once included; a notification
 * lost for good is made good by a GET; bad amounts and other accounts' orders are refused; the ledger verifies.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../../functions/adapters/runtime/resources.js';
import { runAdmin } from '../../lib/ship/admin/cli.js';
import { runtimeFile } from '../../lib/ship/admin/target.js';
import { sharedStack } from '../support/shared-stack.js';
import type { SharedStack } from '../support/shared-stack.js';
import { callApi, newAccount, pollUntil } from '../support/test-stack.js';

let stack: SharedStack;
let dataDir: string;
beforeAll(() => {
  stack = sharedStack();
  // What `npm start` writes for the admin CLI: the stack, and the simulator's throwaway keys.
  dataDir = mkdtempSync(join(tmpdir(), 'topups-cli-'));
  writeFileSync(
    runtimeFile(dataDir),
    JSON.stringify({ endpoints: stack.endpoints, names: stack.names, payments: stack.payments }),
  );
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function admin(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const saved = { ...process.env };
  process.env['DATA_DIR'] = dataDir;
  delete process.env['TABLE_PREFIX'];
  delete process.env['ALIPAY_APP_ID'];
  for (const table of Object.values(TABLES)) delete process.env[table.envVar];
  try {
    const code = await runAdmin(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
    return { code, out, err };
  } finally {
    process.env = saved;
  }
}

interface Topup {
  topup_id: string;
  status: string;
  amount: number;
  qr_code: string | null;
  paid_at: string | null;
  trade_no: string | null;
}
interface Notification {
  outTradeNo: string;
  fields: Record<string, string>;
  answer: string;
}

const balanceOf = async (key: string) =>
  (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key })).body.data.balance;
const simulator = async <T>(path: string) => (await (await fetch(`${stack.alipaySimulatorUrl}${path}`)).json()) as T;
const notify = async (fields: Record<string, string>) => {
  const response = await fetch(`${stack.baseUrl}/api/v1/payments/alipay/notify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body: new URLSearchParams(fields).toString(),
  });
  return response.text();
};

async function order(key: string, amount: number): Promise<Topup> {
  const answer = await callApi<Topup>(stack, 'POST', '/api/v1/account/topups', { key, body: { amount } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.data;
}

describe('a top-up paid with Alipay', () => {
  it('is pending with a QR code, then paid once: the balance rises by its amount and the ledger agrees', async () => {
    const { accountId, key } = await newAccount(stack, '0');
    const pending = await order(key, 88.88);
    expect(pending).toMatchObject({ status: 'pending', amount: 88.88, paid_at: null, trade_no: null });
    expect(pending.topup_id).toMatch(/^tp_[0-9a-f]{32}$/);
    expect(pending.qr_code).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/qr\/[0-9a-f]{24}$/);

    // The buyer scans and pays; Alipay's signed notification reaches our notify route and reads `success`.
    const paying = await fetch(`${pending.qr_code}/pay`, { method: 'POST' });
    expect(paying.status).toBe(200);
    const sent = (await simulator<Notification[]>('/simulator/notifications')).filter(
      (notice) => notice.outTradeNo === pending.topup_id,
    );
    expect(sent.map((notice) => notice.answer)).toEqual(['success']);

    const paid = (await callApi<Topup>(stack, 'GET', `/api/v1/account/topups/${pending.topup_id}`, { key })).body.data;
    expect(paid).toMatchObject({ status: 'paid', amount: 88.88, qr_code: null, trade_no: sent[0]!.fields['trade_no'] });
    expect(await balanceOf(key)).toBe(88.88);

    // The same notification five times at once: each is acknowledged, nothing more is added.
    expect(await Promise.all(Array.from({ length: 5 }, () => notify(sent[0]!.fields)))).toEqual(
      Array(5).fill('success'),
    );
    expect(await balanceOf(key)).toBe(88.88);
    const entries = await callApi<{ items: { type: string; amount: number }[] }>(
      stack,
      'GET',
      '/api/v1/account/transactions',
      { key },
    );
    expect(entries.body.data.items.filter((entry) => entry.type === 'topup')).toHaveLength(1);
    expect((await stack.admin.verifyLedger(accountId)).mismatches).toEqual([]);

    const list = await callApi<{ items: Topup[] }>(stack, 'GET', '/api/v1/account/topups?limit=5', { key });
    expect(list.body.data.items.map((item) => [item.topup_id, item.status])).toEqual([[pending.topup_id, 'paid']]);
  });

  it('credits a paid order whose notification never came, once, when it is read', async () => {
    const { key } = await newAccount(stack, '0');
    const pending = await order(key, 10);
    expect((await fetch(`${pending.qr_code}/pay?notify=false`, { method: 'POST' })).status).toBe(200);
    const [first, second] = await Promise.all([
      callApi<Topup>(stack, 'GET', `/api/v1/account/topups/${pending.topup_id}`, { key }),
      callApi<Topup>(stack, 'GET', `/api/v1/account/topups/${pending.topup_id}`, { key }),
    ]);
    expect([first.body.data.status, second.body.data.status]).toEqual(['paid', 'paid']);
    expect(await balanceOf(key)).toBe(10);
  });

  it('refuses a notification changed in any field, or for another amount: nothing credited', async () => {
    const { key } = await newAccount(stack, '0');
    const pending = await order(key, 5);
    expect((await fetch(`${pending.qr_code}/pay?notify=false`, { method: 'POST' })).status).toBe(200);
    // A genuine notification of another paid order, its order id swapped: the signature no longer holds.
    const other = await order((await newAccount(stack, '0')).key, 5);
    await fetch(`${other.qr_code}/pay`, { method: 'POST' });
    const [genuine] = (await simulator<Notification[]>('/simulator/notifications')).filter(
      (notice) => notice.outTradeNo === other.topup_id,
    );
    expect(await notify({ ...genuine!.fields, out_trade_no: pending.topup_id })).toBe('failure');
    expect(await notify({ ...genuine!.fields, total_amount: '500.00' })).toBe('failure');
    expect(await notify({ out_trade_no: pending.topup_id, trade_status: 'TRADE_SUCCESS' })).toBe('failure');
    const trades = await simulator<{ outTradeNo: string; status: string }[]>('/simulator/trades');
    expect(trades.find((trade) => trade.outTradeNo === pending.topup_id)?.status).toBe('TRADE_SUCCESS');
    // Only our own query of Alipay credits it.
    expect(await balanceOf(key)).toBe(0);
    const read = await callApi<Topup>(stack, 'GET', `/api/v1/account/topups/${pending.topup_id}`, { key });
    expect(read.body.data.status).toBe('paid');
    expect(await balanceOf(key)).toBe(5);
  });
});

describe("the operator's top-up commands", () => {
  it('topup:query credits a paid order Alipay never told us about, once; topup:list and ledger:verify agree', async () => {
    const { accountId, key } = await newAccount(stack, '0');
    const pending = await order(key, 20);
    await fetch(`${pending.qr_code}/pay?notify=false`, { method: 'POST' });
    const queried = await admin(['topup:query', '--topup', pending.topup_id]);
    expect(queried.code, queried.err.join('\n')).toBe(0);
    expect(queried.out).toEqual([expect.stringMatching(/^pending → paid \(Alipay trade \d{28}\)$/)]);
    expect((await admin(['topup:query', '--topup', pending.topup_id])).out).toEqual([
      expect.stringMatching(/^paid → paid/),
    ]);
    expect(await balanceOf(key)).toBe(20);
    const listed = await admin(['topup:list', '--account', accountId]);
    expect(listed.out).toEqual([expect.stringContaining(`${pending.topup_id}\t${accountId}\t20 CNY\tpaid\t`)]);
    const verified = await admin(['ledger:verify', '--account', accountId]);
    expect(verified.code).toBe(0);
    expect(verified.out.at(-1)).toMatch(/0 mismatch\(es\); top-ups: 0 mismatch\(es\)/);
  });
});

describe('what a top-up refuses', () => {
  it.each([
    [{ amount: 0 }, /amount must be from 1 to 50000 CNY/],
    [{ amount: -5 }, /amount must be from 1 to 50000 CNY/],
    [{ amount: 10.005 }, /amount must have at most 2 decimals/],
    [{ amount: '100' }, /amount must be a number of CNY from 1 to 50000 CNY/],
    [{ amount: 50_000.01 }, /amount must be from 1 to 50000 CNY/],
    [{}, /amount is required/],
    [{ amount: 10, currency: 'USD' }, /currency is not a top-up field/],
  ])('%j: a 400 naming the field and the bounds, and nothing sent to Alipay', async (body, message) => {
    const { key } = await newAccount(stack, '0');
    const before = (await simulator<unknown[]>('/simulator/trades')).length;
    const answer = await callApi(stack, 'POST', '/api/v1/account/topups', { key, body });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(message);
    expect((await simulator<unknown[]>('/simulator/trades')).length).toBe(before);
  });

  it("answers another account's order as a 404", async () => {
    const { key } = await newAccount(stack, '0');
    const mine = await order(key, 1);
    const stranger = (await newAccount(stack, '0')).key;
    const answer = await callApi(stack, 'GET', `/api/v1/account/topups/${mine.topup_id}`, { key: stranger });
    expect(answer.status).toBe(404);
    await pollUntil(
      async () => (await callApi<Topup>(stack, 'GET', `/api/v1/account/topups/${mine.topup_id}`, { key })).body,
      (body) => body.data.status === 'pending',
    );
  });
});
