/** The task's lifecycle execution in Step Functions, named by the task id (or a restart name). */
import type { SFNClient } from '@aws-sdk/client-sfn';
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import type { TaskWorkflow } from '../../core/ports/workflow-starter.js';

export class StepFunctionsTaskWorkflow implements TaskWorkflow {
  constructor(
    private readonly sfn: SFNClient,
    private readonly stateMachineArn: string,
  ) {}

  async start(taskId: string, executionName = taskId): Promise<void> {
    try {
      await this.sfn.send(
        new StartExecutionCommand({
          stateMachineArn: this.stateMachineArn,
          name: executionName,
          input: JSON.stringify({ task_id: taskId }),
        }),
      );
    } catch (error) {
      // Same name, same input while it runs: Step Functions answers with the running one; anything else
      // under this name already ran, and the reconciler restarts under a new name.
      if (error instanceof ExecutionAlreadyExists) return;
      throw error;
    }
  }

  async stop(executionName: string, cause: string): Promise<void> {
    try {
      await this.sfn.send(new StopExecutionCommand({ executionArn: this.executionArn(executionName), cause }));
    } catch (error) {
      if (error instanceof ExecutionDoesNotExist) return;
      throw error;
    }
  }

  async status(executionName: string): Promise<'running' | 'ended' | 'missing'> {
    try {
      const { status } = await this.sfn.send(
        new DescribeExecutionCommand({ executionArn: this.executionArn(executionName) }),
      );
      return status === 'RUNNING' || status === 'PENDING_REDRIVE' ? 'running' : 'ended';
    } catch (error) {
      if (error instanceof ExecutionDoesNotExist) return 'missing';
      throw error;
    }
  }

  /**
   * Executions started through an alias or a version (`…:stateMachine:<name>:live`) are still named under the
   * machine (`…:execution:<name>:<execution>`; DescribeExecution reports the alias apart, as stateMachineAliasArn).
   */
  executionArn(executionName: string): string {
    const unqualified = this.stateMachineArn.split(':').slice(0, 7).join(':');
    return `${unqualified.replace(':stateMachine:', ':execution:')}:${executionName}`;
  }
}
