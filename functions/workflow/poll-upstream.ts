/**
 * State PollUpstream: ask the upstream how the job is doing; enforce the task's deadline. Throws
 * GenerationInProgressError while the job runs: the state's Retry is the poll loop. Each such throw is
 * counted, so that the function's error-rate alarm can leave the designed ones out.
 */
import * as v from 'valibot';
import { pollUpstreamJob } from '../core/use-cases/lifecycle-steps.js';
import { withFinalNotice } from '../core/use-cases/webhook-notice.js';
import { GenerationInProgressError } from '../core/workflow-errors.js';
import { countMetric, METRIC } from '../adapters/metrics.js';
import { videoProviders } from '../adapters/provider-dependencies.js';
import { taskRepository } from '../adapters/service-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';

const deps = {
  tasks: taskRepository(),
  providers: videoProviders(),
  now: () => new Date(),
};

export const handler = stepHandler(v.object({ task_id: taskId }), async (input) => {
  try {
    return await withFinalNotice(input.task_id, await pollUpstreamJob(input.task_id, deps), deps.tasks);
  } catch (error) {
    if (error instanceof GenerationInProgressError) countMetric(METRIC.upstreamPollsInProgress);
    throw error;
  }
});
