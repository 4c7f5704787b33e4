import type { LedgerEntry } from '../ledger.js';

export interface LedgerPage {
  entries: LedgerEntry[];
  /** Opaque; null on the last page. */
  nextCursor: string | null;
}

export interface LedgerRepository {
  /**
   * The account's entries, newest first, at most `limit`, after `cursor` (a previous page's). A cursor that is
   * malformed or not this account's: InvalidRequestError.
   */
  list(accountId: string, limit: number, cursor?: string): Promise<LedgerPage>;
}
