/**
 * State StartUpstream: create the upstream job once (or reuse the stored one) and move to running. The
 * state machine keeps no part of the result (ResultPath null): PollUpstream re-reads the task, and tells a
 * task that ended meanwhile (with its webhook notice) itself. An upstream with no room yet makes it throw
 * WaitingForUpstreamError, the state's retry loop, counted so that the error-rate alarm can leave it out.
 */
import * as v from 'valibot';
import { startUpstreamJob } from '../core/use-cases/lifecycle-steps.js';
import { WaitingForUpstreamError } from '../core/workflow-errors.js';
import { countMetric, METRIC } from '../adapters/metrics.js';
import { videoProviders } from '../adapters/provider-dependencies.js';
import { logger } from '../adapters/logger.js';
import { taskRepository } from '../adapters/service-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';

const deps = {
  tasks: taskRepository(),
  providers: videoProviders(),
  now: () => new Date(),
  onOrphanJobCancelFailure: (taskId: string, jobId: string, error: unknown) =>
    logger.error('the task ended while its upstream job was created, and cancelling that job failed', {
      task_id: taskId,
      upstream_job_id: jobId,
      error: error as Error,
    }),
};

export const handler = stepHandler(v.object({ task_id: taskId }), async (input) => {
  try {
    return await startUpstreamJob(input.task_id, deps);
  } catch (error) {
    if (error instanceof WaitingForUpstreamError) {
      countMetric(METRIC.upstreamStartsDeferred);
      logger.warn('the upstream cannot take the job yet; waiting', { error: error.message });
    }
    throw error;
  }
});
