/**
 * Top-up orders (docs/money-and-ledger.md, "Top-ups"): a customer asks for an amount, pays it by scanning a QR
 * code, and the payment gateway's verified word credits the balance once. Amounts are whole fen (2 decimals);
 * the bounds are operator settings.
 */
import * as v from 'valibot';
import { InvalidRequestError } from './api-error.js';
import { UNITS_PER_YUAN, unitsToYuan } from './money.js';

export const TOPUP_STATUSES = ['pending', 'paid', 'closed'] as const;
export type TopupStatus = (typeof TOPUP_STATUSES)[number];

/** A top-up order as stored. `amount_units` is in money units (0.0001 CNY), always whole fen. */
export interface TopupOrder {
  topup_id: string;
  account_id: string;
  amount_units: number;
  status: TopupStatus;
  created_at: string;
  expires_at: string;
  /** What the buyer scans; absent until the gateway made it. */
  qr_code?: string;
  /** The gateway's trade number, once paid. */
  trade_no?: string;
  paid_at?: string;
  closed_at?: string;
}

export interface TopupBounds {
  minUnits: number;
  maxUnits: number;
}

const UNITS_PER_FEN = UNITS_PER_YUAN / 100;

/** The amount a customer asks for: a JSON number of yuan with at most 2 decimals, within the bounds. */
export function parseTopupAmount(body: unknown, bounds: TopupBounds): number {
  const range = `from ${unitsToYuan(bounds.minUnits)} to ${unitsToYuan(bounds.maxUnits)} CNY`;
  const schema = v.strictObject({
    amount: v.pipe(
      v.number(`amount must be a number of CNY ${range}, with at most 2 decimals`),
      v.finite(`amount must be a number of CNY ${range}`),
    ),
  });
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidRequestError(`the body must be a JSON object such as {"amount": 100} (CNY, ${range})`);
  }
  const parsed = v.safeParse(schema, body);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const key = issue.path?.[0]?.key;
    if (issue.type === 'strict_object' && key !== 'amount') {
      throw new InvalidRequestError(`${String(key)} is not a top-up field: send {"amount": …} only`);
    }
    throw new InvalidRequestError(
      body && 'amount' in body ? issue.message : `amount is required: a number of CNY ${range}`,
    );
  }
  const { amount } = parsed.output;
  const fen = Math.round(amount * 100);
  if (Math.abs(amount * 100 - fen) > 1e-6 || !Number.isSafeInteger(fen)) {
    throw new InvalidRequestError(`amount must have at most 2 decimals (fen), ${range}`);
  }
  const units = fen * UNITS_PER_FEN;
  if (units < bounds.minUnits || units > bounds.maxUnits) {
    throw new InvalidRequestError(`amount must be ${range}, got ${amount}`);
  }
  return units;
}

/** Yuan as the gateway writes amounts: exactly 2 decimals ("100.00"). */
export function gatewayAmount(units: number): string {
  const fen = units / UNITS_PER_FEN;
  if (!Number.isSafeInteger(fen)) throw new RangeError(`${units} units are not whole fen`);
  return `${Math.floor(fen / 100)}.${String(fen % 100).padStart(2, '0')}`;
}

/** Whether the gateway's amount text ("100.00", "100.0", "100") is exactly the order's. */
export function sameAmount(units: number, text: string | undefined): boolean {
  if (text === undefined || !/^\d{1,9}(\.\d{1,2})?$/.test(text)) return false;
  const [whole = '0', fraction = ''] = text.split('.');
  return (Number(whole) * 100 + Number(fraction.padEnd(2, '0'))) * UNITS_PER_FEN === units;
}

/** An order id: also the gateway's `out_trade_no` (letters, digits and underscores, at most 64). */
export function newTopupId(random: () => string): string {
  return `tp_${random().replace(/-/g, '')}`;
}

export const TopupViewSchema = v.strictObject({
  topup_id: v.pipe(v.string(), v.description('The order id (also the `out_trade_no` Alipay shows)')),
  status: v.pipe(v.picklist(TOPUP_STATUSES), v.description('pending until paid; closed when it expired unpaid')),
  amount: v.pipe(v.number(), v.description('CNY')),
  qr_code: v.pipe(v.nullable(v.string()), v.description('What the buyer scans in Alipay, while pending')),
  created_at: v.string(),
  expires_at: v.pipe(v.string(), v.description('An unpaid order is closed then, here and at Alipay')),
  paid_at: v.nullable(v.string()),
  trade_no: v.pipe(v.nullable(v.string()), v.description("Alipay's trade number, once paid")),
});
export type TopupView = v.InferOutput<typeof TopupViewSchema>;

export function toTopupView(order: TopupOrder): TopupView {
  return {
    topup_id: order.topup_id,
    status: order.status,
    amount: unitsToYuan(order.amount_units),
    qr_code: order.status === 'pending' ? (order.qr_code ?? null) : null,
    created_at: order.created_at,
    expires_at: order.expires_at,
    paid_at: order.paid_at ?? null,
    trade_no: order.trade_no ?? null,
  };
}

/** POST /account/topups's body, as documented (parseTopupAmount checks it, with the bounds in its messages). */
export const TopupRequestSchema = v.strictObject({
  amount: v.pipe(
    v.number(),
    v.description("CNY, at most 2 decimals, within the operator's bounds (1 to 50,000 unless configured otherwise)"),
  ),
});

/** GET /account/topups's query: `limit` 1–100 (default 20), `cursor` as a previous page's `next_cursor` gave it. */
export const ListTopupsQuerySchema = v.strictObject({
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,3}$/, 'limit must be a whole number from 1 to 100'))),
  cursor: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,512}$/, 'cursor must be the next_cursor of the previous page')),
  ),
});

export const TopupListSchema = v.strictObject({
  items: v.array(TopupViewSchema),
  next_cursor: v.pipe(v.nullable(v.string()), v.description('Pass as `cursor` for the next page; null on the last')),
});
