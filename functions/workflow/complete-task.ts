/**
 * State CompleteTask, the success path's last: sign the 24 h URL, move transferring → success with
 * finished_at, and queue the completion webhook when the task asked for one. Queued here rather than by states
 * of its own (a Choice, an SQS task, a Succeed: two or three transitions of every successful task). A send
 * that fails is logged, never a failed step: the webhook requeuer sends what is owed (its pending index).
 */
import * as v from 'valibot';
import { completeTask } from '../core/use-cases/complete-task.js';
import { webhookNotice } from '../core/use-cases/webhook-notice.js';
import { logger } from '../adapters/runtime/logger.js';
import { taskRepository } from '../adapters/wiring/service-dependencies.js';
import { videoUrlSigner } from '../adapters/wiring/url-signer-dependencies.js';
import { webhookQueue } from '../adapters/wiring/webhook-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';
import { countMetric, METRIC } from '../adapters/runtime/metrics.js';

const deps = { tasks: taskRepository(), signer: videoUrlSigner(), queue: webhookQueue(), now: () => new Date() };

/** The label TransferVideo wrote into the file, or null when it could not (docs/compliance.md). */
const Aigc = v.nullable(
  v.object({
    content_producer: v.string(),
    produce_id: v.string(),
    content_propagator: v.string(),
    propagate_id: v.string(),
  }),
);
const Input = v.object({
  task_id: taskId,
  video_key: v.pipe(v.string(), v.minLength(1)),
  // Absent from executions started before the label was kept.
  aigc: v.optional(Aigc, null),
});

export const handler = stepHandler(Input, async (input) => {
  const result = await completeTask(input.task_id, input.video_key, input.aigc, deps);
  if (result.status === 'success') countMetric(METRIC.tasksSucceeded);
  const notify = await webhookNotice(input.task_id, 'success', deps.tasks);
  if (notify) {
    await deps.queue.send({ task_id: input.task_id, event: 'task.success' }, 0).catch((error: unknown) => {
      logger.warn('completion webhook not queued: the requeuer sends it', {
        task_id: input.task_id,
        error: error as Error,
      });
    });
  }
  return { ...result, notify };
});
