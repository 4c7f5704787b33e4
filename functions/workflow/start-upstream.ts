/**
 * State StartUpstream: create the upstream job once (or reuse the stored one) and move to running. The
 * state machine keeps no part of the result (ResultPath null): PollUpstream re-reads the task, and tells a
 * task that ended meanwhile (with its webhook notice) itself.
 */
import * as v from 'valibot';
import { startUpstreamJob } from '../core/use-cases/lifecycle-steps.js';
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

export const handler = stepHandler(v.object({ task_id: taskId }), (input) => startUpstreamJob(input.task_id, deps));
