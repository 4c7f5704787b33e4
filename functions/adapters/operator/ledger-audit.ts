/**
 * What ledger:verify and ledger:backfill read and write (docs/money-and-ledger.md, "Ledger"): every account id,
 * a balance, the sum of an account's entries (consistent reads; bigints, as a stored balance may be one), and
 * an `opening` entry written only while the balance is still the one seen.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, QueryCommand, ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ledgerEntryId } from '../../core/ledger.js';
import type { LedgerEntry } from '../../core/ledger.js';
import { ledgerPut } from '../dynamodb/ledger.js';

export interface LedgerTables {
  accounts: string;
  ledger: string;
}

export class DynamoDbLedgerAudit {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: LedgerTables,
  ) {}

  /** Every account id, a page at a time. */
  async *accountIds(): AsyncGenerator<string> {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new ScanCommand({
          TableName: this.tables.accounts,
          ProjectionExpression: 'account_id',
          ExclusiveStartKey: startKey,
          ConsistentRead: true,
        }),
      );
      for (const item of page.Items ?? []) yield item['account_id'] as string;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }

  /** The account's balance; undefined when it does not exist. */
  async balance(accountId: string): Promise<bigint | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tables.accounts,
        Key: { account_id: accountId },
        ProjectionExpression: 'balance_units',
        ConsistentRead: true,
      }),
    );
    if (!Item) return undefined;
    return BigInt((Item['balance_units'] as number | bigint | undefined) ?? 0);
  }

  /** The sum of the account's entries, how many, and whether one is its `opening`. */
  async entries(accountId: string): Promise<{ entriesUnits: bigint; entries: number; opened: boolean }> {
    let entriesUnits = 0n;
    let entries = 0;
    let opened = false;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tables.ledger,
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

  /** Writes the entry if the balance is still `seen` and there is no such entry; false when either changed. */
  async writeOpening(entry: LedgerEntry, seen: bigint): Promise<boolean> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.tables.accounts,
                Key: { account_id: entry.account_id },
                ConditionExpression: 'balance_units = :seen',
                ExpressionAttributeValues: { ':seen': seen },
              },
            },
            ledgerPut(this.tables.ledger, entry),
          ],
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof TransactionCanceledException) return false;
      throw error;
    }
  }
}
