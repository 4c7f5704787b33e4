/**
 * POST /api/v1/account/topups (docs/money-and-ledger.md, "Top-ups"). Primary course: check the amount (CNY, at
 * most 2 decimals, within the operator's bounds) before anything is sent; store the order, pending; ask the
 * gateway for its QR code (out_trade_no = the order id, its notifications to our notify route); answer the
 * order with its code and expiry. A gateway that fails leaves the order closed, and nothing to pay.
 */
import { InternalError } from '../../api-error.js';
import { gatewayAmount, newTopupId, parseTopupAmount, toTopupView } from '../../topup.js';
import type { TopupBounds, TopupOrder, TopupView } from '../../topup.js';
import type { PaymentGateway, TopupStore } from '../../ports/payments.js';

export interface CreateTopupDeps {
  topups: TopupStore;
  gateway: PaymentGateway;
  bounds: TopupBounds;
  expiryMinutes: number;
  notifyUrl: string;
  now: () => Date;
  newId: () => string;
}

export async function createTopup(
  caller: { accountId: string },
  body: unknown,
  deps: CreateTopupDeps,
): Promise<TopupView> {
  const amountUnits = parseTopupAmount(body, deps.bounds);
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + deps.expiryMinutes * 60_000);
  const order: TopupOrder = {
    topup_id: newTopupId(deps.newId),
    account_id: caller.accountId,
    amount_units: amountUnits,
    status: 'pending',
    created_at: now.toISOString(),
    expires_at: expiresAt.toISOString(),
  };
  // Stored first: a paid notification always finds its order, whatever happens after.
  await deps.topups.create(order);
  let qrCode: string;
  try {
    qrCode = await deps.gateway.precreate(
      { id: order.topup_id, amount: gatewayAmount(amountUnits), subject: 'Balance top-up', expiresAt },
      deps.notifyUrl,
    );
  } catch (error) {
    await deps.topups.close(order.topup_id, deps.now().toISOString());
    throw new InternalError(`Alipay did not make the QR code (${(error as Error).message}): try again`);
  }
  await deps.topups.setQrCode(order.topup_id, qrCode);
  return toTopupView({ ...order, qr_code: qrCode });
}
