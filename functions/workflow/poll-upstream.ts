/** State PollUpstream: ask the upstream how the job is doing; enforce the task's deadline. */
import * as v from 'valibot';
import { pollUpstreamJob } from '../core/use-cases/lifecycle-steps.js';
import { withFinalNotice } from '../core/use-cases/webhook-notice.js';
import { videoProviders } from '../adapters/provider-dependencies.js';
import { taskRepository } from '../adapters/service-dependencies.js';
import { pollSchedule } from '../adapters/workflow-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';

const deps = {
  tasks: taskRepository(),
  providers: videoProviders(),
  pollSchedule: pollSchedule(),
  now: () => new Date(),
};

const Input = v.object({
  task_id: taskId,
  job_id: v.pipe(v.string(), v.minLength(1)),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

export const handler = stepHandler(Input, async (input) =>
  withFinalNotice(input.task_id, await pollUpstreamJob(input.task_id, input.job_id, input.attempt, deps), deps.tasks),
);
