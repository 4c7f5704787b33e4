/**
 * State StartUpstream: create the upstream job once (or reuse the stored one) with the task's upstream slot
 * and move to running. The state machine keeps only `check_seconds` (`$.watch`, AwaitCompletion's fallback
 * poll): AwaitCompletion re-reads the task. An upstream with no room after all makes it give the slot back and throw
 * WaitingForUpstreamError: the state machine returns the task to the waiting room (counted, for the alarm).
 */
import * as v from 'valibot';
import { startUpstreamJob } from '../core/use-cases/start-upstream-job.js';
import { WaitingForUpstreamError } from '../core/workflow-errors.js';
import { callbackUrl, waitingRoomDependencies } from '../adapters/wiring/capacity-dependencies.js';
import { readEnv } from '../adapters/runtime/config.js';
import { countMetric, METRIC } from '../adapters/runtime/metrics.js';
import { videoProviders } from '../adapters/wiring/provider-dependencies.js';
import { logger } from '../adapters/runtime/logger.js';
import { taskRepository } from '../adapters/wiring/service-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';
import { claimReports } from '../adapters/wiring/claim-reports.js';

const deps = {
  ...waitingRoomDependencies(),
  tasks: taskRepository(),
  providers: videoProviders(),
  callbackUrl,
  ...claimReports,
  checkSeconds: { callback: readEnv('completionCheckSeconds'), polling: readEnv('completionPollSeconds') },
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
      logger.warn('the upstream cannot take the job yet; back to the waiting room', { error: error.message });
    }
    throw error;
  }
});
