/**
 * Money in from outside: a paid top-up order or a redeemed code (docs/money-and-ledger.md, "Ledger": type
 * `topup`). One transaction, its items in this order, as callers read its cancellation reasons by index:
 * 0 the source's own conditional update, 1 the balance raised within MAX_BALANCE_UNITS, 2 the ledger entry.
 */
import type { DynamoDBDocumentClient, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { LedgerEntry } from '../../core/ledger.js';
import { MAX_BALANCE_UNITS } from '../../core/money.js';
import { inLedgerOrder, ledgerPut, listedAfterLast } from './ledger.js';

type TransactUpdate = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Update']>;

/** Credits `entry.amount_units` to `entry.account_id` together with `source`, sent in ledger order. */
export async function sendBalanceCredit(
  db: DynamoDBDocumentClient,
  tables: { accounts: string; ledger: string },
  entry: LedgerEntry,
  source: TransactUpdate,
): Promise<void> {
  await inLedgerOrder(db, tables.accounts, entry, 1, (listed) => {
    const order = listedAfterLast(listed);
    return db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: source },
          {
            Update: {
              TableName: tables.accounts,
              Key: { account_id: entry.account_id },
              UpdateExpression: `SET balance_units = balance_units + :amount, ${order.set}`,
              ConditionExpression: `attribute_exists(account_id) AND balance_units <= :ceiling AND ${order.condition}`,
              ExpressionAttributeValues: {
                ':amount': entry.amount_units,
                ':ceiling': MAX_BALANCE_UNITS - entry.amount_units,
                ...order.values,
              },
            },
          },
          ledgerPut(tables.ledger, listed),
        ],
      }),
    );
  });
}
