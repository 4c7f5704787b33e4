/** State FailAndRefund: the task fails with a customer-readable reason and is refunded exactly once. */
import * as v from 'valibot';
import { failAndRefund } from '../core/use-cases/fail-and-refund.js';
import { webhookNotice } from '../core/use-cases/webhook-notice.js';
import { waitingRoomDependencies } from '../adapters/wiring/capacity-dependencies.js';
import { logger } from '../adapters/runtime/logger.js';
import { videoProviders } from '../adapters/wiring/provider-dependencies.js';
import { taskRepository } from '../adapters/wiring/service-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';
import { countMetric, METRIC } from '../adapters/runtime/metrics.js';
import { claimReports } from '../adapters/wiring/claim-reports.js';

const deps = {
  ...waitingRoomDependencies(),
  tasks: taskRepository(),
  ...claimReports,
  // 5 s a request: the cancel (a GET; a DELETE if queued; maybe a GET again) fits the function's 25 s after the refund.
  providers: videoProviders(5_000),
  onUpstreamCancelFailure: (taskId: string, jobId: string, error: unknown) =>
    logger.error('the task failed and was refunded, but cancelling its upstream job failed', {
      task_id: taskId,
      upstream_job_id: jobId,
      error: error as Error,
    }),
};

const Input = v.object({
  task_id: taskId,
  error: v.object({ Error: v.string(), Cause: v.optional(v.nullable(v.string()), null) }),
});

export const handler = stepHandler(Input, async (input) => {
  const error = { Error: input.error.Error, Cause: input.error.Cause ?? undefined };
  // The customer reads our words (describeFailure); operators read here what the upstream said, with its ids.
  logger.info('the task failed', { failure: error });
  const result = await failAndRefund(input.task_id, error, deps);
  if (result.refunded) countMetric(METRIC.tasksFailed);
  return { ...result, notify: await webhookNotice(input.task_id, 'failed', deps.tasks) };
});
