/** State StartUpstream: create the upstream job once (or reuse the stored one) and move to running. Its result is not kept: PollUpstream re-reads the task. */
import * as v from 'valibot';
import { startUpstreamJob } from '../core/use-cases/lifecycle-steps.js';
import { withFinalNotice } from '../core/use-cases/webhook-notice.js';
import { videoProviders } from '../adapters/provider-dependencies.js';
import { taskRepository } from '../adapters/service-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';

const deps = {
  tasks: taskRepository(),
  providers: videoProviders(),
  now: () => new Date(),
};

export const handler = stepHandler(v.object({ task_id: taskId }), async (input) =>
  withFinalNotice(input.task_id, await startUpstreamJob(input.task_id, deps), deps.tasks),
);
