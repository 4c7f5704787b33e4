/** Composition root for the task's execution (Step Functions) and its poll schedule. */
import { parsePollSchedule } from '../core/poll-schedule.js';
import { optionalEnv, requireEnv } from './config.js';
import { sfnClient } from './sfn-client.js';
import { StepFunctionsTaskWorkflow } from './sfn-task-workflow.js';

export function taskWorkflow() {
  return new StepFunctionsTaskWorkflow(sfnClient(), requireEnv('STATE_MACHINE_ARN'));
}

/** Seconds between upstream polls: growing, the last value repeating (see poll-schedule.ts). */
export function pollSchedule() {
  return parsePollSchedule(optionalEnv('POLL_SCHEDULE_SECONDS', '10,15,20,30,45,60'));
}
