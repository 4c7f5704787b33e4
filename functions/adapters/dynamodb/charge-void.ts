/**
 * A charge settled by its deadline either way (docs/money-and-ledger.md, "A submit answers what it charged"):
 * the charge's transaction checks that its void mark is absent; at the deadline the submit puts the mark, then
 * reads its task. Either the task exists (the charge committed first: answer 200) or the mark came first and the
 * charge, still in flight, can never commit (answer that nothing was charged).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TransactItem } from './balance-debit.js';
import { getItem } from './consistent-read.js';
import { isConditionFailed } from './conditional-write.js';

/** Kept a day: far past any charge still in flight (the idempotency table's TTL removes it). */
const VOID_KEPT_SECONDS = 86_400;

const voidId = (taskId: string) => `charge-void:${taskId}`;

/** The charge transaction's check: no void mark for its task. */
export function notVoided(table: string, taskId: string): TransactItem {
  return {
    ConditionCheck: { TableName: table, Key: { id: voidId(taskId) }, ConditionExpression: 'attribute_not_exists(id)' },
  };
}

/** Marks the charge void unless its task exists; true when it committed (the task exists) after all. */
export async function voidUnlessCharged(
  db: DynamoDBDocumentClient,
  tables: { idempotency: string; tasks: string },
  taskId: string,
): Promise<boolean> {
  const mark = new PutCommand({
    TableName: tables.idempotency,
    Item: { id: voidId(taskId), expires_at: Math.floor(Date.now() / 1000) + VOID_KEPT_SECONDS },
    ConditionExpression: 'attribute_not_exists(id)',
  });
  for (let attempt = 1; ; attempt += 1) {
    try {
      await db.send(mark);
      break;
    } catch (error) {
      // Marked already (a second call): the task decides as below. In a transaction right now: wait it out.
      if (isConditionFailed(error)) break;
      const conflict = error instanceof Error && error.name === 'TransactionConflictException';
      if (!conflict || attempt >= 20) throw error;
      await sleep(Math.random() * 20 * attempt);
    }
  }
  return (await getItem(db, tables.tasks, { task_id: taskId })) !== undefined;
}
