/**
 * The operator's side of accounts, keys and balances (the admin CLI, docs/operations.md): an account made with its
 * `opening` entry, marked disabled or active, a balance moved with its ledger entry in one transaction (listed in
 * commit order by inLedgerOrder), and keys found by hash, id or account with consistent reads (scans: few keys,
 * rare admin actions). Refusals come back as values; the caller words them (docs/money-and-ledger.md, "Ledger").
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { LedgerEntry } from '../../core/ledger.js';
import type { AccountRecord, ApiKeyRecord } from '../../core/ports/accounts.js';
import { getItem } from '../dynamodb/consistent-read.js';
import { conditionalUpdate } from '../dynamodb/conditional-write.js';
import { inLedgerOrder, ledgerPut, listedAfterLast } from '../dynamodb/ledger.js';
import { allItems, scanPages } from '../dynamodb/paged-query.js';
import { failedConditions } from '../dynamodb/transaction-cancellation.js';

/**
 * The account item as the operator sees it. `status` is the operator's own mark (absent: active): authentication
 * never reads it (it reads only the key, in one round trip), so disabling an account disables its keys, and
 * the mark keeps new or re-enabled keys from bringing it back by accident.
 */
export interface OperatorAccount extends Omit<AccountRecord, 'balance_units'> {
  /** A bigint when the stored number is past 2^53 (only data older than the balance bound can be). */
  balance_units: number | bigint;
  status?: 'active' | 'disabled';
}

/** A movement's bound on the balance: at most `room` before adding, or at least `room` before taking away. */
export interface BalanceBound {
  comparison: '<=' | '>=';
  room: number;
}

export class DynamoDbOperatorAccounts {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: { accounts: string; ledger: string; apiKeys: string },
  ) {}

  account(accountId: string): Promise<OperatorAccount | undefined> {
    return getItem<OperatorAccount>(this.db, this.tables.accounts, { account_id: accountId });
  }

  /** A new account, with its `opening` entry when it starts with money; never over an existing one. */
  async create(
    account: { account_id: string; balance_units: number; created_at: string },
    opening: LedgerEntry | undefined,
  ): Promise<'created' | 'exists' | 'ledger-taken'> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tables.accounts,
                // The first entry is the account's last listed one (listedAfterLast).
                Item: { ...account, ...(opening && { ledger_listed_at: opening.listed_at }) },
                ConditionExpression: 'attribute_not_exists(account_id)',
              },
            },
            ...(opening ? [ledgerPut(this.tables.ledger, opening)] : []),
          ],
        }),
      );
      return 'created';
    } catch (error) {
      const [accountExists, entryExists] = failedConditions(error);
      if (accountExists) return 'exists';
      // Entries outlive their account only if one was deleted by hand: the new account must not inherit them.
      if (entryExists) return 'ledger-taken';
      throw error;
    }
  }

  /** Sets the operator's mark; false when there is no such account. */
  async setStatus(accountId: string, status: 'active' | 'disabled'): Promise<boolean> {
    return conditionalUpdate(this.db, {
      TableName: this.tables.accounts,
      Key: { account_id: accountId },
      UpdateExpression: 'SET #status = :status',
      ConditionExpression: 'attribute_exists(account_id)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': status },
    });
  }

  /**
   * Adds `entry.amount_units` to the balance with the entry, conditional on the account existing and the bound.
   * `duplicate`: the entry exists (a retry; nothing moved); `refused`: no account, out of bounds, or later
   * entries kept committing first for the whole retry time.
   */
  async move(entry: LedgerEntry, bound: BalanceBound): Promise<'moved' | 'duplicate' | 'refused'> {
    const write = (listed: LedgerEntry) => {
      const order = listedAfterLast(listed);
      return this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tables.accounts,
                Key: { account_id: entry.account_id },
                UpdateExpression: `SET ${order.set} ADD balance_units :amount`,
                ConditionExpression: `attribute_exists(account_id) AND balance_units ${bound.comparison} :room AND ${order.condition}`,
                ExpressionAttributeValues: { ':amount': entry.amount_units, ':room': bound.room, ...order.values },
              },
            },
            ledgerPut(this.tables.ledger, listed),
          ],
        }),
      );
    };
    try {
      // Concurrent movements of one account collide, or one listed later commits first: each is tried again.
      await inLedgerOrder(this.db, this.tables.accounts, entry, 0, write);
      return 'moved';
    } catch (error) {
      const [accountRefused, entryExists] = failedConditions(error);
      if (entryExists) return 'duplicate';
      if (accountRefused) return 'refused';
      throw error;
    }
  }

  ledgerEntry(accountId: string, entryId: string): Promise<LedgerEntry | undefined> {
    return getItem<LedgerEntry>(this.db, this.tables.ledger, { account_id: accountId, entry_id: entryId });
  }

  keyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return getItem<ApiKeyRecord>(this.db, this.tables.apiKeys, { key_hash: keyHash });
  }

  /** Keys whose `field` is `value` (`account_id` or `key_id`), from a consistent scan. */
  keysWhere(field: 'account_id' | 'key_id', value: string): Promise<ApiKeyRecord[]> {
    return allItems(
      scanPages(this.db, {
        TableName: this.tables.apiKeys,
        FilterExpression: `${field} = :value`,
        ExpressionAttributeValues: { ':value': value },
        ConsistentRead: true,
      }),
    );
  }
}
