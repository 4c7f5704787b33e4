/**
 * ledger:verify and ledger:backfill (docs/money-and-ledger.md, "Ledger"): for every account, balance = Σ its ledger entries.
 * An account is read, its entries summed (consistent query), then read again: a balance that moved meanwhile
 * is read once more, so a quiet account is judged on one view. Sums are bigints (a stored balance may be).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, QueryCommand, ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ledgerEntry, ledgerEntryId } from '../../functions/core/ledger.js';
import { ledgerPut } from '../../functions/adapters/dynamodb-ledger.js';
import { AdminError } from './errors.js';

export interface LedgerTables {
  accounts: string;
  ledger: string;
}

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
}

const READ_ATTEMPTS = 5;

export async function verifyLedger(
  db: DynamoDBDocumentClient,
  tables: LedgerTables,
  accountId?: string,
): Promise<LedgerReport> {
  if (accountId !== undefined) {
    const ledger = await accountLedger(db, tables, accountId);
    if (!ledger) throw new AdminError(`account ${accountId} does not exist`);
    return { accounts: 1, mismatches: ledger.balanceUnits === ledger.entriesUnits ? [] : [ledger] };
  }
  let accounts = 0;
  const mismatches: AccountLedger[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tables.accounts,
        ProjectionExpression: 'account_id',
        ExclusiveStartKey: startKey,
        ConsistentRead: true,
      }),
    );
    for (const item of page.Items ?? []) {
      accounts += 1;
      const ledger = await accountLedger(db, tables, item['account_id'] as string);
      if (ledger && ledger.balanceUnits !== ledger.entriesUnits) mismatches.push(ledger);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { accounts, mismatches };
}

/** The account's balance and the sum of its entries, from one quiet moment; undefined when it does not exist. */
export async function accountLedger(
  db: DynamoDBDocumentClient,
  tables: LedgerTables,
  accountId: string,
): Promise<AccountLedger | undefined> {
  let view: AccountLedger | undefined;
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt += 1) {
    const before = await balance(db, tables.accounts, accountId);
    if (before === undefined) return undefined;
    const sum = await sumEntries(db, tables.ledger, accountId);
    const after = await balance(db, tables.accounts, accountId);
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
    try {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: tables.accounts,
                Key: { account_id: accountId },
                ConditionExpression: 'balance_units = :seen',
                ExpressionAttributeValues: { ':seen': ledger.balanceUnits },
              },
            },
            ledgerPut(tables.ledger, entry),
          ],
        }),
      );
      return difference;
    } catch (error) {
      // The balance moved (or an opening entry appeared) since the read: judge again.
      if (!(error instanceof TransactionCanceledException)) throw error;
    }
  }
  throw new AdminError(`account ${accountId} kept changing: run ledger:backfill again when it is quiet`);
}

async function balance(db: DynamoDBDocumentClient, table: string, accountId: string): Promise<bigint | undefined> {
  const { Item } = await db.send(
    new GetCommand({
      TableName: table,
      Key: { account_id: accountId },
      ProjectionExpression: 'balance_units',
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  return BigInt((Item['balance_units'] as number | bigint | undefined) ?? 0);
}

async function sumEntries(
  db: DynamoDBDocumentClient,
  table: string,
  accountId: string,
): Promise<{ entriesUnits: bigint; entries: number; opened: boolean }> {
  let entriesUnits = 0n;
  let entries = 0;
  let opened = false;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'account_id = :account',
        ExpressionAttributeValues: { ':account': accountId },
        ProjectionExpression: 'entry_id, amount_units',
        ExclusiveStartKey: startKey,
        ConsistentRead: true,
      }),
    );
    for (const item of page.Items ?? []) {
      entriesUnits += BigInt(item['amount_units'] as number | bigint);
      entries += 1;
      if (item['entry_id'] === ledgerEntryId.opening()) opened = true;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { entriesUnits, entries, opened };
}
