/** An execution started through the state machine's `live` alias is still named under the machine. */
import type { SFNClient } from '@aws-sdk/client-sfn';
import { expect, it } from 'vitest';
import { StepFunctionsTaskWorkflow } from '../../functions/adapters/sfn/task-workflow.js';

const MACHINE = 'arn:aws:states:eu-west-1:123456789012:stateMachine:vgs-task-lifecycle-1a2b3c4d';

it('names executions under the machine whether it is given unqualified or through an alias', () => {
  const sfn = {} as SFNClient;
  const expected = 'arn:aws:states:eu-west-1:123456789012:execution:vgs-task-lifecycle-1a2b3c4d:task_1';
  expect(new StepFunctionsTaskWorkflow(sfn, MACHINE).executionArn('task_1')).toBe(expected);
  expect(new StepFunctionsTaskWorkflow(sfn, `${MACHINE}:live`).executionArn('task_1')).toBe(expected);
});
