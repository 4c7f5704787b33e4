/**
 * listTransactions (docs/money-and-ledger.md, "Ledger"): the query's limit (1–100, default 20) and cursor are checked after
 * authentication; entries answer in yuan, signed, task_id null when none; the page's cursor is passed on.
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationError, InvalidRequestError } from '../../../functions/core/api-error.js';
import { ledgerEntry, ledgerEntryId } from '../../../functions/core/ledger.js';
import type { LedgerRepository } from '../../../functions/core/ports/ledger.js';
import { listTransactions } from '../../../functions/core/use-cases/list-transactions.js';
import { CALLER } from '../fakes.js';
import { rejection } from '../support.js';

const T0 = '2026-11-21T10:00:00.000Z';

function recordingLedger() {
  const calls: { accountId: string; limit: number; cursor?: string }[] = [];
  const ledger: LedgerRepository = {
    async list(accountId, limit, cursor) {
      calls.push({ accountId, limit, ...(cursor !== undefined && { cursor }) });
      return {
        entries: [
          ledgerEntry(accountId, ledgerEntryId.charge('t-1'), 'charge', -42_000, T0, 't-1'),
          ledgerEntry(accountId, ledgerEntryId.opening(), 'topup', 1_000_000, T0),
        ],
        nextCursor: 'next-page',
      };
    },
  };
  return { ledger, calls };
}

describe('listTransactions', () => {
  it('answers the entries in yuan, newest first as the ledger gives them, with the next cursor', async () => {
    const { ledger, calls } = recordingLedger();
    const page = await listTransactions(CALLER, undefined, ledger);
    expect(page).toEqual({
      items: [
        { id: 'charge:t-1', type: 'charge', amount: -4.2, task_id: 't-1', created_at: T0 },
        { id: 'opening', type: 'topup', amount: 100, task_id: null, created_at: T0 },
      ],
      next_cursor: 'next-page',
    });
    expect(calls).toEqual([{ accountId: CALLER.accountId, limit: 20 }]);
  });

  it('passes limit and cursor on', async () => {
    const { ledger, calls } = recordingLedger();
    await listTransactions(CALLER, { limit: '100', cursor: 'abc' }, ledger);
    await listTransactions(CALLER, { limit: '1' }, ledger);
    expect(calls.map(({ limit, cursor }) => [limit, cursor])).toEqual([
      [100, 'abc'],
      [1, undefined],
    ]);
  });

  it('a bad limit, an empty cursor or an unknown parameter: 400, and the ledger is not read', async () => {
    const { ledger, calls } = recordingLedger();
    for (const query of [{ limit: '0' }, { limit: '101' }, { limit: 'ten' }, { limit: '2.5' }, { limit: '' }]) {
      const error = await rejection(listTransactions(CALLER, query, ledger));
      expect(error, JSON.stringify(query)).toBeInstanceOf(InvalidRequestError);
      expect(error.message).toMatch(/limit must be a whole number from 1 to 100/);
    }
    expect(await rejection(listTransactions(CALLER, { cursor: '' }, ledger))).toBeInstanceOf(InvalidRequestError);
    const unknown = await rejection(listTransactions(CALLER, { limt: '5' }, ledger));
    expect(unknown.message).toBe('unknown query parameter "limt"');
    expect(calls).toEqual([]);
  });

  it('an authentication error wins over a bad query', async () => {
    const { ledger } = recordingLedger();
    const error = await rejection(listTransactions(Promise.reject(new AuthenticationError()), { limit: 'x' }, ledger));
    expect(error).toBeInstanceOf(AuthenticationError);
  });
});
