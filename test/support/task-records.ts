/** A charged-looking task record for tests that write tasks straight to the table (crashes, races). */
import { randomUUID } from 'node:crypto';
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
