/**
 * GET /api/v1/account/topups/{topup_id}. Primary course: find the caller's order (another account's is a 404);
 * a pending one is asked of the gateway, so a lost notification still ends in its one credit, and an expired
 * one is closed; answer it.
 */
import { NotFoundError } from '../../api-error.js';
import { toTopupView } from '../../topup.js';
import type { TopupView } from '../../topup.js';
import { settleTopup } from './settle-topup.js';
import type { SettleDeps } from './settle-topup.js';

export async function getTopup(caller: { accountId: string }, topupId: string, deps: SettleDeps): Promise<TopupView> {
  const order = /^tp_[0-9a-f]{32}$/.test(topupId) ? await deps.topups.get(topupId) : undefined;
  if (!order || order.account_id !== caller.accountId) throw new NotFoundError(`top-up ${topupId} does not exist`);
  return toTopupView(await settleTopup(order, deps));
}
