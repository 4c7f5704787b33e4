/**
 * The operator's side of accounts, keys and balances (the admin CLI, docs/operations.md): an account made with its
 * `opening` entry, marked disabled or active, a balance moved over its shards with its ledger entry in one
 * transaction (docs/money-and-ledger.md, "Balance shards"), and keys found by hash, id or account with consistent reads (scans: few keys,
 * rare admin actions). Refusals come back as values; the caller words them (docs/money-and-ledger.md, "Ledger").
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { LedgerEntry } from '../../core/ledger.js';
import type { AccountRecord, ApiKeyRecord } from '../../core/ports/accounts.js';
import { getItem } from '../dynamodb/consistent-read.js';
import { conditionalUpdate } from '../dynamodb/conditional-write.js';
import { ledgerPut } from '../dynamodb/ledger.js';
import { sendCredit, spread } from '../dynamodb/balance-credit.js';
import { sendDebit } from '../dynamodb/balance-debit.js';
import { MONEY_SHARDS, readBalance, SHARD_OF, shardKey } from '../dynamodb/money-shards.js';
import { withSpend } from '../dynamodb/key-spend.js';
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

  /** The account, its balance the sum of its shards. */
  async account(accountId: string): Promise<OperatorAccount | undefined> {
    const found = await readBalance(this.db, this.tables.accounts, accountId);
    if (!found) return undefined;
    const units = found.units;
    const balance = units <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(units) : units;
    return { ...(found.item as unknown as OperatorAccount), balance_units: balance };
  }

  /** A new account, with its `opening` entry when it starts with money; never over an existing one. */
  async create(
    account: { account_id: string; balance_units: number; created_at: string },
    opening: LedgerEntry | undefined,
  ): Promise<'created' | 'exists' | 'ledger-taken'> {
    const counter = { table: this.tables.accounts, keyName: 'account_id' as const, id: account.account_id };
    const parts = spread(BigInt(account.balance_units), MONEY_SHARDS);
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tables.accounts,
                Item: { ...account, balance_units: parts[0] },
                ConditionExpression: 'attribute_not_exists(account_id)',
              },
            },
            ...(opening ? [ledgerPut(this.tables.ledger, opening)] : []),
            // The opening balance over every shard (a deleted account's shards are replaced, never inherited).
            ...parts.slice(1).map((units, index) => ({
              Put: {
                TableName: this.tables.accounts,
                Item: { ...shardKey(counter, index + 1), [SHARD_OF]: account.account_id, balance_units: units },
              },
            })),
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
    const ledger = ledgerPut(this.tables.ledger, entry);
    try {
      if (bound.comparison === '<=') {
        // A credit: shard 0, the sum at most `room` before (balance-credit.ts); items: shard 0, the entry.
        await sendCredit(
          this.db,
          this.tables.accounts,
          entry.account_id,
          entry.amount_units,
          BigInt(bound.room),
          [],
          [ledger],
        );
        return 'moved';
      }
      // A debit: drawn from the shards as a charge is, never below `room` (0) in sum; items: the entry, shards.
      const taken = -entry.amount_units;
      await sendDebit(
        this.db,
        this.tables.accounts,
        entry.account_id,
        taken,
        1,
        (items) => this.db.send(new TransactWriteCommand({ TransactItems: [ledger, ...items] })),
        { settleBy: Date.now() + 8_000, outOfTime: () => new Error('refused'), short: () => new Error('refused') },
      );
      return 'moved';
    } catch (error) {
      if (error instanceof Error && error.message === 'refused') return 'refused';
      const [first, second] = failedConditions(error);
      const entryExists = bound.comparison === '<=' ? second : first;
      if (entryExists) return 'duplicate';
      if (bound.comparison === '<=' && first) return 'refused';
      throw error;
    }
  }

  ledgerEntry(accountId: string, entryId: string): Promise<LedgerEntry | undefined> {
    return getItem<LedgerEntry>(this.db, this.tables.ledger, { account_id: accountId, entry_id: entryId });
  }

  async keyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const key = await getItem<ApiKeyRecord>(this.db, this.tables.apiKeys, { key_hash: keyHash });
    return key && withSpend(this.db, this.tables.apiKeys, key);
  }

  /** Keys whose `field` is `value` (`account_id` or `key_id`), from a consistent scan. */
  async keysWhere(field: 'account_id' | 'key_id', value: string): Promise<ApiKeyRecord[]> {
    const keys = await allItems<ApiKeyRecord>(
      scanPages(this.db, {
        TableName: this.tables.apiKeys,
        FilterExpression: `${field} = :value`,
        ExpressionAttributeValues: { ':value': value },
        ConsistentRead: true,
      }),
    );
    return Promise.all(keys.map((key) => withSpend(this.db, this.tables.apiKeys, key)));
  }
}
