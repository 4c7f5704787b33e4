import type { TaskRecord, TaskViewSource } from '../task.js';
import type { TaskStatus } from '../task-status.js';

/** What the account index holds of a task: its view's fields, and the video's key to re-sign its URL. */
export type ListedTask = TaskViewSource & Pick<TaskRecord, 'account_id' | 'video_key'>;

/** A place in an account's list: the index key of the last task of a page. */
export type TaskListPosition = Pick<TaskRecord, 'account_id' | 'created_at' | 'task_id'>;

export interface TaskListPage {
  tasks: ListedTask[];
  /** Where the next page starts; null once the list is exhausted. */
  next: TaskListPosition | null;
}

export interface TaskListOptions {
  limit: number;
  status?: TaskStatus;
  after?: TaskListPosition;
  order?: 'asc' | 'desc';
  /** Only the tasks submitted with this key (its hash, as the task stores it). */
  keyHash?: string;
  /** Only tasks of this model (its name), and only those whose metadata holds this pair. */
  model?: string;
  metadata?: readonly [string, string];
}

export interface TaskList {
  /**
   * The account's tasks newest first, from just after `after`: at most `limit`, only those in `status` when it
   * is given. With a status, a page may hold fewer than `limit` while `next` is set (the read is bounded).
   * `order: 'asc'` reads oldest first (OpenAI's list: docs/openai-videos.md, "List").
   */
  listByAccount(accountId: string, options: TaskListOptions): Promise<TaskListPage>;
}
