/**
 * The ledger in DynamoDB (functions/core/ledger.ts): `ledgerPut` is the item every balance movement adds to its
 * own transaction, sent by `inLedgerOrder`; DynamoDbLedger lists an account's entries newest first through LEDGER_BY_TIME_INDEX, paged
 * by an opaque cursor (base64url of the page's last key, checked to be the caller's own).
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import * as v from 'valibot';
import { InvalidRequestError } from '../../core/api-error.js';
import { listedAfter } from '../../core/ledger.js';
import { parseJsonOr } from '../../core/parse-json.js';
import type { LedgerEntry } from '../../core/ledger.js';
import type { LedgerPage, LedgerRepository } from '../../core/ports/ledger.js';
import { LEDGER_BY_TIME_INDEX } from '../runtime/resources.js';
import { conditionFailedAt } from './transaction-cancellation.js';
import { isConflict } from './transaction-retry.js';

/** The entry, written at most once: a second movement with the same cause fails the whole transaction. */
export function ledgerPut(table: string, entry: LedgerEntry) {
  return { Put: { TableName: table, Item: entry, ConditionExpression: 'attribute_not_exists(entry_id)' } };
}

/**
 * The account item's part of a movement's transaction: the entry is listed after the account's last one, and is
 * now its last one. With the entry's Put in the same transaction, listing order is commit order.
 */
export function listedAfterLast(entry: LedgerEntry): {
  condition: string;
  set: string;
  values: Record<string, string>;
} {
  return {
    condition: '(attribute_not_exists(ledger_listed_at) OR ledger_listed_at < :listed_at)',
    set: 'ledger_listed_at = :listed_at',
    values: { ':listed_at': entry.listed_at },
  };
}

const RETRY_FOR_MS = 6_000;
const BASE_DELAY_MS = 10;
const MAX_DELAY_MS = 500;

/**
 * Sends a movement's transaction, built by `move` around `entry` (with listedAfterLast on the account item, number
 * `accountItem` of the transaction), for up to 6 s: when the account item refused it because an entry listed later
 * committed first (its time was taken before ours committed), again with the entry listed after that one; after a
 * random wait when it collided with another transaction (TransactionConflict: the SDK does not retry it). Any other
 * failure is `move`'s own; `beforeRetry` may end the retries by throwing. Only a cancelled transaction is sent
 * again: it did not commit.
 */
export async function inLedgerOrder<T>(
  db: DynamoDBDocumentClient,
  accountsTable: string,
  entry: LedgerEntry,
  accountItem: number,
  move: (entry: LedgerEntry) => Promise<T>,
  beforeRetry?: () => Promise<void>,
): Promise<T> {
  const deadline = Date.now() + RETRY_FOR_MS;
  let listed = entry;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await move(listed);
    } catch (error) {
      const conflict = isConflict(error);
      const refused = conditionFailedAt(error, accountItem);
      if ((!conflict && !refused) || Date.now() >= deadline) throw error;
      if (refused) {
        const last = await lastListedAt(db, accountsTable, entry.account_id);
        // Refused for another of its conditions (the balance, the account gone): that is the answer.
        if (last === undefined || last < listed.listed_at) throw error;
      }
      // Full jitter, then the time of the new try: many movements refused at once spread out, each listed at
      // the moment it is sent again, so they rarely come in out of order again.
      await sleep(Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt));
      await beforeRetry?.();
      if (refused) {
        const last = await lastListedAt(db, accountsTable, entry.account_id);
        listed = listedAfter(listed, last ?? listed.listed_at, new Date());
      }
    }
  }
}

async function lastListedAt(db: DynamoDBDocumentClient, table: string, accountId: string): Promise<string | undefined> {
  // The plain client's form: the item's balance may be past what a JavaScript number holds (older data).
  const { Item } = await db.send(
    new GetItemCommand({
      TableName: table,
      Key: { account_id: { S: accountId } },
      ProjectionExpression: 'ledger_listed_at',
      ConsistentRead: true,
    }),
  );
  return Item?.['ledger_listed_at']?.S;
}

/** A page's last key on the index: the table's key and the index's. */
const CursorSchema = v.strictObject({
  account_id: v.pipe(v.string(), v.minLength(1)),
  entry_id: v.pipe(v.string(), v.minLength(1)),
  listed_at: v.pipe(v.string(), v.minLength(1)),
});
type Cursor = v.InferOutput<typeof CursorSchema>;

export function encodeLedgerCursor(entry: Cursor): string {
  const key: Cursor = { account_id: entry.account_id, entry_id: entry.entry_id, listed_at: entry.listed_at };
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** The key to start after; a 400 for anything else, another account's cursor included (it reads nothing). */
export function decodeLedgerCursor(cursor: string, accountId: string): Cursor {
  const invalid = new InvalidRequestError('invalid cursor: pass next_cursor from the previous page as it is');
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid;
  const json = parseJsonOr(Buffer.from(cursor, 'base64url').toString('utf8'), () => invalid);
  const parsed = v.safeParse(CursorSchema, json);
  if (!parsed.success || parsed.output.account_id !== accountId) throw invalid;
  return parsed.output;
}

export class DynamoDbLedger implements LedgerRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async list(accountId: string, limit: number, cursor?: string): Promise<LedgerPage> {
    const start = cursor === undefined ? undefined : decodeLedgerCursor(cursor, accountId);
    // One more than asked: a next page is promised only when there is one.
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: LEDGER_BY_TIME_INDEX.name,
        KeyConditionExpression: 'account_id = :account',
        ExpressionAttributeValues: { ':account': accountId },
        ScanIndexForward: false,
        Limit: limit + 1,
        ...(start && { ExclusiveStartKey: start }),
      }),
    );
    const entries = (Items as LedgerEntry[]).slice(0, limit);
    const last = entries.at(-1);
    return { entries, nextCursor: Items.length > limit && last ? encodeLedgerCursor(last) : null };
  }
}
