/**
 * What ledger:verify and ledger:backfill read and write (docs/money-and-ledger.md, "Ledger"): every account id,
 * a balance, the sum of an account's entries (consistent reads; bigints, as a stored balance may be one), and
 * an `opening` entry written only while the balance is still the one seen.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ledgerEntryId } from '../../core/ledger.js';
import type { LedgerEntry } from '../../core/ledger.js';
import { SHARD_OF, shardKey, snapshotShards, sumOf, unitsOf } from '../dynamodb/money-shards.js';
import type { ShardedCounter } from '../dynamodb/money-shards.js';
import { ledgerPut } from '../dynamodb/ledger.js';
import { queryPages, scanPages } from '../dynamodb/paged-query.js';

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
    const pages = scanPages(this.db, {
      TableName: this.tables.accounts,
      // Balance shards are items of the table too (money-shards.ts): not accounts.
      FilterExpression: 'attribute_not_exists(#of)',
      ExpressionAttributeNames: { '#of': SHARD_OF },
      ProjectionExpression: 'account_id',
      ConsistentRead: true,
    });
    for await (const page of pages) {
      for (const item of page.Items ?? []) yield item['account_id'] as string;
    }
  }

  /** The account's balance, the sum of its shards at one instant; undefined when it does not exist. */
  async balance(accountId: string): Promise<bigint | undefined> {
    const shards = await snapshotShards(this.db, this.counter(accountId));
    return shards[0] ? sumOf(shards, 'balance_units') : undefined;
  }

  private counter(accountId: string): ShardedCounter {
    return { table: this.tables.accounts, keyName: 'account_id', id: accountId };
  }

  /** The sum of the account's entries, how many, and whether one is its `opening`. */
  async entries(accountId: string): Promise<{ entriesUnits: bigint; entries: number; opened: boolean }> {
    let entriesUnits = 0n;
    let entries = 0;
    let opened = false;
    const pages = queryPages(this.db, {
      TableName: this.tables.ledger,
      KeyConditionExpression: 'account_id = :account',
      ExpressionAttributeValues: { ':account': accountId },
      ProjectionExpression: 'entry_id, amount_units',
      ConsistentRead: true,
    });
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        entriesUnits += BigInt(item['amount_units'] as number | bigint);
        entries += 1;
        if (item['entry_id'] === ledgerEntryId.opening()) opened = true;
      }
    }
    return { entriesUnits, entries, opened };
  }

  /** Writes the entry if the balance is still `seen` and there is no such entry; false when either changed. */
  async writeOpening(entry: LedgerEntry, seen: bigint): Promise<boolean> {
    const shards = await snapshotShards(this.db, this.counter(entry.account_id));
    if (sumOf(shards, 'balance_units') !== seen) return false;
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            // Every shard as just read: the sum is still `seen`.
            ...shards.map((item, shard) => ({
              ConditionCheck: {
                TableName: this.tables.accounts,
                Key: shardKey(this.counter(entry.account_id), shard),
                ...(item?.['balance_units'] === undefined
                  ? { ConditionExpression: 'attribute_not_exists(balance_units)' }
                  : {
                      ConditionExpression: 'balance_units = :seen',
                      ExpressionAttributeValues: { ':seen': unitsOf(item['balance_units']) },
                    }),
              },
            })),
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
