/** A charged-looking task record for tests that write tasks straight to the table (crashes, races). */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { DynamoDbTaskRepository } from '../../functions/adapters/dynamodb-task-repository.js';
import type { TaskRecord } from '../../functions/core/task.js';

export function taskRecordFor(
  owner: { accountId: string; keyHash: string },
  fields: Partial<TaskRecord> = {},
): TaskRecord {
  const now = new Date().toISOString();
  return {
    task_id: randomUUID(),
    account_id: owner.accountId,
    key_hash: owner.keyHash,
    key_quota_charged: false,
    form: 'A',
    status: 'pending',
    cost_units: 30_000,
    generation: {
      modelId: '0d5a8f3e-9c2b-4a7d-b6e1-7f4c2d9a8e33',
      modelName: 'seedance-1.0-lite-i2v',
      prompt: 'x',
      resolution: '720p',
      ratio: '16:9',
      durationSeconds: 5,
      generateAudio: false,
      imageUrls: [],
      videoUrls: [],
      audioUrls: [],
    },
    upstream_provider: 'ark',
    upstream_model: 'doubao-seedance-1-0-lite-i2v-250428',
    created_at: now,
    updated_at: now,
    deadline_at: new Date(Date.now() + 3_600_000).toISOString(),
    ...fields,
  };
}

/**
 * Charges and stores `task` as a submit would, but as a task whose execution never started: the tasks
 * stream's starter only takes tasks created `pending` (TASK_STARTS), so it is created `running` (passed
 * over) and then set `pending` (a MODIFY, passed over too). What a stack that died before its stream event
 * source read the task leaves behind: only the reconciler, or a cancel, moves it on.
 */
export async function createUnstartedTask(
  db: DynamoDBDocumentClient,
  tables: { tasks: string; accounts: string; apiKeys: string },
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
