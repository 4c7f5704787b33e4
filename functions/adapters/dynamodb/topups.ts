/**
 * Top-up orders in DynamoDB (docs/money-and-ledger.md, "Top-ups"). A credit is one transaction: the order moved
 * to paid (conditional on not being paid), the balance raised and the ledger entry `topup:<order>` put
 * (conditional on not existing), so an order credits once however many notifications and queries race.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { InvalidRequestError } from '../../core/api-error.js';
import { ledgerEntry, ledgerEntryId } from '../../core/ledger.js';
import type { CreditOutcome, TopupPage, TopupStore } from '../../core/ports/payments.js';
import type { TopupOrder } from '../../core/topup.js';
import { TOPUPS_BY_ACCOUNT_INDEX, TOPUPS_PENDING_INDEX } from '../runtime/resources.js';
import { sendBalanceCredit } from './balance-credit.js';
import { conditionalUpdate } from './conditional-write.js';
import { getItem } from './consistent-read.js';
import { failedConditions } from './transaction-cancellation.js';

/** The value of the sparse `pending` key: every pending order in one small partition (orders are few). */
const PENDING = 'pending';

export class DynamoDbTopups implements TopupStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: { topups: string; accounts: string; ledger: string },
  ) {}

  async create(order: TopupOrder): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tables.topups,
        Item: { ...order, pending: PENDING },
        ConditionExpression: 'attribute_not_exists(topup_id)',
      }),
    );
  }

  async get(topupId: string): Promise<TopupOrder | undefined> {
    const item = await getItem<Record<string, unknown>>(this.db, this.tables.topups, { topup_id: topupId });
    return item ? toOrder(item) : undefined;
  }

  async setQrCode(topupId: string, qrCode: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tables.topups,
        Key: { topup_id: topupId },
        UpdateExpression: 'SET qr_code = :qr',
        ConditionExpression: 'attribute_exists(topup_id)',
        ExpressionAttributeValues: { ':qr': qrCode },
      }),
    );
  }

  async list(accountId: string, limit: number, cursor?: string): Promise<TopupPage> {
    const { Items = [], LastEvaluatedKey } = await this.db.send(
      new QueryCommand({
        TableName: this.tables.topups,
        IndexName: TOPUPS_BY_ACCOUNT_INDEX.name,
        KeyConditionExpression: 'account_id = :account',
        ExpressionAttributeValues: { ':account': accountId },
        ScanIndexForward: false,
        Limit: limit,
        ...(cursor && { ExclusiveStartKey: decodeCursor(cursor, accountId) }),
      }),
    );
    return {
      orders: Items.map(toOrder),
      nextCursor: LastEvaluatedKey && Items.length === limit ? encodeCursor(LastEvaluatedKey) : null,
    };
  }

  async credit(topupId: string, trade: { tradeNo: string; paidAt: string }): Promise<CreditOutcome> {
    const order = await this.get(topupId);
    if (!order) throw new Error(`top-up ${topupId} does not exist`);
    if (order.status === 'paid') return { kind: 'paid-before', order };
    const entry = ledgerEntry(
      order.account_id,
      ledgerEntryId.topup(topupId),
      'topup',
      order.amount_units,
      new Date().toISOString(),
    );
    try {
      await sendBalanceCredit(this.db, this.tables, entry, {
        TableName: this.tables.topups,
        Key: { topup_id: topupId },
        // A closed order a verified payment reaches is paid all the same: the money arrived.
        UpdateExpression: 'SET #status = :paid, trade_no = :trade, paid_at = :at REMOVE pending',
        ConditionExpression: 'attribute_exists(topup_id) AND #status <> :paid',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':paid': 'paid', ':trade': trade.tradeNo, ':at': trade.paidAt },
      });
    } catch (error) {
      const [orderPaid, , entryWritten] = failedConditions(error);
      // Another call credited it first: its order is paid, its entry written.
      if (orderPaid || entryWritten) {
        const now = await this.get(topupId);
        if (now?.status === 'paid') return { kind: 'paid-before', order: now };
      }
      throw error;
    }
    const paid = await this.get(topupId);
    return {
      kind: 'credited',
      order: paid ?? { ...order, status: 'paid', trade_no: trade.tradeNo, paid_at: trade.paidAt },
    };
  }

  async close(topupId: string, at: string): Promise<boolean> {
    return conditionalUpdate(this.db, {
      TableName: this.tables.topups,
      Key: { topup_id: topupId },
      UpdateExpression: 'SET #status = :closed, closed_at = :at REMOVE pending',
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':closed': 'closed', ':pending': 'pending', ':at': at },
    });
  }

  async pending(limit: number): Promise<TopupOrder[]> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tables.topups,
        IndexName: TOPUPS_PENDING_INDEX.name,
        KeyConditionExpression: 'pending = :pending',
        ExpressionAttributeValues: { ':pending': PENDING },
        Limit: limit,
      }),
    );
    // The index may lag a credit or close: the table's item decides.
    const orders = await Promise.all(Items.map((item) => this.get(String(item['topup_id']))));
    return orders.filter((order): order is TopupOrder => order?.status === 'pending');
  }
}

function toOrder(item: Record<string, unknown>): TopupOrder {
  const { pending: _pending, ...order } = item;
  return order as unknown as TopupOrder;
}

function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string, accountId: string): Record<string, unknown> {
  const invalid = new InvalidRequestError('invalid cursor: pass next_cursor from the previous page as it is');
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    const valid =
      key['account_id'] === accountId &&
      typeof key['topup_id'] === 'string' &&
      typeof key['created_at'] === 'string' &&
      Object.keys(key).length === 3;
    if (!valid) throw invalid;
    return key;
  } catch {
    throw invalid;
  }
}
