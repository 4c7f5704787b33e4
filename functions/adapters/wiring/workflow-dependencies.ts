/** Composition root for the task's execution (Step Functions). */
import { readEnv } from '../runtime/config.js';
import { sfnClient } from '../sfn/client.js';
import { StepFunctionsTaskWorkflow } from '../sfn/task-workflow.js';

export function taskWorkflow() {
  return new StepFunctionsTaskWorkflow(sfnClient(), readEnv('stateMachineArn'));
}
