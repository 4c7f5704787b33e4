/**
 * Runs the backfills (backfills.ts) after an upgrade's index changes: per rule, a paged scan for the records it
 * names, each rewritten by a conditional update under the same filter, so a record that moved on since its
 * scan is left alone and a second run rewrites nothing. A dry run counts and changes nothing.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLES } from '../runtime/resources.js';
import type { TableDefinition, TableId } from '../runtime/resources.js';
import { conditionalUpdate } from '../dynamodb/conditional-write.js';
import { scanPages } from '../dynamodb/paged-query.js';
import { BACKFILLS } from './backfills.js';
import type { Backfill } from './backfills.js';

export interface BackfillOptions {
  dryRun: boolean;
  log(line: string): void;
  /** Between a record's scan and its rewrite: where a test lets a live writer move the record on. */
  beforeRewrite?(record: Record<string, unknown>): Promise<void>;
}

/** Returns how many records were rewritten (or would be, in a dry run). */

export async function backfillAll(
  db: DynamoDBDocumentClient,
  tables: Record<TableId, string>,
  options: BackfillOptions,
) {
  let rewritten = 0;
  for (const backfill of BACKFILLS) rewritten += await runBackfill(db, tables[backfill.table], backfill, options);
  return rewritten;
}

/** A paged scan for the records the backfill names, each updated under the same condition; returns the count. */
async function runBackfill(db: DynamoDBDocumentClient, table: string, backfill: Backfill, options: BackfillOptions) {
  let rewritten = 0;
  const pages = scanPages(db, {
    TableName: table,
    FilterExpression: backfill.filter,
    ExpressionAttributeNames: backfill.names,
    ExpressionAttributeValues: backfill.values,
  });
  for await (const page of pages) {
    for (const record of page.Items ?? []) {
      if (!options.dryRun) {
        await options.beforeRewrite?.(record);
        if (!(await rewrite(db, table, backfill, record))) continue;
      }
      rewritten += 1;
    }
  }
  if (rewritten > 0) {
    options.log(
      `${options.dryRun ? 'would backfill' : 'backfilled'} ${rewritten} record${rewritten === 1 ? '' : 's'} of ${table} for index ${backfill.index}`,
    );
  }
  return rewritten;
}

async function rewrite(db: DynamoDBDocumentClient, table: string, backfill: Backfill, record: Record<string, unknown>) {
  const keys = Object.entries(backfill.keys(record));
  const definition: TableDefinition = TABLES[backfill.table];
  const keyNames = [definition.partitionKey, ...(definition.sortKey ? [definition.sortKey] : [])];
  const key = Object.fromEntries(keyNames.map((name) => [name, record[name]]));
  // False when the record moved on since the scan (finished, delivered): it needs nothing now.
  return conditionalUpdate(db, {
    TableName: table,
    Key: key,
    UpdateExpression: `SET ${keys.map((_, n) => `#set${n} = :set${n}`).join(', ')}`,
    ConditionExpression: backfill.filter,
    ExpressionAttributeNames: {
      ...backfill.names,
      ...Object.fromEntries(keys.map(([name], n) => [`#set${n}`, name])),
    },
    ExpressionAttributeValues: {
      ...backfill.values,
      ...Object.fromEntries(keys.map(([, value], n) => [`:set${n}`, value])),
    },
  });
}
