/** webhookNotice: the notify flag CompleteTask and FailAndRefund return. */
import { describe, expect, it } from 'vitest';
import type { TaskRecord } from '../../../functions/core/task.js';
import { webhookNotice } from '../../../functions/core/use-cases/webhook-notice.js';
import { TASK_ID } from '../../support/task-records.js';
import { webhookTask } from '../webhook-support.js';

describe('the notify flag the lifecycle steps return', () => {
  const tasks = (task: TaskRecord | undefined) => ({ get: async () => task });

  it('CompleteTask/FailAndRefund: true when the task is now in that state and asked for a webhook', async () => {
    expect(await webhookNotice(TASK_ID, 'success', tasks(webhookTask('success')))).toBe(true);
    expect(await webhookNotice(TASK_ID, 'failed', tasks(webhookTask('failed')))).toBe(true);
    expect(await webhookNotice(TASK_ID, 'failed', tasks(webhookTask('failed', {}, null)))).toBe(false);
    expect(await webhookNotice(TASK_ID, 'failed', tasks(undefined))).toBe(false);
  });
});
