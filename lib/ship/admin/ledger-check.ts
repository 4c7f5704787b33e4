/**
 * ledger:verify and ledger:backfill (docs/money-and-ledger.md, "Ledger"): for every account, balance = Σ its ledger entries.
 * An account is read, its entries summed (consistent query), then read again: a balance that moved meanwhile
 * is read once more, so a quiet account is judged on one view. Sums are bigints (a stored balance may be).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ledgerEntry, ledgerEntryId } from '../../../functions/core/ledger.js';
import { DynamoDbLedgerAudit } from '../../../functions/adapters/operator/ledger-audit.js';
import type { LedgerTables } from '../../../functions/adapters/operator/ledger-audit.js';
import { AdminError } from './errors.js';
import { verifyTopups } from './topup-check.js';
import type { TopupMismatch } from './topup-check.js';

export type { LedgerTables };

export interface AccountLedger {
  accountId: string;
  balanceUnits: bigint;
  entriesUnits: bigint;
  entries: number;
  /** It has the `opening` entry (account:create or ledger:backfill wrote it). */
  opened: boolean;
}

export interface LedgerReport {
  accounts: number;
  mismatches: AccountLedger[];
  /** Top-ups and their entries that disagree (topup-check.ts): none when every paid order is credited once. */
  topups: TopupMismatch[];
}

const READ_ATTEMPTS = 5;

export async function verifyLedger(
  db: DynamoDBDocumentClient,
  tables: LedgerTables & { topups?: string },
  accountId?: string,
): Promise<LedgerReport> {
  const topups = tables.topups
    ? await verifyTopups(db, { topups: tables.topups, ledger: tables.ledger }, accountId)
    : [];
  if (accountId !== undefined) {
    const ledger = await accountLedger(db, tables, accountId);
    if (!ledger) throw new AdminError(`account ${accountId} does not exist`);
    return { accounts: 1, mismatches: ledger.balanceUnits === ledger.entriesUnits ? [] : [ledger], topups };
  }
  let accounts = 0;
  const mismatches: AccountLedger[] = [];
  for await (const id of new DynamoDbLedgerAudit(db, tables).accountIds()) {
    accounts += 1;
    const ledger = await accountLedger(db, tables, id);
    if (ledger && ledger.balanceUnits !== ledger.entriesUnits) mismatches.push(ledger);
  }
  return { accounts, mismatches, topups };
}

/** The account's balance and the sum of its entries, from one quiet moment; undefined when it does not exist. */
export async function accountLedger(
  db: DynamoDBDocumentClient,
  tables: LedgerTables,
  accountId: string,
): Promise<AccountLedger | undefined> {
  const audit = new DynamoDbLedgerAudit(db, tables);
  let view: AccountLedger | undefined;
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt += 1) {
    const before = await audit.balance(accountId);
    if (before === undefined) return undefined;
    const sum = await audit.entries(accountId);
    const after = await audit.balance(accountId);
    view = { accountId, balanceUnits: after ?? before, ...sum };
    if (before === after) return view;
  }
  return view;
}

/**
 * Writes the `opening` entry (type adjustment) of an account whose balance predates the ledger: the balance
 * less the entries written since, in one transaction conditional on the balance not having moved and on no
 * opening entry. Returns the entry's amount, or undefined when the account already balances.
 */
export async function backfillOpening(
  db: DynamoDBDocumentClient,
  tables: LedgerTables,
  accountId: string,
  now: Date,
): Promise<bigint | undefined> {
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt += 1) {
    const ledger = await accountLedger(db, tables, accountId);
    if (!ledger) throw new AdminError(`account ${accountId} does not exist`);
    if (ledger.balanceUnits === ledger.entriesUnits) return undefined;
    if (ledger.opened) {
      throw new AdminError(
        `account ${accountId} already has an opening entry and still differs from its ledger: look into it`,
      );
    }
    const difference = ledger.balanceUnits - ledger.entriesUnits;
    if (difference > BigInt(Number.MAX_SAFE_INTEGER) || difference < -BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new AdminError(`account ${accountId}: the difference ${difference} units is past what an entry holds`);
    }
    const entry = ledgerEntry(accountId, ledgerEntryId.opening(), 'adjustment', Number(difference), now.toISOString());
    // False: the balance moved (or an opening entry appeared) since the read: judge again.
    if (await new DynamoDbLedgerAudit(db, tables).writeOpening(entry, ledger.balanceUnits)) return difference;
  }
  throw new AdminError(`account ${accountId} kept changing: run ledger:backfill again when it is quiet`);
}
