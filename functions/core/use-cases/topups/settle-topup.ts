/**
 * What the gateway's report of an order does to it: paid (the amount equal to the order's) credits it once;
 * an order past its expiry that nobody paid is closed at the gateway, then here. Shared by a GET of the
 * order and the sweep; a notification credits through the same store.
 */
import { sameAmount } from '../../topup.js';
import type { TopupOrder } from '../../topup.js';
import type { PaymentGateway, TopupStore, TradeState } from '../../ports/payments.js';

export interface TopupReports {
  credited(order: TopupOrder, via: 'notification' | 'query'): void;
  /** A report that credits nothing though it says paid: an amount or app that does not match, a bad signature. */
  refused(reason: string, details: Record<string, string | undefined>): void;
  closed(order: TopupOrder): void;
}

export interface SettleDeps {
  topups: TopupStore;
  gateway: PaymentGateway;
  reports: TopupReports;
  now: () => Date;
}

/** Credits a paid trade whose amount is the order's, once; anything else paid is refused and reported. */
export async function creditPaid(
  order: TopupOrder,
  trade: Extract<TradeState, { kind: 'paid' }>,
  via: 'notification' | 'query',
  deps: SettleDeps,
): Promise<TopupOrder | undefined> {
  if (!sameAmount(order.amount_units, trade.totalAmount)) {
    deps.reports.refused('the paid amount differs from the order', {
      topup_id: order.topup_id,
      trade_no: trade.tradeNo,
      total_amount: trade.totalAmount,
    });
    return undefined;
  }
  const outcome = await deps.topups.credit(order.topup_id, {
    tradeNo: trade.tradeNo,
    paidAt: trade.paidAt ?? deps.now().toISOString(),
  });
  if (outcome.kind === 'credited') deps.reports.credited(outcome.order, via);
  return outcome.order;
}

/** Asks the gateway about a pending order: credits it if paid, closes it on both sides once expired. */
export async function settleTopup(order: TopupOrder, deps: SettleDeps): Promise<TopupOrder> {
  if (order.status !== 'pending') return order;
  const trade = await deps.gateway.query(order.topup_id);
  if (trade.kind === 'paid') return (await creditPaid(order, trade, 'query', deps)) ?? order;
  const expired = Date.parse(order.expires_at) <= deps.now().getTime();
  if (!expired && trade.kind !== 'closed') return order;
  const closed = trade.kind === 'closed' ? 'closed' : await deps.gateway.close(order.topup_id);
  // Paid between the query and the close: the next query credits it (the GET's, or the sweep's).
  if (closed === 'paid') return order;
  if (await deps.topups.close(order.topup_id, deps.now().toISOString())) deps.reports.closed(order);
  return (await deps.topups.get(order.topup_id)) ?? order;
}
