/**
 * An account's tasks from the account index (TASKS_BY_ACCOUNT_INDEX), newest first (or oldest, when asked). A status filter is a
 * FilterExpression, applied after the read: the list keeps reading until a page is full or the account's tasks
 * end, and stops (with a cursor) after MAX_EVALUATED tasks so a rare status never makes one request read them all.
 * One key's tasks (`keyHash`) are read from TASKS_BY_KEY_INDEX instead, still only the account's.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TASKS_BY_ACCOUNT_INDEX, TASKS_BY_KEY_INDEX } from '../runtime/resources.js';
import type {
  ListedTask,
  TaskList,
  TaskListOptions,
  TaskListPage,
  TaskListPosition,
} from '../../core/ports/task-list.js';

/** Tasks read (before the filter) by one request at most: five reads of FILTERED_BATCH. */
export const MAX_EVALUATED = 1000;
/** Tasks read at a time under a status filter: many fewer round trips than `limit` when few match. */
const FILTERED_BATCH = 200;

export class DynamoDbTaskList implements TaskList {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async listByAccount(accountId: string, options: TaskListOptions): Promise<TaskListPage> {
    const { limit, after, order, keyHash } = options;
    const filter = filterOf(options);
    const tasks: ListedTask[] = [];
    // An index's start key is exactly the table's key and the index's.
    const keyOf = (position: TaskListPosition) =>
      keyHash
        ? { key_hash: keyHash, created_at: position.created_at, task_id: position.task_id }
        : positionOf(position);
    let startKey: Record<string, unknown> | undefined = after && keyOf(after);
    let evaluated = 0;
    for (;;) {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: keyHash ? TASKS_BY_KEY_INDEX.name : TASKS_BY_ACCOUNT_INDEX.name,
          KeyConditionExpression: keyHash ? '#key = :key' : '#account = :account',
          ...(filter && { FilterExpression: filter.expression }),
          ExpressionAttributeNames: {
            '#account': 'account_id',
            ...(keyHash ? { '#key': 'key_hash' } : {}),
            ...filter?.names,
          },
          ExpressionAttributeValues: {
            ':account': accountId,
            ...(keyHash ? { ':key': keyHash } : {}),
            ...filter?.values,
          },
          ScanIndexForward: order === 'asc',
          // One more than the page needs: a page that ends with the account's last task gets no cursor.
          Limit: filter ? FILTERED_BATCH : limit + 1 - tasks.length,
          ExclusiveStartKey: startKey,
        }),
      );
      evaluated += page.ScannedCount ?? 0;
      for (const item of page.Items ?? []) {
        if (tasks.length === limit) return { tasks, next: positionOf(tasks[limit - 1] as ListedTask) };
        tasks.push(item as ListedTask);
      }
      startKey = page.LastEvaluatedKey;
      if (!startKey) return { tasks, next: null };
      // Full, and only a filter's read stops here: whether one more matches is the next page's question.
      if (tasks.length === limit) return { tasks, next: positionOf(tasks[limit - 1] as ListedTask) };
      if (evaluated >= MAX_EVALUATED) {
        return { tasks, next: { ...positionOf(startKey as TaskListPosition), account_id: accountId } };
      }
    }
  }
}

/** The filters as one expression on what the index projects (the status, the generation), or undefined. */
function filterOf(options: TaskListOptions) {
  // The key's index is keyed by the key alone: the account is checked on every task all the same.
  const parts: string[] = options.keyHash ? ['#account = :account'] : [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (options.status) {
    parts.push('#status = :status');
    names['#status'] = 'status';
    values[':status'] = options.status;
  }
  if (options.model) {
    parts.push('#generation.#modelName = :model');
    Object.assign(names, { '#generation': 'generation', '#modelName': 'modelName' });
    values[':model'] = options.model;
  }
  if (options.metadata) {
    parts.push('#generation.#metadata.#metaKey = :metaValue');
    Object.assign(names, { '#generation': 'generation', '#metadata': 'metadata', '#metaKey': options.metadata[0] });
    values[':metaValue'] = options.metadata[1];
  }
  return parts.length > 0 ? { expression: parts.join(' AND '), names, values } : undefined;
}

/** The index's key of a task (its own key and the index's): where a page starts or ends. */
function positionOf(task: TaskListPosition): TaskListPosition {
  return { account_id: task.account_id, created_at: task.created_at, task_id: task.task_id };
}
