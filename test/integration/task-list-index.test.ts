/**
 * The account index on DynamoDB Local (TASKS_BY_ACCOUNT_INDEX, DynamoDbTaskList): pages newest first that join
 * into every task of the account exactly once (ties in created_at included), a status filter that keeps reading
 * until a page is full yet stops after MAX_EVALUATED tasks, and a projection that holds all a Task view needs.
 */
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoDbTaskList, MAX_EVALUATED } from '../../functions/adapters/dynamodb/task-list.js';
import { TABLES, TASKS_BY_ACCOUNT_INDEX } from '../../functions/adapters/runtime/resources.js';
import type { ListedTask, TaskListPosition } from '../../functions/core/ports/task-list.js';
import { toTaskView } from '../../functions/core/task.js';
import type { TaskRecord } from '../../functions/core/task.js';
import type { TaskStatus } from '../../functions/core/task-status.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { taskRecord } from '../support/task-records.js';

const local = useDynamoDbLocal('task-list');
const taskList = () => new DynamoDbTaskList(local.db, local.names.tables.tasks);

const minute = (n: number) => new Date(Date.UTC(2026, 10, 21, 8, 0, 0) + n * 60_000).toISOString();

function taskOf(account: string, createdAt: string, fields: Partial<TaskRecord> = {}): TaskRecord {
  return taskRecord({ task_id: randomUUID(), account_id: account, created_at: createdAt, ...fields });
}

async function putAll(tasks: TaskRecord[]) {
  for (let start = 0; start < tasks.length; start += 25) {
    await local.db.send(
      new BatchWriteCommand({
        RequestItems: {
          [local.names.tables.tasks]: tasks.slice(start, start + 25).map((task) => ({ PutRequest: { Item: task } })),
        },
      }),
    );
  }
}

/** Every page, following `next`, with the reads each took. */
async function readAll(account: string, limit: number, status?: TaskStatus) {
  const pages: ListedTask[][] = [];
  let after: TaskListPosition | undefined;
  for (let round = 0; round < 50; round += 1) {
    const page = await taskList().listByAccount(account, {
      limit,
      ...(status ? { status } : {}),
      ...(after ? { after } : {}),
    });
    pages.push(page.tasks);
    if (!page.next) return pages;
    after = page.next;
  }
  throw new Error('the list never ended');
}

/** A tasks table with only the account index, projected as the CDK stack projects it. */
async function projectedTable(): Promise<string> {
  const name = `${local.names.tables.tasks}-projected`;
  const index = TASKS_BY_ACCOUNT_INDEX;
  await local.client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [TABLES.tasks.partitionKey, index.partitionKey, index.sortKey].map((attribute) => ({
        AttributeName: attribute,
        AttributeType: 'S',
      })),
      KeySchema: [{ AttributeName: TABLES.tasks.partitionKey, KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.nonKeyAttributes] },
        },
      ],
    }),
  );
  return name;
}

