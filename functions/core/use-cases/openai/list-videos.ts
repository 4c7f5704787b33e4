/**
 * GET /api/v1/videos (docs/openai-videos.md, "List"): OpenAI's list of the caller's videos. Primary course: check
 * the query (after, limit, order); `after` is a video id of the caller's, read for its place in the account's
 * index; one read of the index in the order asked; the page as `{object: "list", data, first_id, last_id,
 * has_more}`. Without the live upstream check, as the native list.
 */
import * as v from 'valibot';
import { OpenAiParamError } from '../../openai-error.js';
import { toOpenAiVideo } from '../../openai-video.js';
import type { OpenAiVideoList } from '../../openai-video.js';
import type { TaskList } from '../../ports/task-list.js';
import type { TaskRepository } from '../../ports/task-repository.js';
import type { AccountCaller } from '../authenticate.js';
import { findOwnTask } from '../get-task.js';
import { DEFAULT_LIST_LIMIT, listLimitSchema } from '../list-tasks.js';

export const ListVideosQuerySchema = v.object({
  after: v.optional(v.pipe(v.string(), v.description('The `last_id` of the previous page; absent for the first.'))),
  limit: listLimitSchema('videos'),
  order: v.optional(
    v.pipe(
      v.picklist(['asc', 'desc'], 'must be asc or desc'),
      v.metadata({ default: 'desc' }),
      v.description('By creation time: `desc` (newest first, the default) or `asc`.'),
    ),
  ),
});

export interface ListVideosDeps {
  taskList: TaskList;
  tasks: TaskRepository;
  videoRetentionDays?: number | undefined;
}

export async function listVideos(
  caller: AccountCaller | Promise<AccountCaller>,
  query: Record<string, string | undefined> | undefined,
  deps: ListVideosDeps,
): Promise<OpenAiVideoList> {
  const { accountId } = await caller;
  const { after, limit, order } = parseQuery(query ?? {});
  const from = after === undefined ? undefined : await findOwnTask({ accountId }, after, deps.tasks);
  const page = await deps.taskList.listByAccount(accountId, {
    limit: limit ?? DEFAULT_LIST_LIMIT,
    order: order ?? 'desc',
    ...(from ? { after: { account_id: from.account_id, created_at: from.created_at, task_id: from.task_id } } : {}),
  });
  const data = page.tasks.map((task) => toOpenAiVideo(task, deps.videoRetentionDays));
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: page.next !== null,
  };
}

function parseQuery(query: Record<string, string | undefined>) {
  const known = Object.keys(ListVideosQuerySchema.entries);
  const unknown = Object.keys(query).filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new OpenAiParamError(
      unknown[0] as string,
      `unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (this list takes after, limit, order)`,
    );
  }
  const result = v.safeParse(ListVideosQuerySchema, query);
  if (!result.success) {
    const issue = result.issues[0];
    const name = issue.path?.[0]?.key as string;
    throw new OpenAiParamError(name, `${name}: ${issue.message}`);
  }
  return result.output;
}
