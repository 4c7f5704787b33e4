/** State FailAndRefund: the task fails with a customer-readable reason and is refunded exactly once. */
import * as v from 'valibot';
import { failAndRefund } from '../core/use-cases/lifecycle-steps.js';
import { webhookNotice } from '../core/use-cases/webhook-notice.js';
import { taskRepository } from '../adapters/service-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';
import { countMetric, METRIC } from '../adapters/metrics.js';

const deps = { tasks: taskRepository(), now: () => new Date() };

const Input = v.object({
  task_id: taskId,
  error: v.object({ Error: v.string(), Cause: v.optional(v.nullable(v.string()), null) }),
});

export const handler = stepHandler(Input, async (input) => {
  const error = { Error: input.error.Error, Cause: input.error.Cause ?? undefined };
  const result = await failAndRefund(input.task_id, error, deps);
  if (result.refunded) countMetric(METRIC.tasksFailed);
  return { ...result, notify: await webhookNotice(input.task_id, 'failed', deps.tasks) };
});