describe('the account index', () => {
  it("pages through an account's tasks newest first, each once, ties in created_at included, others' never", async () => {
    const account = `acct-${randomUUID()}`;
    const tasks = Array.from({ length: 23 }, (_, n) => taskOf(account, minute(n % 20))); // three ties
    await putAll([...tasks, taskOf(`other-${randomUUID()}`, minute(5))]);

    const pages = await readAll(account, 5);
    expect(pages.map((page) => page.length)).toEqual([5, 5, 5, 5, 3]);
    const listed = pages.flat();
    expect(listed.map((task) => task.task_id).sort()).toEqual(tasks.map((task) => task.task_id).sort());
    const times = listed.map((task) => task.created_at);
    expect(times).toEqual([...times].sort().reverse());

    // A page that ends with the last task says so: no cursor to an empty page.
    expect((await taskList().listByAccount(account, { limit: 23 })).next).toBeNull();
    expect((await taskList().listByAccount(account, { limit: 22 })).next).not.toBeNull();
  });

  it('a status filter fills its pages from as far back as it must, and finds every match once', async () => {
    const account = `acct-${randomUUID()}`;
    const failed = [3, 40, 41, 90].map((n) => taskOf(account, minute(n), { status: 'failed', error_message: 'no' }));
    const others = Array.from({ length: 100 }, (_, n) => taskOf(account, minute(n + 0.5), { status: 'success' }));
    await putAll([...failed, ...others]);

    const pages = await readAll(account, 3, 'failed');
    expect(pages.map((page) => page.length)).toEqual([3, 1]);
    expect(pages.flat().map((task) => task.task_id)).toEqual([...failed].reverse().map((task) => task.task_id));
    expect(pages.flat().every((task) => task.status === 'failed')).toBe(true);
  });

  it(`stops a filtered read after ${MAX_EVALUATED} tasks with a cursor, so a rare status never reads them all`, async () => {
    const account = `acct-${randomUUID()}`;
    const old = taskOf(account, minute(0), { status: 'refunded' });
    const newer = Array.from({ length: MAX_EVALUATED + 50 }, (_, n) =>
      taskOf(account, minute(1 + n / 100), { status: 'success' }),
    );
    await putAll([old, ...newer]);

    const first = await taskList().listByAccount(account, { limit: 10, status: 'refunded' });
    expect(first.tasks).toEqual([]);
    expect(first.next).not.toBeNull();
    const second = await taskList().listByAccount(account, {
      limit: 10,
      status: 'refunded',
      after: first.next as TaskListPosition,
    });
    expect(second.tasks.map((task) => task.task_id)).toEqual([old.task_id]);
    expect(second.next).toBeNull();
  });

  it('projects all a Task view is made of: a listed task shows as the stored one does', async () => {
    const account = `acct-${randomUUID()}`;
    const full = taskOf(account, minute(1), {
      status: 'success',
      finished_at: minute(2),
      video_key: `videos/${account}/x.mp4`,
      video_url: 'https://videos.example.com/x.mp4?signed=1',
      video_url_expires_at: minute(60 * 24),
      webhook_state: 'retrying',
      webhook_attempts: 2,
      webhook_last_status_code: 503,
      webhook_last_error: 'HTTP 503',
      webhook_last_attempt_at: minute(3),
      upstream_job_id: 'cgt-1',
      callback_token: 'secret',
      generation: { ...taskRecord().generation, webhookUrl: 'https://hooks.example.com/x' },
    });
    const failed = taskOf(account, minute(4), { status: 'failed', finished_at: minute(5), error_message: 'refused' });
    // The local stack makes every index with ALL projected: this table has the index as AWS makes it (INCLUDE).
    const table = await projectedTable();
    for (const task of [full, failed]) {
      await local.db.send(new PutCommand({ TableName: table, Item: task }));
    }
    const { tasks } = await new DynamoDbTaskList(local.db, table).listByAccount(account, { limit: 10 });
    expect(tasks.map(toTaskView)).toEqual([toTaskView(failed), toTaskView(full)]);
    expect(tasks[1]?.video_key).toBe(full.video_key);
    // What the view does not need stays out of the index.
    expect(tasks[1]).not.toHaveProperty('callback_token');
    expect(tasks[1]).not.toHaveProperty('updated_at');
  });

  it("lists one key's tasks from the key's index, paged, and only the account's", async () => {
    const account = `acct-${randomUUID()}`;
    const keyHash = `hash-${randomUUID()}`;
    const mine = Array.from({ length: 5 }, (_, n) => taskOf(account, minute(n), { key_hash: keyHash }));
    const otherKey = taskOf(account, minute(10), { key_hash: `hash-${randomUUID()}` });
    const otherAccount = taskOf(`acct-${randomUUID()}`, minute(11), { key_hash: keyHash });
    await putAll([...mine, otherKey, otherAccount]);

    const first = await taskList().listByAccount(account, { limit: 3, keyHash });
    expect(first.tasks.map((task) => task.task_id)).toEqual(
      mine
        .slice(2)
        .reverse()
        .map((task) => task.task_id),
    );
    const second = await taskList().listByAccount(account, { limit: 3, keyHash, after: first.next! });
    expect(second.tasks.map((task) => task.task_id)).toEqual(
      mine
        .slice(0, 2)
        .reverse()
        .map((task) => task.task_id),
    );
    expect(second.next).toBeNull();
    const failed = await taskList().listByAccount(account, { limit: 3, keyHash, status: 'failed' });
    expect(failed.tasks).toEqual([]);
  });
});
