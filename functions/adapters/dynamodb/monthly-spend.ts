/**
 * An account's spend since a date, summed from its ledger through LEDGER_BY_TIME_INDEX (`listed_at` starts
 * with the entry's time), reading only type and amount. Charges and refunds count; top-ups do not.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MonthlySpend } from '../../core/ports/console.js';
import { LEDGER_BY_TIME_INDEX } from '../runtime/resources.js';
import { queryPages } from './paged-query.js';

export class DynamoDbMonthlySpend implements MonthlySpend {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async since(accountId: string, since: string): Promise<{ spentUnits: number; charges: number }> {
    let spentUnits = 0;
    let charges = 0;
    const pages = queryPages(this.db, {
      TableName: this.table,
      IndexName: LEDGER_BY_TIME_INDEX.name,
      KeyConditionExpression: 'account_id = :account AND listed_at >= :since',
      FilterExpression: '#type IN (:charge, :refund)',
      ProjectionExpression: '#type, amount_units',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':account': accountId, ':since': since, ':charge': 'charge', ':refund': 'refund' },
    });
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        spentUnits -= item['amount_units'] as number;
        if (item['type'] === 'charge') charges += 1;
      }
    }
    return { spentUnits, charges };
  }
}
