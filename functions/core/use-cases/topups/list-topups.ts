/**
 * GET /api/v1/account/topups. Primary course: check the page (limit 1–100, default 20; an opaque cursor); read
 * the caller's orders, newest first; answer them and the next page's cursor (null on the last page).
 */
import * as v from 'valibot';
import { InvalidRequestError } from '../../api-error.js';
import { ListTopupsQuerySchema, toTopupView } from '../../topup.js';
import type { TopupView } from '../../topup.js';
import type { TopupStore } from '../../ports/payments.js';

export async function listTopups(
  caller: { accountId: string },
  query: Record<string, string | undefined> | undefined,
  topups: TopupStore,
): Promise<{ items: TopupView[]; next_cursor: string | null }> {
  const parsed = v.safeParse(ListTopupsQuerySchema, query ?? {});
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const key = String(issue.path?.[0]?.key ?? '');
    throw new InvalidRequestError(
      issue.type === 'strict_object' ? `${key} is not a query parameter here: use limit and cursor` : issue.message,
    );
  }
  const limit = parsed.output.limit === undefined ? 20 : Number(parsed.output.limit);
  if (limit < 1 || limit > 100)
    throw new InvalidRequestError(`limit must be a whole number from 1 to 100, got ${limit}`);
  const page = await topups.list(caller.accountId, limit, parsed.output.cursor);
  return { items: page.orders.map(toTopupView), next_cursor: page.nextCursor };
}
