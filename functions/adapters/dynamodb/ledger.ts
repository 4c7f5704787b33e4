/**
 * The ledger in DynamoDB (functions/core/ledger.ts): `ledgerPut` is the item every balance movement adds to its
 * own transaction; DynamoDbLedger lists an account's entries newest first through LEDGER_BY_TIME_INDEX (by
 * `listed_at`, time then entry id), paged by an opaque cursor (base64url of the page's last key, the caller's own).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { InvalidRequestError } from '../../core/api-error.js';
import { parseJsonOr } from '../../core/parse-json.js';
import type { LedgerEntry } from '../../core/ledger.js';
import type { LedgerPage, LedgerRepository } from '../../core/ports/ledger.js';
import { LEDGER_BY_TIME_INDEX } from '../runtime/resources.js';

/** The entry, written at most once: a second movement with the same cause fails the whole transaction. */
export function ledgerPut(table: string, entry: LedgerEntry) {
  return { Put: { TableName: table, Item: entry, ConditionExpression: 'attribute_not_exists(entry_id)' } };
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
