/**
 * GET /api/v1/account/transactions (docs/money-and-ledger.md, "Ledger"). Primary course: check the query (limit 1–100, default
 * 20; an opaque cursor) while the caller is authenticated; read one page of the caller's ledger, newest first;
 * answer the entries in yuan and the next page's cursor (null on the last page).
 */
import { parseTransactionsQuery, toTransactionView } from '../ledger.js';
import type { TransactionsPage } from '../ledger.js';
import type { LedgerRepository } from '../ports/ledger.js';
import type { AccountCaller } from './authenticate.js';

export async function listTransactions(
  authenticated: AccountCaller | Promise<AccountCaller>,
  query: Record<string, string | undefined> | undefined,
  ledger: LedgerRepository,
): Promise<TransactionsPage> {
  let parsed: ReturnType<typeof parseTransactionsQuery> | undefined;
  let invalid: unknown;
  try {
    parsed = parseTransactionsQuery(query);
  } catch (error) {
    invalid = error;
  }
  // Nothing, not even a 400 for the query, is answered before authentication succeeds.
  const caller = await authenticated;
  if (!parsed) throw invalid;
  const page = await ledger.list(caller.accountId, parsed.limit, parsed.cursor);
  return { items: page.entries.map(toTransactionView), next_cursor: page.nextCursor };
}
