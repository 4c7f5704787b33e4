/**
 * Top-ups against DynamoDB Local and the Alipay simulator, through the official SDK (docs/money-and-ledger.md,
 * "Top-ups"): an order expires closed on both sides; a paid amount that differs credits nothing; two credits
 * interleaved at every step credit once; the sweep makes good a notification lost for good.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlipayGateway } from '../../functions/adapters/alipay/alipay-gateway.js';
import { DynamoDbTopups } from '../../functions/adapters/dynamodb/topups.js';
import type { TopupStore } from '../../functions/core/ports/payments.js';
import { createTopup } from '../../functions/core/use-cases/topups/create-topup.js';
import { getTopup } from '../../functions/core/use-cases/topups/get-topup.js';
import { receivePaymentNotice } from '../../functions/core/use-cases/topups/receive-payment-notice.js';
import type { TopupReports } from '../../functions/core/use-cases/topups/settle-topup.js';
import { sweepTopups } from '../../functions/core/use-cases/topups/sweep-topups.js';
import { AdminStore } from '../../lib/ship/admin/admin-store.js';
import { startAlipaySimulator } from '../../lib/dev/simulators/alipay/simulator.js';
import type { RunningAlipaySimulator } from '../../lib/dev/simulators/alipay/simulator.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { storedBalance as storedBalanceOf } from '../support/stored-money.js';

const local = useDynamoDbLocal('topups');
const APP_ID = '2021000000000042';
const pair = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
const app = pair();
const alipay = pair();

let clock = Date.now();
let simulator: RunningAlipaySimulator;
let gateway: AlipayGateway;
const refused: string[] = [];
const reports: TopupReports = {
  credited: () => {},
  refused: (reason) => refused.push(reason),
  closed: () => {},
};

beforeAll(async () => {
  simulator = await startAlipaySimulator({
    appId: APP_ID,
    appPublicKey: app.publicKey,
    alipayPrivateKey: alipay.privateKey,
    now: () => clock,
    notifyRetryMs: [],
  });
  gateway = new AlipayGateway({
    gatewayUrl: simulator.gatewayUrl,
    appId: APP_ID,
    // Bare base64, as Alipay's key tool shows it: the adapter must take it as the docs say.
    appPrivateKey: app.privateKey.replace(/-----[A-Z ]+-----|\s/g, ''),
    alipayPublicKey: alipay.publicKey,
    timeoutMs: 5_000,
  });
});
afterAll(() => simulator?.close());

function depsWith(topups: TopupStore = new DynamoDbTopups(local.db, local.names.tables)) {
  return {
    topups,
    gateway,
    reports,
    now: () => new Date(clock),
    bounds: { minUnits: 10_000, maxUnits: 500_000_000 },
    expiryMinutes: 15,
    notifyUrl: 'http://127.0.0.1:9/unreachable',
    newId: randomUUID,
    appId: APP_ID,
    batch: 50,
  };
}

async function account() {
  const accountId = `acct-${randomUUID().slice(0, 8)}`;
  await new AdminStore(local.db, local.names.tables).createAccount(accountId, '0');
  return accountId;
}

async function balanceUnits(accountId: string): Promise<number> {
  return (await storedBalanceOf(local.db, local.names.tables.accounts, accountId)) as number;
}

describe('top-ups with the official SDK against the Alipay simulator', () => {
  it('closes an order nobody paid once it expires, here and at Alipay: its code then pays nothing', async () => {
    const accountId = await account();
    const deps = depsWith();
    const order = await createTopup({ accountId }, { amount: 30 }, deps);
    // Precreated only: Alipay has no trade until the code is scanned.
    const trade = simulator.trades().find((t) => t.outTradeNo === order.topup_id)!;
    expect(trade.status).toBe('none');
    expect((await getTopup({ accountId }, order.topup_id, deps)).status).toBe('pending');

    clock += 16 * 60_000;
    expect(await sweepTopups(deps)).toMatchObject({ closed: 1, paid: 0 });
    expect((await getTopup({ accountId }, order.topup_id, deps)).status).toBe('closed');
    await expect(simulator.pay(order.topup_id)).rejects.toThrow(/closed/);
    expect(await balanceUnits(accountId)).toBe(0);
  });

  it('credits nothing when Alipay reports another amount paid, and says so', async () => {
    const accountId = await account();
    const deps = depsWith();
    const order = await createTopup({ accountId }, { amount: 12.34 }, deps);
    await simulator.pay(order.topup_id, { notify: false });
    const paid = simulator.trades().find((t) => t.outTradeNo === order.topup_id)!;
    const forged = simulator.signNotification({
      app_id: APP_ID,
      out_trade_no: order.topup_id,
      trade_no: paid.tradeNo!,
      trade_status: 'TRADE_SUCCESS',
      total_amount: '1234.00',
    });
    refused.length = 0;
    expect(await receivePaymentNotice(forged, deps)).toBe('failure');
    expect(refused).toEqual(['the paid amount differs from the order']);
    expect(await balanceUnits(accountId)).toBe(0);
    // The same notification for another app: refused before the order is looked at.
    refused.length = 0;
    const otherApp = simulator.signNotification({ ...forged, app_id: '2021000000000099' });
    expect(await receivePaymentNotice(otherApp, deps)).toBe('failure');
    expect(refused).toEqual(['the notification is for another app']);
  });

  it('credits once when two credits interleave at every step: notification and sweep, either first', async () => {
    for (const firstCommits of ['notification', 'sweep'] as const) {
      const accountId = await account();
      const store = new DynamoDbTopups(local.db, local.names.tables);
      const order = await createTopup({ accountId }, { amount: 7 }, depsWith(store));
      await simulator.pay(order.topup_id, { notify: false });
      const trade = simulator.trades().find((t) => t.outTradeNo === order.topup_id)!;
      const notice = simulator.signNotification({
        app_id: APP_ID,
        out_trade_no: order.topup_id,
        trade_no: trade.tradeNo!,
        trade_status: 'TRADE_SUCCESS',
        total_amount: trade.totalAmount,
      });
      // Both read the order pending; the one held waits at its credit until the other has committed.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let reached!: () => void;
      const atCredit = new Promise<void>((resolve) => (reached = resolve));
      const holding: TopupStore = {
        ...bound(store),
        credit: async (id, paidTrade) => {
          if (id === order.topup_id) {
            reached();
            await held;
          }
          return store.credit(id, paidTrade);
        },
      };
      const slow = firstCommits === 'notification' ? 'sweep' : 'notification';
      const run = (who: 'notification' | 'sweep', topups: TopupStore) =>
        who === 'notification'
          ? receivePaymentNotice(notice, depsWith(topups))
          : sweepTopups({ ...depsWith(topups), batch: 500 });
      const waiting = run(slow, holding);
      await atCredit;
      await run(firstCommits, store);
      release();
      await waiting;
      expect(await balanceUnits(accountId), firstCommits).toBe(70_000);
      expect((await store.get(order.topup_id))?.status).toBe('paid');
    }
  });
});

/** The store's methods bound to it, to wrap one of them. */
function bound(store: DynamoDbTopups): TopupStore {
  return {
    create: (order) => store.create(order),
    get: (id) => store.get(id),
    setQrCode: (id, qr) => store.setQrCode(id, qr),
    list: (accountId, limit, cursor) => store.list(accountId, limit, cursor),
    credit: (id, trade) => store.credit(id, trade),
    close: (id, at) => store.close(id, at),
    pending: (limit) => store.pending(limit),
  };
}
