/**
 * GET /api/v1/video/tasks (docs/api-contract.md, "Listing tasks"): the caller's tasks, newest first, a page at a time.
 * Primary course: check the query (limit, status, cursor) → one read of the account's index → each task's view
 * as the status query shows it (an expired video URL signed again), without its live reads (upstream status,
 * queue position) → the page and the cursor of the next one.
 */
import * as v from 'valibot';
import { InvalidRequestError } from '../api-error.js';
import type { TaskList, TaskListPosition } from '../ports/task-list.js';
import type { TaskRepository } from '../ports/task-repository.js';
import type { VideoUrlSigner } from '../ports/video-storage.js';
import { toTaskView } from '../task.js';
import type { TaskView } from '../task.js';
import { TASK_STATUSES } from '../task-status.js';
import type { AccountCaller } from './authenticate.js';
import { withFreshVideoUrl } from './get-task.js';

export const DEFAULT_LIST_LIMIT = 20;
export const MAX_LIST_LIMIT = 100;
/** A cursor is ours (about 150 characters); anything much longer is not one. */
const MAX_CURSOR_LENGTH = 512;

/** The query string, one schema per parameter (API Gateway joins a repeated parameter with commas). */
/** A list's `limit` from its query string: 1 to MAX_LIST_LIMIT, DEFAULT_LIST_LIMIT when absent (`what` it counts). */
export function listLimitSchema(what: string) {
  return v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, `must be an integer from 1 to ${MAX_LIST_LIMIT}`),
      v.transform(Number),
      v.number(),
      v.integer(),
      v.minValue(1, `must be an integer from 1 to ${MAX_LIST_LIMIT}`),
      v.maxValue(MAX_LIST_LIMIT, `must be an integer from 1 to ${MAX_LIST_LIMIT}`),
      v.metadata({ default: DEFAULT_LIST_LIMIT }),
      v.description(`How many ${what} the page holds at most.`),
    ),
  );
}

export const ListTasksQuerySchema = v.object({
  limit: listLimitSchema('tasks'),
  status: v.optional(
    v.pipe(
      v.picklist(TASK_STATUSES, `must be one of ${TASK_STATUSES.join(', ')}`),
      v.description('Only tasks in this status.'),
    ),
  ),
  model: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1, 'must be a model name'),
      v.maxLength(64, 'must be a model name'),
      v.description('Only tasks of this model (its name).'),
    ),
  ),
  cursor: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(MAX_CURSOR_LENGTH, 'is not a cursor of this API: pass next_cursor unchanged'),
      v.regex(/^[A-Za-z0-9_-]+$/, 'is not a cursor of this API: pass next_cursor unchanged'),
      v.description('The `next_cursor` of the previous page, unchanged; absent for the first page.'),
    ),
  ),
});

/** What the cursor carries: the index key of the previous page's last task, the caller's own. */
const CursorSchema = v.strictObject({
  account_id: v.pipe(v.string(), v.minLength(1)),
  created_at: v.pipe(v.string(), v.isoTimestamp()),
  task_id: v.pipe(v.string(), v.uuid()),
});

export interface ListTasksDeps {
  taskList: TaskList;
  tasks: Pick<TaskRepository, 'saveVideoUrl'>;
  signer: VideoUrlSigner;
  now: () => Date;
  /** Days the storage policy keeps a finished video; undefined: kept. */
  videoRetentionDays?: number | undefined;
}

export interface TaskListView {
  items: TaskView[];
  next_cursor: string | null;
}

export async function listTasks(
  caller: AccountCaller | Promise<AccountCaller>,
  query: Record<string, string | undefined> | undefined,
  deps: ListTasksDeps,
  /** Only one key's tasks (the console's filter, functions/core/use-cases/console/list-account-tasks.ts). */
  keyHash?: string,
): Promise<TaskListView> {
  const { accountId } = await caller;
  const { limit, status, model, metadata, cursor } = parseQuery(query ?? {});
  const page = await deps.taskList.listByAccount(accountId, {
    limit,
    ...(status ? { status } : {}),
    ...(model ? { model } : {}),
    ...(metadata ? { metadata } : {}),
    ...(keyHash ? { keyHash } : {}),
    ...(cursor ? { after: decodeCursor(cursor, accountId) } : {}),
  });
  const tasks = await Promise.all(page.tasks.map((task) => withFreshVideoUrl(task, deps)));
  return { items: tasks.map(toTaskView), next_cursor: page.next ? encodeCursor(page.next) : null };
}

/** `metadata[key]=value`: only tasks whose metadata holds that pair (docs/api-contract.md, "Metadata"). */
const METADATA_PARAMETER = /^metadata\[(.{1,64})\]$/;

function parseQuery(all: Record<string, string | undefined>) {
  const pairs = Object.entries(all).filter(([name]) => METADATA_PARAMETER.test(name));
  if (pairs.length > 1) throw new InvalidRequestError('metadata: filter by one pair at a time (metadata[key]=value)');
  const query = Object.fromEntries(Object.entries(all).filter(([name]) => !METADATA_PARAMETER.test(name)));
  const metadata = pairs[0] && ([METADATA_PARAMETER.exec(pairs[0][0])![1]!, pairs[0][1] ?? ''] as const);
  const known = Object.keys(ListTasksQuerySchema.entries);
  const unknown = Object.keys(query).filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new InvalidRequestError(`unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  }
  const result = v.safeParse(ListTasksQuerySchema, query);
  if (!result.success) {
    const issue = result.issues[0];
    throw new InvalidRequestError(`${issue.path?.[0]?.key as string}: ${issue.message}`);
  }
  return { ...result.output, limit: result.output.limit ?? DEFAULT_LIST_LIMIT, metadata };
}

export function encodeCursor(position: TaskListPosition): string {
  const { account_id, created_at, task_id } = position;
  return Buffer.from(JSON.stringify({ account_id, created_at, task_id }), 'utf8').toString('base64url');
}

/** The position a cursor names; one that is not ours, or names another account's list, is the client's error. */
export function decodeCursor(cursor: string, accountId: string): TaskListPosition {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (!v.is(CursorSchema, decoded) || decoded.account_id !== accountId) {
    throw new InvalidRequestError('cursor: is not a cursor of this list: pass next_cursor unchanged');
  }
  return decoded;
}
