/**
 * Top-up codes in DynamoDB (docs/console.md), by the SHA-256 of the code. A redeem is one transaction: the code
 * marked used by the account (conditional on being unused and unexpired), the balance raised (conditional on
 * staying within MAX_BALANCE_UNITS) and the ledger entry `redeem:<code id>`, so a code adds once.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ledgerEntry, ledgerEntryId } from '../../core/ledger.js';
import type { RedeemCodeStore, RedeemOutcome } from '../../core/ports/console.js';
import { sendBalanceCredit } from './balance-credit.js';
import { getItem } from './consistent-read.js';
import { readBalance } from './money-shards.js';
import { failedConditions } from './transaction-cancellation.js';

export interface RedeemCodeRecord {
  code_hash: string;
  code_id: string;
  amount_units: number;
  created_at: string;
  expires_at?: string;
  redeemed_by?: string;
  redeemed_at?: string;
}

export class DynamoDbRedeemCodes implements RedeemCodeStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: { redeemCodes: string; accounts: string; ledger: string },
  ) {}

  /** The operator's side (admin code:create): a new code, never overwriting one. */
  async create(record: RedeemCodeRecord): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tables.redeemCodes,
        Item: record,
        ConditionExpression: 'attribute_not_exists(code_hash)',
      }),
    );
  }

  async redeem(accountId: string, codeHash: string, now: Date): Promise<RedeemOutcome> {
    const code = await this.read(codeHash);
    if (!code) return { kind: 'unknown' };
    if (code.redeemed_by !== undefined) {
      if (code.redeemed_by !== accountId) return { kind: 'used' };
      return {
        kind: 'redeemed',
        amountUnits: code.amount_units,
        balanceUnits: await this.balance(accountId),
        redeemedBefore: code.redeemed_at ?? 'an earlier time',
      };
    }
    if (code.expires_at !== undefined && Date.parse(code.expires_at) <= now.getTime()) return { kind: 'expired' };
    const at = now.toISOString();
    const entry = ledgerEntry(accountId, ledgerEntryId.redeem(code.code_id), 'topup', code.amount_units, at);
    try {
      await sendBalanceCredit(this.db, this.tables, entry, {
        TableName: this.tables.redeemCodes,
        Key: { code_hash: codeHash },
        UpdateExpression: 'SET redeemed_by = :account, redeemed_at = :at',
        ConditionExpression: 'attribute_exists(code_hash) AND attribute_not_exists(redeemed_by)',
        ExpressionAttributeValues: { ':account': accountId, ':at': at },
      });
    } catch (error) {
      const [codeUsed, balanceRefused] = failedConditions(error);
      // Another request redeemed it first (this account's double click, or someone else).
      if (codeUsed) return this.redeem(accountId, codeHash, now);
      if (balanceRefused) return { kind: 'too-large' };
      throw error;
    }
    return { kind: 'redeemed', amountUnits: code.amount_units, balanceUnits: await this.balance(accountId) };
  }

  private read(codeHash: string): Promise<RedeemCodeRecord | undefined> {
    return getItem(this.db, this.tables.redeemCodes, { code_hash: codeHash });
  }

  private async balance(accountId: string): Promise<number> {
    return Number((await readBalance(this.db, this.tables.accounts, accountId))?.units ?? 0n);
  }
}
