/** State CompleteTask: sign the 24 h URL and move transferring → success with finished_at. */
import * as v from 'valibot';
import { completeTask } from '../core/use-cases/lifecycle-steps.js';
import { webhookNotice } from '../core/use-cases/webhook-notice.js';
import { taskRepository } from '../adapters/service-dependencies.js';
import { videoUrlSigner } from '../adapters/url-signer-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';
import { countMetric, METRIC } from '../adapters/metrics.js';

const deps = { tasks: taskRepository(), signer: videoUrlSigner(), now: () => new Date() };

const Input = v.object({ task_id: taskId, video_key: v.pipe(v.string(), v.minLength(1)) });

export const handler = stepHandler(Input, async (input) => {
  const result = await completeTask(input.task_id, input.video_key, deps);
  if (result.status === 'success') countMetric(METRIC.tasksSucceeded);
  return { ...result, notify: await webhookNotice(input.task_id, 'success', deps.tasks) };
});
