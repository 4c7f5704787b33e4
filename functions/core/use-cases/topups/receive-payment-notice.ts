/**
 * POST /api/v1/payments/alipay/notify, Alipay's asynchronous notification (docs/money-and-ledger.md,
 * "Top-ups"). Primary course: verify the signature with Alipay's key; check the app id, the order, the amount
 * and a paying trade status; credit the order once; answer `success`, so Alipay stops sending it. Anything
 * else credits nothing: it is reported (and alarmed), and answered `failure` when worth another try.
 */
import { creditPaid } from './settle-topup.js';
import type { SettleDeps } from './settle-topup.js';

/** Alipay counts only these as the buyer having paid. */
const PAYING = new Set(['TRADE_SUCCESS', 'TRADE_FINISHED']);

export async function receivePaymentNotice(
  fields: Readonly<Record<string, string>>,
  deps: SettleDeps & { appId: string },
): Promise<'success' | 'failure'> {
  const details = {
    out_trade_no: fields['out_trade_no'],
    trade_no: fields['trade_no'],
    trade_status: fields['trade_status'],
    total_amount: fields['total_amount'],
    app_id: fields['app_id'],
    notify_id: fields['notify_id'],
  };
  if (!(await deps.gateway.verifyNotification(fields))) {
    deps.reports.refused('the signature does not verify with the Alipay key', details);
    return 'failure';
  }
  if (fields['app_id'] !== deps.appId) {
    deps.reports.refused('the notification is for another app', details);
    return 'failure';
  }
  const orderId = fields['out_trade_no'] ?? '';
  const order = /^tp_[0-9a-f]{32}$/.test(orderId) ? await deps.topups.get(orderId) : undefined;
  if (!order) {
    deps.reports.refused('no such order', details);
    return 'failure';
  }
  const status = fields['trade_status'] ?? '';
  // A trade waiting for payment or closed unpaid moves no money: acknowledged, nothing to do.
  if (!PAYING.has(status)) return 'success';
  const tradeNo = fields['trade_no'];
  if (!tradeNo) {
    deps.reports.refused('a paid notification without trade_no', details);
    return 'failure';
  }
  const paidAt = fields['gmt_payment'] ? beijingTime(fields['gmt_payment']) : undefined;
  const credited = await creditPaid(
    order,
    { kind: 'paid', tradeNo, totalAmount: fields['total_amount'] ?? '', ...(paidAt && { paidAt }) },
    'notification',
    deps,
  );
  return credited ? 'success' : 'failure';
}

/** Alipay's times are Beijing time, "yyyy-MM-dd HH:mm:ss": as ISO UTC, or undefined if malformed. */
function beijingTime(text: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!match) return undefined;
  const time = Date.parse(`${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}+08:00`);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}
