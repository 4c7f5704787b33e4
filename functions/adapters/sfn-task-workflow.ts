/** Starts the task's lifecycle execution, named by the task id so a second start is a no-op. */
import type { SFNClient } from '@aws-sdk/client-sfn';
import { ExecutionAlreadyExists, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { WorkflowStarter } from '../core/ports/workflow-starter.js';

export class StepFunctionsWorkflowStarter implements WorkflowStarter {
  constructor(
    private readonly sfn: SFNClient,
    private readonly stateMachineArn: string,
  ) {}

  async start(taskId: string): Promise<void> {
    try {
      await this.sfn.send(
        new StartExecutionCommand({
          stateMachineArn: this.stateMachineArn,
          name: taskId,
          input: JSON.stringify({ task_id: taskId }),
        }),
      );
    } catch (error) {
      if (error instanceof ExecutionAlreadyExists) return;
      throw error;
    }
  }
}
