/**
 * Top-ups' ports (docs/money-and-ledger.md, "Top-ups"): the orders with their one credit, and the payment
 * gateway that makes the QR code, reports a trade and signs its notifications.
 */
import type { TopupOrder } from '../topup.js';

/** What the gateway knows of an order. */
export type TradeState =
  /** No trade yet: a precreated order exists at the gateway only once the buyer scans its code. */
  | { kind: 'none' }
  | { kind: 'waiting' }
  | { kind: 'paid'; tradeNo: string; totalAmount: string; paidAt?: string }
  | { kind: 'closed' };

export interface PaymentGateway {
  /** Makes the order's QR code; the gateway reports its payment to `notifyUrl`. */
  precreate(
    order: { id: string; amount: string; subject: string; expiresAt: Date },
    notifyUrl: string,
  ): Promise<string>;
  query(orderId: string): Promise<TradeState>;
  /** Closes an unpaid order: `paid` when it was paid meanwhile (nothing closed), `none` when it never existed. */
  close(orderId: string): Promise<'closed' | 'none' | 'paid'>;
  /** Whether a notification's fields carry the gateway's valid signature. */
  verifyNotification(fields: Readonly<Record<string, string>>): Promise<boolean>;
}

export type CreditOutcome =
  /** This call moved the order to paid, raised the balance and wrote `topup:<order>`. */
  | { kind: 'credited'; order: TopupOrder }
  /** It was paid before (by another call): nothing was added now. */
  | { kind: 'paid-before'; order: TopupOrder };

export interface TopupPage {
  orders: TopupOrder[];
  nextCursor: string | null;
}

export interface TopupStore {
  create(order: TopupOrder): Promise<void>;
  /** The order, by id alone (a notification names no account). */
  get(topupId: string): Promise<TopupOrder | undefined>;
  setQrCode(topupId: string, qrCode: string): Promise<void>;
  /** The account's orders, newest first. */
  list(accountId: string, limit: number, cursor?: string): Promise<TopupPage>;
  /**
   * One transaction: the order moves to paid with the trade, the balance rises by its amount and the ledger
   * entry `topup:<order>` is written; a second call for the same order adds nothing.
   */
  credit(topupId: string, trade: { tradeNo: string; paidAt: string }): Promise<CreditOutcome>;
  /** pending → closed; false when it is no longer pending. */
  close(topupId: string, at: string): Promise<boolean>;
  /** Orders still pending, oldest expiry first (the sweep's). */
  pending(limit: number): Promise<TopupOrder[]>;
}
