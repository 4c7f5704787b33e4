/**
 * What ledger:verify and the top-up commands read of top-ups (docs/money-and-ledger.md, "Top-ups"): every order,
 * a page at a time, and an account's `topup:tp_…` ledger entries (consistent reads).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { LedgerEntry } from '../../core/ledger.js';
import type { TopupOrder } from '../../core/topup.js';

export class DynamoDbTopupAudit {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: { topups: string; ledger: string },
  ) {}

  async *orders(): AsyncGenerator<TopupOrder> {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new ScanCommand({ TableName: this.tables.topups, ExclusiveStartKey: startKey, ConsistentRead: true }),
      );
      for (const { pending: _pending, ...order } of page.Items ?? []) yield order as unknown as TopupOrder;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }

  /** The account's entries of paid orders (`topup:tp_…`; an operator's balance:topup has other ids). */
  async entries(accountId: string): Promise<LedgerEntry[]> {
    const entries: LedgerEntry[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tables.ledger,
          KeyConditionExpression: 'account_id = :account AND begins_with(entry_id, :prefix)',
          ExpressionAttributeValues: { ':account': accountId, ':prefix': 'topup:tp_' },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      entries.push(...((page.Items ?? []) as LedgerEntry[]));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return entries;
  }
}
