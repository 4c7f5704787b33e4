/**
 * The one task-record builder of the tests: a pending seedance-1.5-pro task (4.2 CNY: 5 s 720p with sound
 * from a first frame) with fixed ids and times, any field (and any field of its generation) overridden;
 * taskRecordFor, a new 3 CNY lite i2v task of an account (one first frame), dated now, for tests that write
 * tasks straight to the table (crashes, races). Both are generations the gateway resolves and the upstream
 * (or its simulator) accepts: `upstream_model` is the contract key (functions/providers/ark/contract.ts).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { DynamoDbTaskRepository } from '../../functions/adapters/dynamodb/task-repository.js';
import type { TaskTables } from '../../functions/adapters/dynamodb/task-repository.js';
import type { TaskRecord } from '../../functions/core/task.js';

export const TASK_ID = '7a0c1a8e-1f0b-4a51-9d86-6b8f5f0c2d11';
export const ACCOUNT = 'acc-1';

export type TaskRecordFields = Partial<Omit<TaskRecord, 'generation'>> & {
  generation?: Partial<TaskRecord['generation']>;
};

export function taskRecord(fields: TaskRecordFields = {}): TaskRecord {
  const { generation, ...rest } = fields;
  return {
    task_id: TASK_ID,
    account_id: ACCOUNT,
    key_hash: 'key-hash-1',
    key_quota_charged: false,
    form: 'A',
    status: 'pending',
    cost_units: 42_000,
    upstream_provider: 'ark',
    upstream_model: 'seedance-1-5-pro',
    created_at: '2026-11-21T09:59:00.000Z',
    updated_at: '2026-11-21T09:59:00.000Z',
    deadline_at: '2026-11-21T10:59:00.000Z',
    ...rest,
    generation: {
      modelId: '6f1c2a0e-5b7d-4c1e-9a3f-0d2b8e4c7a11',
      modelName: 'seedance-1.5-pro',
      prompt: 'A red fox trots through fresh snow',
      resolution: '720p',
      ratio: '16:9',
      durationSeconds: 5,
      generateAudio: true,
      imageMode: 'first_frame',
      imageUrls: ['https://cdn.example.com/fox.png'],
      videoUrls: [],
      audioUrls: [],
      ...generation,
    },
  };
}

export function taskRecordFor(
  owner: { accountId: string; keyHash: string },
  fields: TaskRecordFields = {},
): TaskRecord {
  const now = new Date().toISOString();
  const { generation, ...rest } = fields;
  return taskRecord({
    task_id: randomUUID(),
    account_id: owner.accountId,
    key_hash: owner.keyHash,
    cost_units: 30_000,
    upstream_model: 'seedance-1-0-lite-i2v',
    created_at: now,
    updated_at: now,
    deadline_at: new Date(Date.now() + 3_600_000).toISOString(),
    ...rest,
    generation: {
      modelId: '0d5a8f3e-9c2b-4a7d-b6e1-7f4c2d9a8e33',
      modelName: 'seedance-1.0-lite-i2v',
      prompt: 'x',
      generateAudio: false,
      // An image-to-video model: its one image is the first frame.
      imageUrls: ['https://cdn.example.com/x.png'],
      ...generation,
    },
  });
}

/**
 * Charges and stores `task` as a submit would, but as a task whose execution never started: the tasks
 * stream's starter only takes tasks created `pending` (TASK_STARTS), so it is created `running` (passed
 * over) and then set `pending` (a MODIFY, passed over too). What a stack that died before its stream event
 * source read the task leaves behind: only the reconciler, or a cancel, moves it on.
 */
export async function createUnstartedTask(
  db: DynamoDBDocumentClient,
  tables: TaskTables,
  task: TaskRecord,
): Promise<void> {
  const repository = new DynamoDbTaskRepository(db, tables);
  await repository.createCharged(
    { ...task, status: 'running' },
    { accountId: task.account_id, keyHash: task.key_hash, keyHasQuota: false, costUnits: task.cost_units },
  );
  await db.send(
    new UpdateCommand({
      TableName: tables.tasks,
      Key: { task_id: task.task_id },
      UpdateExpression: 'SET #status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pending': 'pending' },
    }),
  );
}
