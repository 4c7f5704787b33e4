/**
 * Answers task tokens (SendTaskSuccess/SendTaskFailure). A token that no longer waits is answered by Step
 * Functions with TaskTimedOut (or TaskDoesNotExist, InvalidToken for one it never issued or that expired):
 * false, as whoever answered first won.
 */
import type { SFNClient } from '@aws-sdk/client-sfn';
import { SendTaskFailureCommand, SendTaskSuccessCommand } from '@aws-sdk/client-sfn';
import type { TaskWaker } from '../../core/ports/task-waker.js';

const NO_LONGER_WAITING = new Set(['TaskTimedOut', 'TaskDoesNotExist', 'InvalidToken']);

export class StepFunctionsTaskWaker implements TaskWaker {
  constructor(private readonly sfn: SFNClient) {}

  succeed(token: string, output: unknown): Promise<boolean> {
    return this.answer(new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify(output) }));
  }

  fail(token: string, error: string, cause: string): Promise<boolean> {
    // Step Functions' limits: error 256 characters, cause 32,768.
    const command = new SendTaskFailureCommand({
      taskToken: token,
      error: error.slice(0, 256),
      cause: cause.slice(0, 32_768),
    });
    return this.answer(command);
  }

  private async answer(command: SendTaskSuccessCommand | SendTaskFailureCommand): Promise<boolean> {
    try {
      await this.sfn.send(command as SendTaskSuccessCommand);
      return true;
    } catch (error) {
      if (error instanceof Error && NO_LONGER_WAITING.has(error.name)) return false;
      throw error;
    }
  }
}
