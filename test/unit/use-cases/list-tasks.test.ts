/** listTasks: the query checked (limit, status, cursor), the cursor the caller's own, each task as GET shows it. */
import { beforeEach, describe, expect, it } from 'vitest';
import { AuthenticationError, InvalidRequestError } from '../../../functions/core/api-error.js';
import type { ListedTask, TaskList, TaskListPage, TaskListPosition } from '../../../functions/core/ports/task-list.js';
import { toTaskView } from '../../../functions/core/task.js';
import type { TaskStatus } from '../../../functions/core/task-status.js';
import { decodeCursor, encodeCursor, listTasks } from '../../../functions/core/use-cases/list-tasks.js';
import { ACCOUNT, TASK_ID, taskRecord } from '../../support/task-records.js';
import { CALLER, FakeSigner, HOUR, InMemoryTasks, NOW, OTHER_ACCOUNT } from '../fakes.js';
import { rejection } from '../support.js';

type ListOptions = { limit: number; status?: TaskStatus; after?: TaskListPosition };

/** Answers a fixed page and records what it was asked. */
class RecordingTaskList implements TaskList {
  readonly calls: { accountId: string; options: ListOptions }[] = [];
  page: TaskListPage = { tasks: [], next: null };

  async listByAccount(accountId: string, options: ListOptions): Promise<TaskListPage> {
    this.calls.push({ accountId, options });
    return this.page;
  }
}

const POSITION: TaskListPosition = { account_id: ACCOUNT, created_at: '2026-11-21T09:59:00.000Z', task_id: TASK_ID };

describe('listTasks', () => {
  let taskList: RecordingTaskList;
  let tasks: InMemoryTasks;
  let signer: FakeSigner;
  const run = (query: Record<string, string> | undefined, caller = Promise.resolve(CALLER)) =>
    listTasks(caller, query, { taskList, tasks, signer, now: () => NOW });

  beforeEach(() => {
    taskList = new RecordingTaskList();
    tasks = new InMemoryTasks();
    signer = new FakeSigner();
  });

  it("asks the caller's account for 20 tasks by default, and answers each as the status query's view", async () => {
    const record = taskRecord({ status: 'failed', error_message: 'upstream refused', finished_at: NOW.toISOString() });
    taskList.page = { tasks: [record as ListedTask], next: null };
    const page = await run(undefined);
    expect(taskList.calls).toEqual([{ accountId: ACCOUNT, options: { limit: 20 } }]);
    expect(page).toEqual({ items: [toTaskView(record)], next_cursor: null });
  });

  it('passes limit and status on, and the position of the cursor it was given', async () => {
    taskList.page = { tasks: [], next: POSITION };
    const first = await run({ limit: '100', status: 'success' });
    expect(first.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    await run({ limit: '1', status: 'success', cursor: first.next_cursor as string });
    expect(taskList.calls.map((call) => call.options)).toEqual([
      { limit: 100, status: 'success' },
      { limit: 1, status: 'success', after: POSITION },
    ]);
  });

  it('signs an expired video URL again (and stores it), as the status query does', async () => {
    const record = taskRecord({
      status: 'success',
      video_key: `videos/${ACCOUNT}/${TASK_ID}.mp4`,
      video_url: 'https://videos.example.com/old',
      video_url_expires_at: new Date(NOW.getTime() - HOUR).toISOString(),
    });
    tasks.tasks.set(TASK_ID, structuredClone(record));
    taskList.page = { tasks: [record as ListedTask], next: null };
    const page = await run({});
    expect(page.items[0]?.video_url).toBe(`https://videos.example.com/${record.video_key}?signed=${NOW.getTime()}`);
    expect(tasks.savedUrls.map((saved) => saved.url)).toEqual([page.items[0]?.video_url]);
  });

  it.each([
    [{ limit: '0' }, /^limit: must be an integer from 1 to 100/],
    [{ limit: '101' }, /^limit: /],
    [{ limit: 'ten' }, /^limit: /],
    [{ limit: '5,6' }, /^limit: /],
    [{ limit: '-1' }, /^limit: /],
    [{ status: 'done' }, /^status: must be one of pending, running/],
    [{ cursor: 'not a cursor!' }, /^cursor: /],
    [{ cursor: 'x'.repeat(600) }, /^cursor: /],
    [{ cursor: 'bm90IGpzb24' }, /^cursor: /],
    [{ cursor: encodeCursor({ ...POSITION, task_id: 'not-a-uuid' }) }, /^cursor: /],
    [{ cursor: encodeCursor({ ...POSITION, account_id: OTHER_ACCOUNT }) }, /^cursor: /],
    [{ state: 'failed' }, /^unknown query parameter: state$/],
  ])('refuses %j with 400, before any read', async (query, message) => {
    const error = await rejection(run(query));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toMatch(message);
    expect(taskList.calls).toEqual([]);
  });

  it('answers an authentication error before looking at the query', async () => {
    const error = await rejection(run({ limit: '0' }, Promise.reject(new AuthenticationError())));
    expect(error).toBeInstanceOf(AuthenticationError);
  });

  it('a cursor decodes to the position it was made from, only for its own account', () => {
    expect(decodeCursor(encodeCursor(POSITION), ACCOUNT)).toEqual(POSITION);
    expect(() => decodeCursor(encodeCursor(POSITION), OTHER_ACCOUNT)).toThrow(InvalidRequestError);
    // Extra fields are not ours either.
    const padded = Buffer.from(JSON.stringify({ ...POSITION, status: 'x' })).toString('base64url');
    expect(() => decodeCursor(padded, ACCOUNT)).toThrow(InvalidRequestError);
  });
});
