/**
 * GET /api/v1/console/tasks: the account's tasks as GET /api/v1/video/tasks lists them, and `key_id` to list one
 * key's only. Primary course: take `key_id` out of the query and find it among the account's keys (deleted ones
 * too; anything else is a 400 naming it); list as the public route does, from the key's index when one is named.
 */
import * as v from 'valibot';
import { InvalidRequestError } from '../../api-error.js';
import type { ConsoleKeyStore } from '../../ports/console.js';
import { listTasks, ListTasksQuerySchema } from '../list-tasks.js';
import type { ListTasksDeps, TaskListView } from '../list-tasks.js';
import type { ConsoleCaller } from './console-caller.js';

const KEY_ID_PATTERN = /^key_[A-Za-z0-9]{1,64}$/;

/** The public list's query and the key filter (the OpenAPI document's too). */
export const ConsoleListTasksQuerySchema = v.object({
  ...ListTasksQuerySchema.entries,
  key_id: v.optional(
    v.pipe(
      v.string(),
      v.regex(KEY_ID_PATTERN, 'must be a key id as the key list shows it, key_…'),
      v.description("Only the tasks submitted with this key (one of the account's, deleted ones included)."),
    ),
  ),
});

export async function listAccountTasks(
  caller: ConsoleCaller,
  query: Record<string, string | undefined> | undefined,
  deps: ListTasksDeps & { keys: ConsoleKeyStore },
): Promise<TaskListView> {
  const { key_id: keyId, ...rest } = query ?? {};
  if (keyId === undefined) return listTasks(caller, rest, deps);
  if (!KEY_ID_PATTERN.test(keyId)) {
    throw new InvalidRequestError('key_id: must be a key id as the key list shows it, key_…');
  }
  const key = (await deps.keys.listByAccount(caller.accountId)).find((record) => record.key_id === keyId);
  if (!key) throw new InvalidRequestError(`key_id: no key ${keyId} in this account`);
  return listTasks(caller, rest, deps, key.key_hash);
}
