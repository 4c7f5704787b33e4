/** Composition root for the task's execution (Step Functions). */
import { requireEnv } from './config.js';
import { sfnClient } from './sfn-client.js';
import { StepFunctionsTaskWorkflow } from './sfn-task-workflow.js';

export function taskWorkflow() {
  return new StepFunctionsTaskWorkflow(sfnClient(), requireEnv('STATE_MACHINE_ARN'));
}
