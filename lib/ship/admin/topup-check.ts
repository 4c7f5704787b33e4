/**
 * ledger:verify's side of top-ups (docs/money-and-ledger.md, "Top-ups"): every paid order has exactly one ledger
 * entry `topup:<order>` of its amount on its account, and every such entry has its paid order.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbTopupAudit } from '../../../functions/adapters/operator/topup-audit.js';
import { ledgerEntryId } from '../../../functions/core/ledger.js';

export interface TopupMismatch {
  topupId: string;
  accountId: string;
  problem: string;
}

export async function verifyTopups(
  db: DynamoDBDocumentClient,
  tables: { topups: string; ledger: string },
  accountId?: string,
): Promise<TopupMismatch[]> {
  const audit = new DynamoDbTopupAudit(db, tables);
  const orders = new Map<string, { accountId: string; amountUnits: number; status: string }>();
  const accounts = new Set<string>(accountId ? [accountId] : []);
  for await (const order of audit.orders()) {
    if (accountId && order.account_id !== accountId) continue;
    orders.set(order.topup_id, { accountId: order.account_id, amountUnits: order.amount_units, status: order.status });
    accounts.add(order.account_id);
  }
  const mismatches: TopupMismatch[] = [];
  const credited = new Set<string>();
  for (const account of accounts) {
    for (const entry of await audit.entries(account)) {
      const topupId = entry.entry_id.slice(ledgerEntryId.topup('').length);
      const order = orders.get(topupId);
      credited.add(topupId);
      if (!order) mismatches.push({ topupId, accountId: account, problem: 'a ledger entry without its order' });
      else if (order.accountId !== account)
        mismatches.push({ topupId, accountId: account, problem: "credited to another account than the order's" });
      else if (order.status !== 'paid')
        mismatches.push({ topupId, accountId: account, problem: `credited, but the order is ${order.status}` });
      else if (entry.amount_units !== order.amountUnits)
        mismatches.push({ topupId, accountId: account, problem: 'credited another amount than the order' });
    }
  }
  for (const [topupId, order] of orders) {
    if (order.status === 'paid' && !credited.has(topupId)) {
      mismatches.push({ topupId, accountId: order.accountId, problem: 'paid, but never credited' });
    }
  }
  return mismatches;
}
