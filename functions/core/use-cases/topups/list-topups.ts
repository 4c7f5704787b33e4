/**
 * GET /api/v1/account/topups. Primary course: check the page (limit 1–100, default 20; an opaque cursor); read
 * the caller's orders, newest first; answer them and the next page's cursor (null on the last page).
 */
import { InvalidRequestError } from '../../api-error.js';
import { toTopupView } from '../../topup.js';
import type { TopupView } from '../../topup.js';
import type { TopupStore } from '../../ports/payments.js';

export async function listTopups(
  caller: { accountId: string },
  query: Record<string, string | undefined> | undefined,
  topups: TopupStore,
): Promise<{ items: TopupView[]; next_cursor: string | null }> {
  const { limit: limitText, cursor, ...rest } = query ?? {};
  const unknown = Object.keys(rest)[0];
  if (unknown) throw new InvalidRequestError(`${unknown} is not a query parameter here: use limit and cursor`);
  const limit = limitText === undefined ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new InvalidRequestError(`limit must be a whole number from 1 to 100, got "${limitText}"`);
  }
  if (cursor !== undefined && !/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) {
    throw new InvalidRequestError('cursor must be the next_cursor of the previous page');
  }
  const page = await topups.list(caller.accountId, limit, cursor);
  return { items: page.orders.map(toTopupView), next_cursor: page.nextCursor };
}
